//! The labelling page asks for the labels that count (#66): `label --order pac` in a real
//! browser (a uniform first round, then the items at or above the threshold that `analyze
//! --pac` gives on the same labels, and the guarantee said once they are in), `--stop-at`
//! showing the corrected estimate as labels arrive (equal to `analyze --estimate`'s PPI++ on
//! the same labels), `--order active` asking exactly the items `plan --active` drew (its
//! estimate equal to `analyze --label-prob`'s once they are labelled), what decided each order
//! recorded in the store, and wrong input refused with exit 2.

use crate::common::{error_of, json_of, write};
use crate::label_page::{browser_here, driver, Browser, Server};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const MAP: &str = "id=id,prompt=question,response1=a,response2=b";

/// 60 pairs `k0..k59` whose responses say which is which, and a judge that says response 1
/// is better on every one, less sure the higher the index (distinct uncertainties).
fn data(dir: &Path) -> (PathBuf, PathBuf) {
    let (mut pairs, mut judge) = (
        String::from("id,question,a,b\n"),
        String::from("id,rating,uncertainty\n"),
    );
    for i in 0..60 {
        let _ = writeln!(pairs, "k{i},Question {i}?,R1 of k{i},R2 of k{i}");
        let _ = writeln!(judge, "k{i},-1,{}", f64::from(i) / 60.0);
    }
    (
        write(dir, "pairs.csv", &pairs),
        write(dir, "judge.csv", &judge),
    )
}

/// The person's label of item `k{i}`: response 1 better below 45, response 2 from 45 on (the
/// judge is wrong on the 15 it is least sure of).
fn truth(data_id: &str) -> i64 {
    let i: u32 = data_id[1..].parse().expect("k<i>");
    if i < 45 {
        -1
    } else {
        1
    }
}

/// The key that gives `label` when `first` is the text shown first.
fn key_for(label: i64, first: &str) -> &'static str {
    let r1_first = first.starts_with("R1");
    match (label, r1_first) {
        (-1, true) | (1, false) => "1",
        _ => "2",
    }
}

fn s(p: &Path) -> String {
    p.to_str().expect("utf-8").to_string()
}

/// The page's API with the server's token (the page's own script does the same).
struct Api<'a>(&'a Server, reqwest::blocking::Client);

impl<'a> Api<'a> {
    fn new(server: &'a Server) -> Self {
        Self(server, reqwest::blocking::Client::new())
    }

    fn state(&self) -> Value {
        self.1
            .get(format!("{}/api/state", self.0.base()))
            .bearer_auth(self.0.token())
            .send()
            .expect("state")
            .json()
            .expect("json")
    }

    /// Labels the item shown as `truth` says; the next state.
    fn label_shown(&self) -> Value {
        let st = self.state();
        let item = &st["item"];
        let want = truth(item["data_id"].as_str().expect("data id"));
        let key: u8 = key_for(want, item["first"].as_str().expect("first"))
            .parse()
            .expect("key");
        self.1
            .post(format!("{}/api/label", self.0.base()))
            .bearer_auth(self.0.token())
            .json(&json!({"item_id": item["id"], "key": key, "seconds": 1.0}))
            .send()
            .expect("label")
            .json()
            .expect("json")
    }
}

/// `raterlab label` on the 60 pairs and `store` for ann, with `extra`.
fn serve(pairs: &Path, store: &Path, extra: &[&str]) -> Server {
    let (pairs, store) = (s(pairs), s(store));
    let mut args = vec![
        "--data",
        &pairs,
        "--map",
        MAP,
        "--store",
        &store,
        "--annotator",
        "ann",
    ];
    args.extend(extra);
    Server::with(&args)
}

/// Presses the key that gives the item shown its true label; the item's data id.
fn label_truly(page: &Browser) -> String {
    let data_id = page
        .until("return document.body.dataset.dataId")
        .as_str()
        .expect("id")
        .to_string();
    let first = page.js("return document.getElementById('first').textContent");
    page.label(key_for(truth(&data_id), first.as_str().expect("text")));
    data_id
}

fn store_rows(store: &Path, sql: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(store).expect("store");
    let mut stmt = conn.prepare(sql).expect("sql");
    stmt.query_map([], |r| r.get::<_, String>(0))
        .expect("rows")
        .collect::<Result<Vec<_>, _>>()
        .expect("rows")
}

#[test]
fn pac_order_in_the_browser_asks_the_first_round_then_the_threshold_items() {
    let Some((chromium, chromedriver)) = browser_here() else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let (pairs, judge) = data(dir.path());
    let store = dir.path().join("labels.sqlite");
    let args = [
        "--data",
        &s(&pairs),
        "--map",
        MAP,
        "--store",
        &s(&store),
        "--annotator",
        "ann",
        "--seed",
        "7",
        "--order",
        "pac",
        "--judge",
        &s(&judge),
        "--uncertainty-col",
        "uncertainty",
        "--first-round",
        "20",
        "--epsilon",
        "0.1",
        "--alpha",
        "0.1",
        "--pac-bound",
        "clt",
        "--stop-at",
        "0.45",
    ];
    let server = Server::with(&args);
    let wd = driver(&chromedriver);
    let page = Browser::new(&wd.1, &chromium, &dir.path().join("p"));
    page.open(&server.url);
    page.shown();
    let stage = || {
        page.js("return document.getElementById('estimate-stage').textContent")
            .as_str()
            .expect("stage")
            .to_string()
    };
    assert_eq!(stage(), "PAC labelling: round 1 of 2:");
    assert!(page
        .js("return document.getElementById('progress').textContent")
        .as_str()
        .expect("progress")
        .contains("left of 20"));

    // Round 1: 20 items, labelled by key as the person judges them.
    let mut first_round = Vec::new();
    let mut saw_interval = false;
    let mut enough_at = None;
    while stage() == "PAC labelling: round 1 of 2:" {
        let data_id = label_truly(&page);
        first_round.push(data_id);
        let shown = page.js("return [document.getElementById('estimate-track').hidden, document.body.dataset.enough, document.getElementById('estimate-text').textContent]");
        if shown[0] == json!(false) {
            saw_interval = true;
        }
        // The estimate narrows, but PAC's labels need both rounds: never "enough" in round 1.
        assert_eq!(shown[1], json!("false"), "{shown}");
        let text = shown[2].as_str().expect("text");
        if text.contains("narrow enough for the estimate (≤ 0.45)") && enough_at.is_none() {
            enough_at = Some(first_round.len());
            assert!(text.contains("the PAC labels need both rounds"), "{shown}");
            // The page stays usable: an item is shown.
            assert_ne!(page.js("return document.body.dataset.item"), json!(""));
            if let Some(dir) = std::env::var_os("CI_ARTIFACTS") {
                let _ = std::fs::create_dir_all(&dir);
                let _ =
                    std::fs::write(Path::new(&dir).join("label-stop-at.png"), page.screenshot());
            }
        }
        assert!(first_round.len() <= 20, "round 1 is 20 items");
    }
    assert_eq!(first_round.len(), 20);
    assert!(saw_interval, "the interval was drawn as labels arrived");
    assert!(
        enough_at.is_some_and(|n| n >= 10),
        "--stop-at 0.45 said enough: {enough_at:?}"
    );

    // The threshold is analyze --pac's on the same first round.
    let mut csv = String::from("id,gold,rating,uncertainty\n");
    let labelled: HashSet<&str> = first_round.iter().map(String::as_str).collect();
    for i in 0..60 {
        let id = format!("k{i}");
        let gold = if labelled.contains(id.as_str()) {
            truth(&id).to_string()
        } else {
            String::new()
        };
        let _ = writeln!(csv, "{id},{gold},-1,{}", f64::from(i) / 60.0);
    }
    let file = write(dir.path(), "first-round.csv", &csv);
    let reference = json_of(&[
        "analyze",
        "--input",
        &s(&file),
        "--gold-col",
        "gold",
        "--rating-col",
        "rating",
        "--uncertainty-col",
        "uncertainty",
        "--pac",
        "--epsilon",
        "0.1",
        "--alpha",
        "0.1",
        "--pac-bound",
        "clt",
    ]);
    let want: HashSet<String> = reference["pac"]["to_label"]
        .as_array()
        .expect("to_label")
        .iter()
        .map(|v| v.as_str().expect("id").to_string())
        .collect();
    assert!(!want.is_empty() && want.len() < 40, "{want:?}");
    let threshold = reference["pac"]["threshold"].as_f64().expect("threshold");
    assert!(page
        .js("return document.getElementById('estimate-text').textContent")
        .as_str()
        .expect("text")
        .contains(&format!("uncertainty ≥ {threshold}")));

    // Round 2: exactly those items, then the guarantee.
    let mut second = HashSet::new();
    while page.js("return document.getElementById('done').hidden") == json!(true) {
        let data_id = label_truly(&page);
        assert!(second.insert(data_id), "asked once");
        assert!(second.len() <= want.len(), "no item beyond the threshold's");
    }
    assert_eq!(second, want);
    let last = page.js("return [document.body.dataset.enough, document.getElementById('estimate-text').textContent, document.getElementById('estimate').className]");
    assert_eq!(last[0], json!("true"), "{last}");
    assert!(
        last[1]
            .as_str()
            .expect("text")
            .starts_with("The PAC guarantee holds"),
        "{last}"
    );
    assert_eq!(last[2], json!("estimate enough"));
    if let Some(dir) = std::env::var_os("CI_ARTIFACTS") {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(Path::new(&dir).join("label-pac.png"), page.screenshot());
    }
    drop(server);

    // The store says what decided the order, and the threshold decided once.
    let sessions = store_rows(&store, "SELECT item_order FROM sessions");
    let order: Value = serde_json::from_str(&sessions[0]).expect("json");
    assert_eq!(order["order"], "pac");
    assert_eq!(order["seed"], 7);
    assert_eq!(order["pac"]["first_round"], 20);
    let decisions = store_rows(
        &store,
        "SELECT detail FROM decisions WHERE kind = 'pac-threshold'",
    );
    assert_eq!(decisions.len(), 1);
    let d: Value = serde_json::from_str(&decisions[0]).expect("json");
    assert_eq!(d["threshold"].as_f64(), Some(threshold));
    // A restart reads that decision: straight to round 2, nothing left to ask.
    let again = Server::with(&args);
    let st = Api::new(&again).state();
    assert_eq!(st["status"]["stage"], "PAC labelling: round 2 of 2");
    assert!(st["item"].is_null());
    assert_eq!(st["status"]["enough"], json!(true));
    drop(again);

    // Random order with --stop-at: the page turns green when the interval is narrow enough,
    // and goes on asking.
    let other = dir.path().join("random.sqlite");
    let random = serve(&pairs, &other, &["--judge", &s(&judge), "--stop-at", "0.4"]);
    page.open(&random.url);
    page.shown();
    let mut n = 0;
    while page.js("return document.body.dataset.enough") != json!("true") {
        label_truly(&page);
        n += 1;
        assert!(
            n < 60,
            "an interval 0.4 wide comes before every item is labelled"
        );
    }
    assert!(n >= 10, "not before 10 labels: {n}");
    let text = page.js("return document.getElementById('estimate-text').textContent");
    assert!(
        text.as_str()
            .expect("text")
            .contains("narrow enough (≤ 0.4): you may stop"),
        "{text}"
    );
    assert_eq!(
        page.js("return document.getElementById('estimate').className"),
        json!("estimate enough")
    );
    let (next, _) = page.shown();
    assert!(!next.is_empty(), "the page stays usable");
    page.label("1");
}

#[test]
fn stop_at_shows_analyzes_ppi_plus_and_active_asks_what_plan_drew() {
    let dir = tempfile::tempdir().expect("dir");
    let (pairs, judge) = data(dir.path());

    // Random order with --stop-at: the page's interval is analyze's PPI++ on the same labels.
    let store = dir.path().join("random.sqlite");
    let server = serve(&pairs, &store, &["--judge", &s(&judge), "--stop-at", "0.3"]);
    let api = Api::new(&server);
    let first = api.state();
    assert!(first["status"]["text"]
        .as_str()
        .expect("text")
        .contains("no estimate before 10 labels"));
    let mut labelled = Vec::new();
    let mut st = first;
    for _ in 0..25 {
        labelled.push(st["item"]["data_id"].as_str().expect("id").to_string());
        st = api.label_shown();
    }
    let interval: Vec<f64> = st["status"]["interval"]
        .as_array()
        .expect("interval")
        .iter()
        .map(|v| v.as_f64().expect("number"))
        .collect();
    let mut csv = String::from("id,gold,rating\n");
    let done: HashSet<&str> = labelled.iter().map(String::as_str).collect();
    for i in 0..60 {
        let id = format!("k{i}");
        let gold = if done.contains(id.as_str()) {
            truth(&id).to_string()
        } else {
            String::new()
        };
        let _ = writeln!(csv, "{id},{gold},-1");
    }
    let file = write(dir.path(), "random.csv", &csv);
    let e = json_of(&[
        "analyze",
        "--input",
        &s(&file),
        "--gold-col",
        "gold",
        "--rating-col",
        "rating",
        "--estimate",
    ]);
    let plus = &e["estimate"]["mean"]["ppi_plus"];
    for (k, want) in [
        plus["estimate"].clone(),
        plus["ci"][0].clone(),
        plus["ci"][1].clone(),
    ]
    .iter()
    .enumerate()
    {
        let want = want.as_f64().expect("number");
        assert!(
            (interval[k] - want).abs() < 1e-12,
            "{k}: {} vs {want}",
            interval[k]
        );
    }
    let width = interval[2] - interval[1];
    assert_eq!(
        st["status"]["enough"],
        json!(width <= 0.3 && width > 0.0),
        "{st}"
    );
    drop(server);

    // Active order: the items plan --active drew, and at the end analyze's active estimate.
    let mut input = String::from("id,p\n");
    let mut pilot = String::from("id,gold,p\n");
    let mut p_of = HashMap::new();
    for i in 0..60 {
        let p = if i < 30 {
            0.95
        } else if i < 45 {
            0.6
        } else {
            0.45
        };
        let p = p + f64::from(i % 3) / 100.0;
        p_of.insert(format!("k{i}"), p);
        let _ = writeln!(input, "k{i},{p}");
        let _ = writeln!(pilot, "k{i},{},{p}", truth(&format!("k{i}")));
    }
    let input = write(dir.path(), "input.csv", &input);
    let pilot = write(dir.path(), "pilot.csv", &pilot);
    let queue = dir.path().join("queue.csv");
    let plan = json_of(&[
        "plan",
        "--active",
        "--input",
        &s(&input),
        "--probability",
        "p",
        "--budget",
        "0.3",
        "--pilot",
        &s(&pilot),
        "--seed",
        "5",
        "--out",
        &s(&queue),
    ]);
    let drawn: HashSet<String> = plan["active"]["label_prob"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| i["drawn"] == json!(true))
        .map(|i| i["id"].as_str().expect("id").to_string())
        .collect();
    assert!(drawn.len() >= 10, "{} drawn", drawn.len());
    let store = dir.path().join("active.sqlite");
    let server = serve(
        &pairs,
        &store,
        &[
            "--order",
            "active",
            "--queue",
            &s(&queue),
            "--stop-at",
            "0.9",
        ],
    );
    let api = Api::new(&server);
    let mut st = api.state();
    let mut asked = HashSet::new();
    while !st["item"].is_null() {
        asked.insert(st["item"]["data_id"].as_str().expect("id").to_string());
        st = api.label_shown();
        assert!(asked.len() <= drawn.len());
    }
    assert_eq!(asked, drawn, "exactly the drawn items");
    let text = st["status"]["text"].as_str().expect("text");
    assert!(text.contains("every drawn item labelled"), "{text}");
    let pi: HashMap<String, f64> = plan["active"]["label_prob"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| {
            (
                i["id"].as_str().expect("id").to_string(),
                i["label_prob"].as_f64().expect("π"),
            )
        })
        .collect();
    let mut csv = String::from("id,gold,p,label_prob\n");
    for i in 0..60 {
        let id = format!("k{i}");
        let gold = if drawn.contains(&id) {
            truth(&id).to_string()
        } else {
            String::new()
        };
        let _ = writeln!(csv, "{id},{gold},{},{}", p_of[&id], pi[&id]);
    }
    let file = write(dir.path(), "active.csv", &csv);
    let e = json_of(&[
        "analyze",
        "--input",
        &s(&file),
        "--gold-col",
        "gold",
        "--rating-col",
        "p",
        "--estimate",
        "--estimate-label",
        "1",
        "--label-prob",
        "label_prob",
    ]);
    let a = &e["estimate"]["mean"]["active"];
    let got = &st["status"]["interval"];
    for (k, want) in [
        a["estimate"].clone(),
        a["ci"][0].clone(),
        a["ci"][1].clone(),
    ]
    .iter()
    .enumerate()
    {
        let (g, w) = (
            got[k].as_f64().expect("ours"),
            want.as_f64().expect("analyze's"),
        );
        assert!((g - w).abs() < 1e-12, "{k}: {g} vs {w}");
    }
    drop(server);
    let sessions = store_rows(&store, "SELECT item_order FROM sessions");
    let order: Value = serde_json::from_str(&sessions[0]).expect("json");
    assert_eq!(order["order"], "active");
    assert_eq!(
        order["label_prob"].as_object().expect("π per item").len(),
        60
    );
}

#[test]
fn wrong_orders_are_exit_2_with_the_fix() {
    let dir = tempfile::tempdir().expect("dir");
    let (pairs, judge) = data(dir.path());
    let store = s(&dir.path().join("x.sqlite"));
    let short = write(
        dir.path(),
        "short.csv",
        "id,rating,uncertainty\nk0,-1,0.1\n",
    );
    let stray = write(dir.path(), "stray.csv", "id\nk0\nnope\n");
    let base = |extra: &[&str]| {
        let mut v: Vec<String> = [
            "label",
            "--port",
            "0",
            "--data",
            &s(&pairs),
            "--map",
            MAP,
            "--store",
            &store,
            "--annotator",
            "ann",
        ]
        .iter()
        .map(|a| a.to_string())
        .collect();
        v.extend(extra.iter().map(|a| a.to_string()));
        v
    };
    for (extra, says) in [
        (
            vec!["--order", "pac"],
            "--order pac needs the judge's labels and uncertainty",
        ),
        (vec!["--order", "active"], "give --queue FILE"),
        (vec!["--stop-at", "0.1"], "give --judge FILE"),
        (
            vec!["--stop-at", "1.5", "--judge", &s(&judge)],
            "--stop-at 1.5",
        ),
        (
            vec!["--judge", &s(&short), "--stop-at", "0.1"],
            "no row for 59 of the 60 items",
        ),
        (
            vec!["--queue", &s(&stray)],
            "id 'nope' is not among the data's items",
        ),
        (
            vec!["--order", "active", "--queue", &s(&stray)],
            "id 'nope'",
        ),
        (
            vec![
                "--order",
                "pac",
                "--judge",
                &s(&judge),
                "--uncertainty-col",
                "uncertainty",
                "--first-round",
                "0",
            ],
            "--first-round 0",
        ),
    ] {
        let args = base(&extra);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let err = error_of(&refs);
        assert!(err.contains(says), "{extra:?}: {err}");
    }
    let queue_without_pi = write(dir.path(), "q.csv", "id,drawn\nk0,true\n");
    let args = base(&["--order", "active", "--queue", &s(&queue_without_pi)]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    assert!(error_of(&refs).contains("no column 'p'"));
}
