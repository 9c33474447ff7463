//! Conversations (#44): HH-RLHF's public rows as transcripts and as message lists, equal to
//! the reference parse (`tests/fixtures/generate_hh_rlhf_fixtures.py`); a mock judge's
//! requests show every earlier turn once, in order, and the two final replies; malformed
//! rows are named.

use crate::common::{error_of, fixture, json_of, run, shared_data};
use crate::judge_cli::{completion, user_text};
use crate::mock_http::MockServer;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::path::Path;

/// `raterlab data export` of `data` (JSONL), its rows.
pub fn export(data: &Path, dir: &Path, name: &str, extra: &[&str]) -> Vec<Value> {
    let out = dir.join(format!("{name}.jsonl"));
    let mut args = vec![
        "data",
        "export",
        "--data",
        data.to_str().expect("utf-8"),
        "--out",
        out.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    std::fs::read_to_string(&out)
        .expect("export")
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// An exported item's turns before its prompt, as (role, text).
fn history(row: &Value) -> Vec<(String, String)> {
    let turns: Vec<Value> = row["turns"]
        .as_str()
        .map(|t| serde_json::from_str(t).expect("turns JSON"))
        .unwrap_or_default();
    turns
        .iter()
        .map(|t| {
            (
                t["role"].as_str().expect("role").to_string(),
                t["content"].as_str().expect("content").to_string(),
            )
        })
        .collect()
}

/// The exported item's (chosen, rejected) replies, by its gold label.
fn replies(row: &Value) -> (String, String) {
    let (r1, r2) = (
        row["response1"].as_str().expect("response1").to_string(),
        row["response2"].as_str().expect("response2").to_string(),
    );
    if row["gold"] == -1 {
        (r1, r2)
    } else {
        (r2, r1)
    }
}

/// The fixture's digest of an exported item.
fn digest(row: &Value) -> String {
    let (chosen, rejected) = replies(row);
    let mut parts: Vec<String> = history(row)
        .into_iter()
        .map(|(role, text)| format!("{role}\u{1}{text}"))
        .collect();
    parts.push(row["prompt"].as_str().expect("prompt").to_string());
    parts.extend([chosen, rejected]);
    hex(&Sha256::digest(parts.join("\0").as_bytes()))
}

/// An exported item as message lists: the turns both sides share (its last the prompt), and
/// the chosen and rejected replies.
fn turns_of(row: &Value) -> (Vec<Value>, String, String) {
    let message = |role: &str, content: &str| json!({"role": role, "content": content});
    let mut shared: Vec<Value> = history(row).iter().map(|(r, t)| message(r, t)).collect();
    shared.push(message("user", row["prompt"].as_str().expect("prompt")));
    let (chosen, rejected) = replies(row);
    (shared, chosen, rejected)
}

/// An exported item as a row of chosen and rejected message lists (no id, no subset).
pub fn message_lists(row: &Value) -> Value {
    let (shared, chosen, rejected) = turns_of(row);
    let side = |reply: &str| {
        let mut v = shared.clone();
        v.push(json!({"role": "assistant", "content": reply}));
        v
    };
    json!({"chosen": side(&chosen), "rejected": side(&rejected)})
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The 1,000 public rows load as transcripts, and as message lists made from them (both of
/// reward-bench's shapes: chosen/rejected lists, and a messages list before two replies):
/// every row's turns equal the reference parse.
#[test]
fn the_public_rows_load_as_transcripts_and_as_message_lists() {
    let Some(shared) = shared_data() else { return };
    let data = shared.join("hh-rlhf/harmless-base-test.jsonl");
    let dir = tempfile::tempdir().expect("tempdir");
    let reference: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("hh_rlhf.json")).expect("fixture"))
            .expect("json");
    // The reference rows in file order (the file has no id column: an item's id is its
    // content's, so rows are matched by their place).
    let want: Vec<(&str, u64)> = reference["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["digest"].as_str().expect("digest"),
                r["turns"].as_u64().expect("turns"),
            )
        })
        .collect();
    assert_eq!(want.len(), 1000);
    let check = |rows: &[Value], form: &str| {
        assert_eq!(rows.len(), 1000, "{form}");
        for (k, (row, &(d, turns))) in rows.iter().zip(&want).enumerate() {
            assert_eq!(history(row).len() as u64, turns, "{form}: row {}", k + 1);
            assert_eq!(
                digest(row),
                d,
                "{form}: row {} differs from the reference parse",
                k + 1
            );
        }
    };
    let transcripts = export(&data, dir.path(), "transcripts", &[]);
    check(&transcripts, "transcripts");
    // The same rows as message lists, in both shapes, without ids: the same items, by content.
    let (mut lists, mut before) = (String::new(), String::new());
    for row in &transcripts {
        lists.push_str(&format!("{}\n", message_lists(row)));
        let (shared, chosen, rejected) = turns_of(row);
        before.push_str(&format!(
            "{}\n",
            json!({"messages": shared, "chosen": chosen, "rejected": rejected})
        ));
    }
    for (name, text) in [("lists", lists), ("before", before)] {
        let path = dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&path, text).expect("write");
        let rows = export(&path, dir.path(), &format!("{name}-export"), &[]);
        check(&rows, name);
        // The same items, in the same order and positions.
        let key = |r: &Value| (r["id"].clone(), r["gold"].clone(), r["response1"].clone());
        assert!(
            rows.iter().map(key).eq(transcripts.iter().map(key)),
            "{name}"
        );
    }
    // data summary says what the form is and how deep the conversations run.
    let (code, out, err) = run(&["data", "summary", "--data", data.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(conversations: HH-RLHF transcripts"), "{out}");
    assert!(
        out.contains("conversations: 1 to 35 turns before the judged reply (median 3); 300 of 1000 items single-turn"),
        "{out}"
    );
}

/// A mock judge's requests: the conversation before the judged reply in the documented
/// layout, each earlier turn once and in order, then the two final replies; with
/// --both-orders only the final replies swap.
#[test]
fn a_judge_sees_every_earlier_turn_once_in_order() {
    let Some(shared) = shared_data() else { return };
    let data = shared.join("hh-rlhf/harmless-base-test.jsonl");
    let dir = tempfile::tempdir().expect("tempdir");
    let items = export(
        &data,
        dir.path(),
        "items",
        &["--limit", "12", "--both-orders"],
    );
    let server = MockServer::start(|_| completion("<winner>1</winner>"));
    let doc = json_of(&[
        "calibrate",
        "--data",
        data.to_str().expect("utf-8"),
        "--limit",
        "12",
        "--both-orders",
        "--endpoint",
        &server.url,
        "--model",
        "m",
        "--prompt",
        "simple_no_tie",
        "--no-cache",
        "--bootstrap",
        "0",
        "--json",
        "--out",
        dir.path().join("run").to_str().expect("utf-8"),
    ]);
    assert_eq!(doc["data"]["items"], 24);
    let sent: Vec<String> = server
        .requests
        .lock()
        .expect("log")
        .iter()
        .map(user_text)
        .collect();
    assert_eq!(sent.len(), 24);
    let mut multi = 0;
    for item in &items {
        let turns = history(item);
        let prompt = item["prompt"].as_str().expect("prompt");
        let mut layout = String::new();
        for (role, text) in &turns {
            let label = if role == "user" { "User" } else { "Assistant" };
            layout.push_str(&format!("### {label}:\n{text}\n\n"));
        }
        layout.push_str(&if turns.is_empty() {
            prompt.to_string()
        } else {
            format!("### User:\n{prompt}")
        });
        let (r1, r2) = (
            item["response1"].as_str().expect("r1"),
            item["response2"].as_str().expect("r2"),
        );
        let text = sent
            .iter()
            .find(|t| {
                t.contains(&layout)
                    && t.find(r1).zip(t.rfind(r2)).is_some_and(|(a, b)| a < b)
                    && t.find(r1)
                        .is_some_and(|a| t.find(&layout).is_some_and(|c| c < a))
            })
            .unwrap_or_else(|| panic!("no request shows item {} as laid out", item["id"]));
        assert_eq!(text.matches(&layout).count(), 1, "{}", item["id"]);
        for (_, t) in &turns {
            assert!(text.contains(t.as_str()));
        }
        multi += usize::from(!turns.is_empty());
    }
    assert!(
        multi >= 12,
        "both orders of several multi-turn items: {multi}"
    );
}

/// Broken conversations are named by file and row, with what is wrong; rows whose sides
/// differ before the last replies can be left out, and are then counted and named.
#[test]
fn malformed_conversations_are_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, rows: &[Value]| {
        let path = dir.path().join(name);
        let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
        std::fs::write(&path, text).expect("write");
        path
    };
    let t = |turns: &[(&str, &str)]| -> String {
        turns
            .iter()
            .map(|(who, text)| format!("\n\n{who}: {text}"))
            .collect()
    };
    let good = json!({"chosen": t(&[("Human", "hi"), ("Assistant", "a1"), ("Human", "q2"), ("Assistant", "good")]),
        "rejected": t(&[("Human", "hi"), ("Assistant", "a1"), ("Human", "q2"), ("Assistant", "bad")])});
    let unshared = json!({"chosen": t(&[("Human", "hi"), ("Assistant", "a1"), ("Human", "q2"), ("Assistant", "good")]),
        "rejected": t(&[("Human", "hi"), ("Assistant", "other"), ("Human", "q2"), ("Assistant", "bad")])});
    let open = json!({"chosen": t(&[("Human", "hi"), ("Assistant", "a"), ("Human", "q")]),
        "rejected": t(&[("Human", "hi"), ("Assistant", "a"), ("Human", "q")])});
    let empty = json!({"chosen": t(&[("Human", " "), ("Assistant", "a")]),
        "rejected": t(&[("Human", " "), ("Assistant", "b")])});
    let calibrate = |path: &Path, extra: &[&str]| {
        let mut args = vec![
            "calibrate",
            "--data",
            path.to_str().expect("utf-8"),
            "--judge",
            "sim",
            "--no-cache",
            "--bootstrap",
            "0",
        ];
        args.extend_from_slice(extra);
        args.iter().map(|s| s.to_string()).collect::<Vec<String>>()
    };
    let refs = |v: &[String]| -> Vec<String> { v.to_vec() };
    let error = |path: &Path| {
        let args = refs(&calibrate(path, &[]));
        error_of(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let path = write("unshared.jsonl", &[good.clone(), unshared.clone()]);
    let err = error(&path);
    assert!(
        err.contains("unshared.jsonl', row 2: ")
            && err.contains("differ before their last replies, at turn 2 (chosen: assistant \"a1\"; rejected: assistant \"other\")")
            && err.contains("--unshared skip"),
        "{err}"
    );
    // Left out on request: counted and named, never silently.
    let out_dir = dir.path().join("run");
    let mut args = calibrate(&path, &["--unshared", "skip", "--json"]);
    args.extend([
        "--out".to_string(),
        out_dir.to_str().expect("utf-8").to_string(),
    ]);
    let doc = json_of(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(doc["data"]["items"], 1);
    // A file without ids names the row (an item's id is its content's).
    assert_eq!(doc["data"]["unshared"], json!(["row 2"]));
    let run_json = std::fs::read_to_string(out_dir.join("run.json")).expect("run.json");
    assert!(
        run_json.contains("\"unshared\": [\n      \"row 2\"\n    ]"),
        "{run_json}"
    );
    let err = error(&write("open.jsonl", &[good.clone(), open]));
    assert!(
        err.contains("open.jsonl', row 2")
            && err.contains("ends with a user turn, not the assistant's reply to judge"),
        "{err}"
    );
    let err = error(&write("empty.jsonl", &[good.clone(), empty]));
    assert!(
        err.contains("row 2") && err.contains("turn 1 of the chosen conversation is empty"),
        "{err}"
    );
    // Message lists: an unknown role is named with its message.
    let roles = json!({"chosen": [{"role": "user", "content": "q"}, {"role": "narrator", "content": "x"}],
        "rejected": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "y"}]});
    let ok = json!({"chosen": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "x"}],
        "rejected": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "y"}]});
    let err = error(&write("roles.jsonl", &[ok, roles]));
    assert!(
        err.contains("roles.jsonl', column 'chosen', row 2, message 2: unknown role 'narrator'"),
        "{err}"
    );
}

/// report.html's item browser shows a conversation's turns under their speakers, in order,
/// before the question both replies answer; the search finds text of an earlier turn.
#[test]
fn the_item_browser_shows_the_conversation() {
    let Some(shared) = shared_data() else { return };
    let Some(browser) = crate::report_html::chromium() else {
        return;
    };
    let data = shared.join("hh-rlhf/harmless-base-test.jsonl");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let (code, _, err) = run(&[
        "calibrate",
        "--data",
        data.to_str().expect("utf-8"),
        "--limit",
        "10",
        "--judge",
        "sim",
        "--no-cache",
        "--bootstrap",
        "0",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    let items: Vec<Value> = std::fs::read_to_string(out.join("items.jsonl"))
        .expect("items")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let (k, item) = items
        .iter()
        .enumerate()
        .find(|(_, it)| it["turns"].as_array().is_some_and(|t| t.len() >= 2))
        .expect("a multi-turn item");
    let turns = item["turns"].as_array().expect("turns");
    let page = out.join("report.html");
    let escape = |t: &str| {
        t.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let id = item["id"].as_str().expect("id");
    let found = crate::report_html::dom(&browser, &page, &format!("#q={id}&item={k}"));
    let detail = &found[found.find(r#"<div id="detail""#).expect("detail panel")..];
    let mut at = 0;
    for t in turns {
        let speaker = if t["role"] == "user" {
            "User"
        } else {
            "Assistant"
        };
        let block = format!(
            "<h4 class=\"turn\">{speaker}</h4><pre class=\"turn\">{}</pre>",
            escape(t["content"].as_str().expect("content"))
        );
        let next = detail[at..]
            .find(&block)
            .unwrap_or_else(|| panic!("turn {block} in order in {detail}"));
        at += next + block.len();
    }
    assert!(detail[at..].starts_with("<h4>User (the question both replies answer)</h4>"));
    // The search reads the earlier turns too.
    let first_words: String = turns[0]["content"]
        .as_str()
        .expect("content")
        .split_whitespace()
        .take(4)
        .collect::<Vec<_>>()
        .join(" ");
    let searched = crate::report_html::dom(
        &browser,
        &page,
        &format!("#q={}", first_words.replace(' ', "%20")),
    );
    assert!(
        crate::report_html::shown(&searched).starts_with(|c: char| c.is_ascii_digit() && c != '0')
    );
}

/// FastChat's multi-turn judge and a jinja template of the user's loop over the turns; each
/// configuration is scored by conversation depth (`configs[i].by_depth`, metrics.csv's
/// `depth:` scopes), the buckets holding every item once.
#[test]
fn multi_turn_templates_and_scores_by_depth() {
    let Some(shared) = shared_data() else { return };
    let data = shared.join("hh-rlhf/harmless-base-test.jsonl");
    let dir = tempfile::tempdir().expect("tempdir");
    let jinja = dir.path().join("turns.toml");
    std::fs::write(
        &jinja,
        r#"name = "numbered-turns"
parser = "winner_tag"
engine = "jinja"
template = '''
{% for t in turns %}[{{ loop.index }}] {{ t.role }}: {{ t.content }}
{% endfor %}[last] user: {{ question }}
Response 1: {{ response1 }}
Response 2: {{ response2 }}
Answer <winner>1</winner> or <winner>2</winner>.'''
"#,
    )
    .expect("write");
    let server = MockServer::start(|r| {
        let text = user_text(r);
        completion(if text.contains("### Assistant A:") {
            "[[A]]"
        } else {
            "<winner>2</winner>"
        })
    });
    let out = dir.path().join("run");
    let doc = json_of(&[
        "calibrate",
        "--data",
        data.to_str().expect("utf-8"),
        "--limit",
        "40",
        "--endpoint",
        &server.url,
        "--model",
        "m",
        "--prompt",
        "mt-bench_pairwise_multi-turn",
        "--prompt",
        jinja.to_str().expect("utf-8"),
        "--no-cache",
        "--bootstrap",
        "50",
        "--json",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let requests: Vec<Value> = server
        .requests
        .lock()
        .expect("log")
        .iter()
        .map(|r| serde_json::from_slice(&r.body).expect("json"))
        .collect();
    assert_eq!(requests.len(), 80);
    let fastchat = requests
        .iter()
        .find(|b| {
            b["messages"][0]["content"].as_str().is_some_and(|s| {
                s.contains(
                    "You should focus on who provides a better answer to the second user question.",
                )
            })
        })
        .expect("FastChat's system prompt");
    assert!(fastchat["messages"][1]["content"]
        .as_str()
        .is_some_and(|u| u
            .starts_with("<|The Start of Assistant A's Conversation with User|>\n\n### User:\n")));
    let numbered = requests
        .iter()
        .filter_map(|b| b["messages"][0]["content"].as_str())
        .filter(|u| u.starts_with("[1] user: ") && u.contains("\n[2] assistant: "))
        .count();
    assert!(
        numbered >= 20,
        "the jinja template looped over the turns: {numbered}"
    );
    for c in doc["configs"].as_array().expect("configs") {
        let by_depth = c["by_depth"].as_object().expect("by_depth");
        let items: u64 = by_depth
            .values()
            .map(|s| s["counts"]["examples"].as_u64().expect("examples"))
            .sum();
        assert_eq!(items, 40, "{}", c["name"]);
        assert!(by_depth.contains_key("1") && by_depth.contains_key("2"));
    }
    let csv = std::fs::read_to_string(out.join("metrics.csv")).expect("metrics.csv");
    assert!(csv
        .lines()
        .any(|l| l.contains(",depth:2,") && l.contains(",accuracy,")));
    // A jinja template that does not render is refused when read, with the file named.
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "name = \"bad\"\nparser = \"winner_tag\"\nengine = \"jinja\"\ntemplate = '''{{ response1 }} {{ response2 }} {{ nothing_here }} <winner>'''\n").expect("write");
    let err = error_of(&[
        "calibrate",
        "--demo",
        "--prompt",
        bad.to_str().expect("utf-8"),
    ]);
    assert!(
        err.contains("bad.toml") && err.contains("does not render"),
        "{err}"
    );
}
