//! `raterlab label` end to end in a real browser: Debian's Chromium driven through WebDriver
//! (`chromedriver`) by key presses, as a person labels. Two annotators label at once on two
//! servers over one store; one server is killed with SIGKILL mid-way and restarted; the
//! labels are exported and checked against the keys pressed (nothing lost, nothing doubled),
//! hostile texts stay text, and `calibrate --labels` reads the result. The server's refusals
//! (no token, wrong token, malformed or unknown writes) are checked over plain HTTP, with the
//! store unchanged after each.
//!
//! Skipped with a notice when no Chromium or chromedriver is installed; with
//! `RATERLAB_REQUIRE_CHROMIUM=1` (set by .ci/run, which installs both) their absence fails it.
//! `$CI_ARTIFACTS`, when set, receives the page's screenshot.

use crate::common::{missing, run, write};
use base64::Engine;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `raterlab label` server: its process and the address it printed.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) url: String,
}

impl Server {
    fn start(data: &Path, store: &Path, annotator: &str, extra: &[&str]) -> Self {
        let (d, st) = (
            data.to_str().expect("utf-8"),
            store.to_str().expect("utf-8"),
        );
        let mut args = vec![
            "--data",
            d,
            "--map",
            "prompt=question,response1=a,response2=b",
            "--store",
            st,
            "--annotator",
            annotator,
            "--seed",
            "7",
        ];
        args.extend(extra);
        Self::with(&args)
    }

    /// `raterlab label --port 0 ARGS...`, once it has printed its address.
    pub(crate) fn with(args: &[&str]) -> Self {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("raterlab"))
            .args(["label", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("raterlab label starts");
        let mut first = String::new();
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        out.read_line(&mut first).expect("first line");
        // The rest is read as it comes, so the server never writes to a closed pipe.
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        let url = first
            .trim()
            .strip_prefix("raterlab label: ")
            .unwrap_or_else(|| panic!("first line names the address: {first:?}"))
            .to_string();
        assert!(
            url.starts_with("http://127.0.0.1:") && url.contains("/?token="),
            "{url}"
        );
        Self { child, url }
    }

    pub(crate) fn base(&self) -> &str {
        &self.url[..self.url.find("/?").expect("path")]
    }

    pub(crate) fn token(&self) -> &str {
        &self.url[self.url.find("token=").expect("token") + 6..]
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A WebDriver session on headless Chromium (W3C protocol over chromedriver's HTTP).
pub(crate) struct Browser {
    http: reqwest::blocking::Client,
    driver: String,
    session: String,
}

impl Browser {
    pub(crate) fn new(driver: &str, chromium: &Path, profile: &Path) -> Self {
        let http = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .expect("client");
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium.to_string_lossy(),
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                         "--no-first-run", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                         "--window-size=1300,900",
                         format!("--user-data-dir={}", profile.display())]
            }
        }}});
        let r: Value = http
            .post(format!("{driver}/session"))
            .json(&caps)
            .send()
            .expect("new session")
            .json()
            .expect("json");
        let session = r["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("a session: {r}"))
            .to_string();
        Self {
            http,
            driver: driver.to_string(),
            session,
        }
    }

    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("{}/session/{}{path}", self.driver, self.session);
        let req = match method {
            "GET" => self.http.get(url),
            _ => self.http.post(url).json(&body),
        };
        let r: Value = req.send().expect("webdriver").json().expect("json");
        assert!(
            r["value"].get("error").is_none(),
            "webdriver {path}: {}",
            r["value"]
        );
        r["value"].clone()
    }

    pub(crate) fn open(&self, url: &str) {
        self.call("POST", "/url", json!({ "url": url }));
    }

    pub(crate) fn js(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            json!({"script": script, "args": []}),
        )
    }

    pub(crate) fn key(&self, key: &str) {
        self.call(
            "POST",
            "/actions",
            json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
                {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]}]}),
        );
    }

    /// Waits (up to 20 s) until `script` returns something truthy; returns it.
    pub(crate) fn until(&self, script: &str) -> Value {
        let start = Instant::now();
        loop {
            let v = self.js(script);
            if !(v.is_null() || v == json!(false) || v == json!("")) {
                return v;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "the page never showed: {script}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The item shown and the labels saved, once the page has loaded one.
    pub(crate) fn shown(&self) -> (String, u64) {
        let v = self.until(
            "return document.body.dataset.labelled !== undefined && [document.body.dataset.item, Number(document.body.dataset.labelled)]",
        );
        (
            v[0].as_str().expect("item").to_string(),
            v[1].as_u64().expect("count"),
        )
    }

    /// Presses a label key on the item shown; waits for the next item. Returns the item.
    pub(crate) fn label(&self, key: &str) -> String {
        let (item, n) = self.shown();
        self.key(key);
        self.until(&format!(
            "return Number(document.body.dataset.labelled) === {}",
            n + 1
        ));
        item
    }

    pub(crate) fn screenshot(&self) -> Vec<u8> {
        let b64 = self.call("GET", "/screenshot", Value::Null);
        base64::engine::general_purpose::STANDARD
            .decode(b64.as_str().expect("base64"))
            .expect("png")
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self
            .http
            .delete(format!("{}/session/{}", self.driver, self.session))
            .send();
    }
}

pub(crate) fn find(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| names.iter().map(move |n| d.join(n)))
        .find(|p| p.is_file())
}

/// Chromium and chromedriver, or None after the skip notice (a failure where
/// `RATERLAB_REQUIRE_CHROMIUM` is set).
pub(crate) fn browser_here() -> Option<(PathBuf, PathBuf)> {
    let found =
        find(&["chromium", "chromium-browser", "google-chrome"]).zip(find(&["chromedriver"]));
    if found.is_none() {
        missing(
            "RATERLAB_REQUIRE_CHROMIUM",
            "no chromium and chromedriver are installed (apt-get install chromium chromium-driver)",
        );
    }
    found
}

/// chromedriver on a free loopback port, stopped on drop.
pub(crate) struct Driver(Child, pub(crate) String);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub(crate) fn driver(path: &Path) -> Driver {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a free port")
        .local_addr()
        .expect("addr")
        .port();
    let child = Command::new(path)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let url = format!("http://127.0.0.1:{port}");
    let start = Instant::now();
    while reqwest::blocking::get(format!("{url}/status")).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "chromedriver did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Driver(child, url)
}

/// 30 pairs without gold; the texts carry markup that must stay text, and markdown.
fn data(dir: &Path) -> PathBuf {
    let mut csv = String::from("question,a,b\n");
    for i in 0..30 {
        csv.push_str(&format!(
            "\"Q{i}: <script>window.pwned = 'script'</script> what is {i}+{i}?\",\"It is **{}**.\n```python\nprint({i} + {i})\n```\",\"<img src=x onerror=\"\"window.pwned = 'img'\"\"> about {}\"\n",
            2 * i,
            2 * i + 1
        ));
    }
    write(dir, "pairs.csv", &csv)
}

/// The label in the data's order of a key pressed with `shown_first` first.
fn label_of(key: &str, shown_first: &str) -> i64 {
    let first_better = if shown_first == "response1" { -1 } else { 1 };
    match key {
        "1" => first_better,
        "2" => -first_better,
        _ => 0,
    }
}

fn read_csv(path: &Path) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).expect("export");
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .expect("header")
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

#[test]
#[allow(clippy::print_stderr)] // the measured times, for the log
fn two_people_label_through_a_kill_and_nothing_is_lost_or_doubled() {
    let Some((chromium, chromedriver)) = browser_here() else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let data = data(dir.path());
    let store = dir.path().join("labels.sqlite");
    let guidelines = write(
        dir.path(),
        "guide.md",
        "# How to label\n- prefer the **correct** answer\n- `0` when both are wrong\n",
    );
    let guide = guidelines.to_string_lossy().into_owned();
    let wd = driver(&chromedriver);
    let ann_browser = Browser::new(&wd.1, &chromium, &dir.path().join("p1"));
    let bob_browser = Browser::new(&wd.1, &chromium, &dir.path().join("p2"));

    let mut ann = Server::start(&data, &store, "ann", &["--guidelines", &guide]);
    let bob = Server::start(&data, &store, "bob", &[]);
    ann_browser.open(&ann.url);
    bob_browser.open(&bob.url);

    // The guidelines come first, rendered as elements; hostile text stays text.
    ann_browser.shown();
    let guide_html = ann_browser.js("return document.getElementById('guidelines').hidden === false && document.getElementById('guidelines-text').querySelectorAll('h3, li, strong, code').length");
    assert_eq!(guide_html, json!(5), "heading, two items, bold, code");
    let hostile = ann_browser.js(
        "return [window.pwned === undefined, document.querySelectorAll('main img, main script').length, \
         document.getElementById('prompt').textContent.includes('<script>'), \
         (document.getElementById('first').textContent + document.getElementById('second').textContent).includes('<img src=x'), \
         document.querySelectorAll('#first pre code, #second pre code').length, \
         document.querySelectorAll('#first strong, #second strong').length]",
    );
    assert_eq!(hostile, json!([true, 0, true, true, 1, 1]), "{hostile}");
    if let Some(dir) = std::env::var_os("CI_ARTIFACTS") {
        let png = ann_browser.screenshot();
        assert!(
            png.len() > 10_000,
            "a page, not a blank: {} bytes",
            png.len()
        );
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(Path::new(&dir).join("label-page.png"), &png);
    }

    // Both label at once: ann five items, bob three, by turns.
    let mut pressed: HashMap<(String, String), String> = HashMap::new();
    let ann_keys = ["1", "2", "0", "1", "2"];
    for (k, key) in ann_keys.iter().enumerate() {
        let item = ann_browser.label(key);
        pressed.insert(("ann".into(), item), key.to_string());
        if k < 3 {
            let key = ["2", "2", "1"][k];
            let item = bob_browser.label(key);
            pressed.insert(("bob".into(), item), key.to_string());
        }
    }
    // After the first label the guidelines are one key away.
    assert_eq!(
        ann_browser.js("return document.getElementById('guidelines').hidden"),
        json!(true)
    );
    ann_browser.key("g");
    assert_eq!(
        ann_browser.js("return document.getElementById('guidelines').hidden"),
        json!(false)
    );
    ann_browser.key("g");

    // Undo the last: the page shows that item again, and it is labelled anew.
    let last = ann_browser
        .js("return document.body.dataset.item")
        .as_str()
        .map(str::to_string);
    let (_, before) = ann_browser.shown();
    ann_browser.key("u");
    ann_browser.until(&format!(
        "return Number(document.body.dataset.labelled) === {}",
        before - 1
    ));
    let (again, _) = ann_browser.shown();
    let undone_key = pressed
        .remove(&("ann".into(), again.clone()))
        .expect("the undone item is the last labelled");
    assert_ne!(Some(again.clone()), last);
    assert_eq!(undone_key, "2");
    let relabelled = ann_browser.label("0");
    assert_eq!(relabelled, again);
    pressed.insert(("ann".into(), relabelled), "0".into());

    // SIGKILL mid-way, a restart on the same store: it resumes at an unlabelled item.
    ann.child.kill().expect("SIGKILL");
    ann.child.wait().expect("dead");
    let ann2 = Server::start(&data, &store, "ann", &[]);
    ann_browser.open(&ann2.url);
    let (resumed, labelled) = ann_browser.shown();
    assert_eq!(labelled, 5, "every acknowledged label survived the kill");
    assert!(!pressed.contains_key(&("ann".into(), resumed)));
    // Ann finishes (a skip on the way comes back at the end).
    ann_browser.key("s");
    ann_browser.until("return document.getElementById('status').textContent.startsWith('skipped')");
    let mut k = 0;
    while ann_browser.js("return document.getElementById('done').hidden") == json!(true) {
        let key = ["2", "1", "0"][k % 3];
        let item = ann_browser.label(key);
        assert!(
            pressed
                .insert(("ann".into(), item.clone()), key.into())
                .is_none(),
            "{item} shown twice"
        );
        k += 1;
        assert!(k <= 30, "the queue ends");
    }
    let timings = ann_browser.js("return window.raterlabTimings");
    let mut ms: Vec<f64> = timings
        .as_array()
        .expect("timings")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    ms.sort_by(f64::total_cmp);
    eprintln!("key press → next item shown (ms, sorted): {ms:?}");
    assert!(ms.len() >= 7, "{ms:?}");
    let median = ms[ms.len() / 2];
    assert!(
        median < 100.0,
        "the next item within 100 ms of the key: median {median} ms"
    );
    drop(ann2);
    drop(bob);

    // The export: each (annotator, item) once, its label the key pressed in the data's order.
    let out = dir.path().join("labels.csv");
    let (code, stdout, err) = run(&[
        "labels",
        "export",
        "--store",
        store.to_str().expect("utf-8"),
        "--format",
        "csv",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("wrote 33 labels"), "{stdout}");
    let rows = read_csv(&out);
    assert_eq!(rows.len(), 33, "30 by ann, 3 by bob");
    assert_eq!(rows.len(), pressed.len());
    for r in &rows {
        let key = &pressed[&(r["annotator"].clone(), r["item_id"].clone())];
        assert_eq!(
            r["label"].parse::<i64>().expect("label"),
            label_of(key, &r["shown_first"]),
            "{r:?}"
        );
        assert!(r["labelled_at"].ends_with('Z'), "{r:?}");
    }
    let history = dir.path().join("events.jsonl");
    let (code, _, err) = run(&[
        "labels",
        "export",
        "--store",
        store.to_str().expect("utf-8"),
        "--format",
        "jsonl",
        "--out",
        history.to_str().expect("utf-8"),
        "--history",
    ]);
    assert_eq!(code, 0, "{err}");
    let events: Vec<Value> = std::fs::read_to_string(&history)
        .expect("history")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    let (code, stats, err) = run(&["labels", "stats", "--store", store.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    for line in [
        "raterlab labels: 33 labels of 30 items by 2 annotators",
        "3 items labelled by two or more",
        "Pairwise Cohen's kappa between annotators",
    ] {
        assert!(stats.contains(line), "{line}: {stats}");
    }
    let kinds = |k: &str| events.iter().filter(|e| e["kind"] == k).count();
    assert_eq!((kinds("label"), kinds("undo"), kinds("skip")), (34, 1, 1));

    // calibrate reads the store's gold: 30 items, 3 of them with two annotators (contested
    // where the two differ), the rest with ann's label.
    let run_dir = dir.path().join("run");
    let (d, st, rd) = (
        data.to_str().expect("utf-8"),
        store.to_str().expect("utf-8"),
        run_dir.to_str().expect("utf-8"),
    );
    let calibrate = |extra: &[&str]| {
        let mut args = vec![
            "calibrate",
            "--judge",
            "sim",
            "--data",
            d,
            "--seed",
            "7",
            "--map",
            "prompt=question,response1=a,response2=b",
            "--labels",
            st,
            "--out",
            rd,
        ];
        args.extend(extra);
        run(&args)
    };
    let (code, stdout, err) = calibrate(&[]);
    assert_eq!(code, 0, "{err}");
    let contested = rows
        .iter()
        .filter(|r| r["annotator"] == "bob")
        .filter(|b| {
            let a = rows
                .iter()
                .find(|r| r["annotator"] == "ann" && r["item_id"] == b["item_id"])
                .expect("ann labelled every item");
            a["label"] != b["label"]
        })
        .count();
    assert!(
        stdout.contains(&format!(
            "gold: {} items from the label store",
            30 - contested
        )),
        "{stdout}"
    );
    let (code, json, err) = calibrate(&["--json"]);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&json).expect("json");
    assert_eq!(
        doc["data"]["unlabelled"],
        json!(contested),
        "contested items have no gold"
    );
    let n = doc["configs"][0]["overall"]["n"].as_u64().expect("n");
    assert!(n as usize <= 30 - contested && n > 20, "{n}");
    // The store's two annotators feed the alt-test: the 3 items both labelled (contested ones
    // too: the test reads the votes, not the gold), each annotator left out in turn.
    let (code, json, err) =
        calibrate(&["--json", "--alt-test", "0.1", "--alt-test-min-items", "1"]);
    assert_eq!(code, 0, "{err}");
    let alt = &serde_json::from_str::<Value>(&json).expect("json")["configs"][0]["alt_test"];
    let items = alt["n_items"].as_u64().expect("n_items");
    assert!((1..=3).contains(&items), "{alt}");
    let tested: Vec<(&str, u64)> = (alt["annotators"].as_array().expect("annotators").iter())
        .map(|a| {
            (
                a["name"].as_str().expect("name"),
                a["n"].as_u64().expect("n"),
            )
        })
        .collect();
    assert_eq!(tested, vec![("ann", items), ("bob", items)], "{alt}");

    // analyze reads the same store as the gold of the run's ratings: the same figures.
    let ratings = run_dir.join("ratings.csv");
    let (r, st) = (
        ratings.to_str().expect("utf-8"),
        store.to_str().expect("utf-8"),
    );
    let analyze = |extra: &[&str]| {
        let mut args = vec![
            "analyze",
            "--input",
            r,
            "--labels",
            st,
            "--unreadable",
            "drop",
        ];
        args.extend(extra);
        run(&args)
    };
    let (code, json_out, err) = analyze(&["--labels-override", "--json"]);
    assert_eq!(code, 0, "{err}");
    let a: Value = serde_json::from_str(&json_out).expect("json");
    assert_eq!(a["n"], doc["configs"][0]["overall"]["n"]);
    assert_eq!(
        a["kappa_quadratic"],
        doc["configs"][0]["overall"]["kappa_quadratic"]
    );
    let (code, text, err) = analyze(&[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("gold: from the file's column 'gold'; the label store"),
        "without --labels-override the file's gold wins: {text}"
    );
}

#[test]
fn the_server_refuses_what_it_should_and_writes_nothing_then() {
    let dir = tempfile::tempdir().expect("dir");
    let data = data(dir.path());
    let store = dir.path().join("labels.sqlite");
    let s = Server::start(&data, &store, "ann", &[]);
    let http = reqwest::blocking::Client::new();
    let get = |path: &str, token: Option<&str>| {
        let mut r = http.get(format!("{}{path}", s.base()));
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        let r = r.send().expect("answer");
        (r.status().as_u16(), r.text().expect("body"))
    };
    let (code, body) = get("/", None);
    assert_eq!(code, 401);
    assert!(!body.contains("Q0") && !body.contains("<html"), "{body}");
    assert_eq!(get("/api/state", None).0, 401);
    assert_eq!(get("/api/state", Some("0000")).0, 403);
    let wrong = "f".repeat(s.token().len());
    assert_eq!(get("/api/state", Some(&wrong)).0, 403);
    assert_eq!(get(&format!("/?token={wrong}"), None).0, 403);
    assert_eq!(get("/Cargo.toml", Some(s.token())).0, 404);
    assert_eq!(get("/%2e%2e/%2e%2e/etc/passwd", Some(s.token())).0, 404);
    let (code, page) = get(&format!("/?token={}", s.token()), None);
    assert_eq!(code, 200);
    assert!(page.contains("raterlab label"));
    let bob: Value =
        serde_json::from_str(&get("/api/state?annotator=bob", Some(s.token())).1).expect("json");
    assert_eq!(bob["annotator"], "bob", "one server, several annotators");
    assert_eq!(get("/api/state?annotator=%3Cb%3E", Some(s.token())).0, 400);
    let state: Value = serde_json::from_str(&get("/api/state", Some(s.token())).1).expect("json");
    let item = state["item"]["id"].as_str().expect("an item").to_string();

    let post = |path: &str, body: &str, token: Option<&str>| {
        let mut r = http
            .post(format!("{}{path}", s.base()))
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        r.send().expect("answer").status().as_u16()
    };
    let t = Some(s.token());
    let ok = format!(r#"{{"item_id":"{item}","key":1,"seconds":2.5}}"#);
    for (body, token, want) in [
        (ok.as_str(), None, 401),
        (ok.as_str(), Some("nope"), 403),
        (r#"{"item_id":"#, t, 400),
        (r#"{"item_id":"no-such-item","key":1,"seconds":1}"#, t, 404),
        (
            &format!(r#"{{"item_id":"{item}","key":7,"seconds":1}}"#) as &str,
            t,
            400,
        ),
        (
            &format!(r#"{{"item_id":"{item}","key":1,"seconds":-3}}"#),
            t,
            400,
        ),
        (
            &format!(r#"{{"item_id":"{item}","key":1,"seconds":1,"annotator":"<b>"}}"#),
            t,
            400,
        ),
        (
            &format!(r#"{{"item_id":"{item}","key":1,"seconds":1,"extra":true}}"#),
            t,
            422,
        ),
        (
            &format!(
                r#"{{"item_id":"{item}","key":1,"seconds":1,"note":"{}"}}"#,
                "x".repeat(20_000)
            ),
            t,
            413,
        ),
    ] {
        assert_eq!(post("/api/label", body, token), want, "{body:.80}");
    }
    assert_eq!(get("/api/label", t).0, 405, "writes are POSTs");
    let labels = dir.path().join("labels.csv");
    let export = |out: &Path| {
        run(&[
            "labels",
            "export",
            "--store",
            store.to_str().expect("utf-8"),
            "--format",
            "csv",
            "--out",
            out.to_str().expect("utf-8"),
        ])
    };
    let (code, stdout, err) = export(&labels);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("wrote 0 labels"),
        "nothing written by a refusal: {stdout}"
    );
    assert_eq!(post("/api/label", &ok, t), 200);
    let (_, stdout, _) = export(&labels);
    assert!(stdout.contains("wrote 1 labels"), "{stdout}");
}

#[test]
fn wrong_input_to_label_and_labels_is_exit_2_with_the_fix() {
    let dir = tempfile::tempdir().expect("dir");
    let data = data(dir.path());
    let d = data.to_str().expect("utf-8");
    let missing_store = dir.path().join("none.sqlite");
    let m = missing_store.to_str().expect("utf-8");
    for (args, says) in [
        (
            vec!["labels", "stats", "--store", m],
            "no such label store; `raterlab label --store",
        ),
        (
            vec![
                "label",
                "--data",
                d,
                "--map",
                "prompt=question,response1=a,response2=b",
                "--store",
                m,
                "--annotator",
                "a b",
            ],
            "--annotator 'a b': use letters, digits",
        ),
        (
            vec![
                "label",
                "--data",
                d,
                "--map",
                "prompt=question,response1=a,response2=b",
                "--store",
                m,
                "--annotator",
                "ann",
                "--guidelines",
                "/nonexistent.md",
            ],
            "--guidelines '/nonexistent.md'",
        ),
        (
            vec![
                "calibrate",
                "--judge",
                "sim",
                "--data",
                d,
                "--map",
                "prompt=question,response1=a,response2=b",
                "--labels",
                m,
            ],
            "no such label store",
        ),
        (
            vec![
                "label",
                "--data",
                "sample-v2",
                "--store",
                m,
                "--annotator",
                "ann",
            ],
            "RewardBench 2 data",
        ),
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    assert!(
        !missing_store.exists(),
        "a refused command creates no store"
    );
}

/// The real HH-RLHF conversations: the page's items carry their earlier turns, labels posted
/// as the page posts them become the gold of `calibrate` (over the file's with
/// `--labels-override`; the file's wins without it).
#[test]
fn real_conversations_are_served_with_their_turns_and_their_labels_become_gold() {
    let Some(shared) = crate::common::shared_data() else {
        return;
    };
    let data = shared.join("hh-rlhf/harmless-base-test.jsonl");
    let dir = tempfile::tempdir().expect("dir");
    let store = dir.path().join("labels.sqlite");
    let (d, st) = (
        data.to_str().expect("utf-8"),
        store.to_str().expect("utf-8"),
    );
    let s = Server::with(&[
        "--data",
        d,
        "--limit",
        "6",
        "--store",
        st,
        "--annotator",
        "ann",
    ]);
    let http = reqwest::blocking::Client::new();
    let mut turns = 0;
    for k in 0..6 {
        let state: Value = http
            .get(format!("{}/api/state", s.base()))
            .bearer_auth(s.token())
            .send()
            .expect("state")
            .json()
            .expect("json");
        assert_eq!(state["progress"]["labelled"], json!(k));
        let item = &state["item"];
        turns += item["history"].as_array().expect("turns").len();
        assert!(!item["first"].as_str().expect("text").is_empty());
        let r = http
            .post(format!("{}/api/label", s.base()))
            .bearer_auth(s.token())
            .json(&json!({"item_id": item["id"], "key": 1, "seconds": 3.0}))
            .send()
            .expect("label");
        assert_eq!(r.status().as_u16(), 200);
    }
    assert!(turns > 0, "HH-RLHF's items have earlier turns");
    drop(s);
    // One annotator's stats fit 100 columns, the missing agreement said in wrapped lines.
    let out = crate::common::raterlab(&["labels", "stats", "--store", st])
        .env("COLUMNS", "100")
        .output()
        .expect("raterlab runs");
    let stats = String::from_utf8_lossy(&out.stdout);
    assert!(stats.lines().all(|l| l.chars().count() <= 100), "{stats}");
    let joined = stats.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        joined.contains("Agreement between annotators: none yet"),
        "{stats}"
    );
    let calibrate = |extra: &[&str]| -> Value {
        let mut args = vec![
            "calibrate",
            "--judge",
            "sim",
            "--data",
            d,
            "--limit",
            "6",
            "--labels",
            st,
            "--json",
            "--out",
        ];
        let out = dir.path().join(format!("run{}", extra.len()));
        let out = out.to_str().expect("utf-8").to_string();
        args.push(&out);
        args.extend(extra);
        let (code, json_out, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&json_out).expect("json")
    };
    let kept = calibrate(&[]);
    let source = kept["data"]["source"].as_str().expect("source");
    assert!(
        source.contains("gold: 0 items from the label store")
            && source.ends_with("6 from the file"),
        "{source}"
    );
    let taken = calibrate(&["--labels-override"]);
    let source = taken["data"]["source"].as_str().expect("source");
    assert!(
        source.contains("gold: 6 items from the label store")
            && source.ends_with("0 from the file"),
        "{source}"
    );
}

/// Another address than loopback warns; SIGTERM stops the server cleanly (exit 0, the store
/// closed with its labels).
#[test]
fn an_open_address_warns_and_sigterm_closes_the_store() {
    let dir = tempfile::tempdir().expect("dir");
    let data = data(dir.path());
    let store = dir.path().join("labels.sqlite");
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("raterlab"))
        .args([
            "label",
            "--port",
            "0",
            "--host",
            "0.0.0.0",
            "--annotator",
            "ann",
        ])
        .args(["--map", "prompt=question,response1=a,response2=b", "--data"])
        .arg(&data)
        .arg("--store")
        .arg(&store)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut first = String::new();
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    out.read_line(&mut first).expect("first line");
    assert!(
        first.starts_with("raterlab label: http://127.0.0.1:"),
        "{first}"
    );
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let done = child.wait_with_output().expect("stops");
    assert!(done.status.success(), "{:?}", done.status);
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(
        err.contains("warning: --host 0.0.0.0: the page") && err.contains("SSH tunnel"),
        "{err}"
    );
    assert!(
        err.contains("raterlab label: stopped; 0 labels in force"),
        "{err}"
    );
}
