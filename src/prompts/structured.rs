//! A template that asks for JSON and reads it: `parser = "json"` with a JMESPath `path` and a
//! `values` table (`verdicts::structured`), and the `[request]` fields sent with each call.
//!
//! ```toml
//! parser = "json"
//! path = "ordered_models[?rank==`1`].model | [0]"
//! values = { m = "response1", M = "response2" }   # pairwise; pointwise: the path gives the grade
//!
//! [request]                                       # merged into each request's body
//! response_format = { type = "json_schema", json_schema = { name = "verdict", schema = { ... } } }
//! # or: tools = [...] and tool_choice = { type = "function", function = { name = "..." } }
//! ```

use super::template::Mode;
use crate::verdicts::structured::JsonParser;
use crate::verdicts::{verdict_from_name, verdict_name, Parser};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The JSON reader of a template file, or what is wrong with it (the caller names the file).
pub(super) fn parser(
    path: Option<&str>,
    values: &BTreeMap<String, toml::Value>,
    mode: Mode,
) -> Result<Parser, String> {
    let path = path.ok_or(
        "parser = \"json\" needs path = a JMESPath expression to the verdict, e.g. path = \"verdict\"",
    )?;
    let mut mapped = BTreeMap::new();
    for (found, meaning) in values {
        let verdict = match (mode, meaning) {
            (Mode::Pairwise, toml::Value::String(name)) => verdict_from_name(name).ok_or_else(|| {
                format!("values: {found:?} = \"{name}\"; a value means \"response1\", \"response2\" or \"tie\"")
            })?,
            (Mode::Pointwise, toml::Value::Integer(g)) => *g,
            _ => {
                return Err(format!(
                    "values: {found:?} = {meaning}; pairwise values name \"response1\", \"response2\" or \"tie\", pointwise ones a whole grade"
                ))
            }
        };
        mapped.insert(found.clone(), verdict);
    }
    if mode == Mode::Pairwise && mapped.is_empty() {
        return Err("a pairwise parser = \"json\" needs values = { ... } mapping what the path finds to \"response1\", \"response2\" (and \"tie\")".into());
    }
    JsonParser::new(path, mapped).map(|p| Parser::Json(Arc::new(p)))
}

/// `[request]` as the JSON merged into each body; only its known fields.
pub(super) fn request(table: &toml::Value) -> Result<serde_json::Value, String> {
    let fields = table
        .as_table()
        .ok_or("[request] must be a table of request fields")?;
    for key in fields.keys() {
        if !["response_format", "tools", "tool_choice"].contains(&key.as_str()) {
            return Err(format!(
                "[request] {key}: a template may set response_format, tools and tool_choice"
            ));
        }
    }
    serde_json::to_value(fields).map_err(|e| format!("[request] is not valid JSON ({e})"))
}

/// The JSON reader's and the request's lines of a template written back as TOML.
pub(super) fn to_toml(parser: &Parser, request: Option<&serde_json::Value>) -> String {
    let mut out = String::new();
    if let Parser::Json(j) = parser {
        out.push_str(&format!("path = {:?}\n", j.path()));
        let values: Vec<String> = j
            .values()
            .iter()
            .map(|(k, v)| format!("{k:?} = {:?}", verdict_name(*v)))
            .collect();
        if !values.is_empty() {
            out.push_str(&format!("values = {{ {} }}\n", values.join(", ")));
        }
    }
    if let Some(request) = request {
        let table: toml::Value = serde_json::from_value(request.clone())
            .unwrap_or(toml::Value::Table(Default::default()));
        if let Ok(text) = toml::to_string(&toml::Value::Table(
            [("request".to_string(), table)].into_iter().collect(),
        )) {
            out.push('\n');
            out.push_str(&text);
        }
    }
    out
}
