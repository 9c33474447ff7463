//! Output of `raterlab prompts`.

use crate::prompts::{to_toml, Template};
use crate::report::media::table;
use crate::verdicts::Parser;
use anyhow::Result;
use std::io::Write;

/// The built-ins and the parsers, each table fitted to the terminal (cells wrap).
pub fn list(templates: &[Template]) -> Result<()> {
    let mut w = crate::report::media::term::stdout();
    let mut t = table::Table::new("", &["prompt", "parser", "ties", "description"]);
    t.numeric = false;
    for tpl in templates {
        t.rows.push(vec![
            tpl.name.clone(),
            tpl.parser.name().to_string(),
            tpl.allows_tie.to_string(),
            tpl.description.clone(),
        ]);
    }
    writeln!(w, "{}\n", table::render(&t))?;
    let mut p = table::Table::new("", &["parser", "ties", "reads, e.g."]);
    p.numeric = false;
    let published = crate::verdicts::Published::ALL.map(Parser::Published);
    for parser in Parser::ALL
        .iter()
        .chain(published.iter().filter(|p| p.reads_verdicts()))
    {
        p.rows.push(vec![
            parser.name().to_string(),
            parser.allows_tie().to_string(),
            parser.render(-1).replace('\n', "\\n"),
        ]);
    }
    p.rows.push(vec![
        "regex".to_string(),
        "if a tie pattern".to_string(),
        "a TOML template's own [[patterns]] (see examples/prompts/llmbar-cot.toml)".to_string(),
    ]);
    writeln!(w, "{}", table::render(&p))?;
    Ok(())
}

pub fn show(template: &Template, as_toml: bool) -> Result<()> {
    let mut w = crate::report::media::term::stdout();
    if as_toml {
        if let Some(source) = &template.source {
            writeln!(
                w,
                "# copied from {}, {} ({}):\n#   github.com/{}/blob/{}/{}",
                source.repo, source.entry, source.licence, source.repo, source.commit, source.path
            )?;
        }
        write!(w, "{}", to_toml(template))?;
        return Ok(());
    }
    writeln!(
        w,
        "# {} (parser {}, ties {})",
        template.name,
        template.parser,
        if template.allows_tie {
            "allowed"
        } else {
            "not allowed"
        }
    )?;
    match &template.source {
        Some(source) => writeln!(
            w,
            "# sent byte for byte as published by {} ({}):\n#   {}\n#   github.com/{}/blob/{}/{}",
            source.repo, source.licence, source.entry, source.repo, source.commit, source.path
        )?,
        None if template.name.ends_with(".toml") || !is_builtin(&template.name) => {}
        None => writeln!(w, "# raterlab's wording")?,
    }
    if let Some(system) = &template.system {
        writeln!(w, "\n## system\n{system}")?;
    }
    writeln!(w, "\n## user\n{}", template.text)?;
    Ok(())
}

fn is_builtin(name: &str) -> bool {
    crate::prompts::builtins().iter().any(|t| t.name == name)
}
