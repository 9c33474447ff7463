//! `report.html` end to end: a snapshot of the demo run's page, hostile texts that must stay
//! text, the `analyze --html` page, and the pages opened in a real headless Chromium (a
//! screenshot that is not blank, plots that decoded, filters driven by the URL fragment).
//!
//! The browser tests are skipped with a notice when no Chromium is installed; with
//! `RATERLAB_REQUIRE_CHROMIUM=1` (set by .ci/run, which installs Debian's `chromium`) a missing
//! browser fails them instead. `$CI_ARTIFACTS`, when set, receives the screenshots.

use crate::common::{missing, run, write};
use crate::judge_cli::completion;
use crate::mock_http::MockServer;
use base64::Engine;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `raterlab calibrate` with `args` and returns the run directory's page.
pub(crate) fn calibrate(out: &Path, args: &[&str]) -> String {
    let mut all = vec!["calibrate", "--out", out.to_str().expect("utf-8")];
    all.extend(args);
    let (code, _, err) = run(&all);
    assert_eq!(code, 0, "stderr: {err}");
    std::fs::read_to_string(out.join("report.html")).expect("report.html written")
}

/// The item browser's data, read back from its `<script type="application/json">`, each pair
/// item's texts looked up as the page's script does (an item names them by index in `texts`).
pub(crate) fn page_data(page: &str) -> Value {
    let start = r#"<script type="application/json" id="data">"#;
    let from = page.find(start).expect("data element") + start.len();
    let to = from + page[from..].find("</script>").expect("end of data");
    let mut data: Value = serde_json::from_str(&page[from..to]).expect("the data is JSON");
    if let Some(Value::Array(texts)) = data.as_object_mut().and_then(|d| d.remove("texts")) {
        for item in data["items"].as_array_mut().expect("items") {
            for key in ["prompt", "r1", "r2"] {
                let k = item[key].as_u64().expect("a text's index") as usize;
                item[key] = texts[k].clone();
            }
        }
    }
    data
}

/// The decoded SVG of every plot, in page order.
fn plots(page: &str) -> Vec<String> {
    let marker = "data:image/svg+xml;base64,";
    page.match_indices(marker)
        .map(|(at, _)| {
            let from = at + marker.len();
            let to = from + page[from..].find('"').expect("end of data URI");
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(&page[from..to])
                .expect("base64");
            String::from_utf8(bytes).expect("utf-8 SVG")
        })
        .collect()
}

/// The page with what varies between machines or is checked elsewhere replaced: the run
/// directory, the plots' data URIs, the items' JSON and the wall-clock column.
fn normalized(page: &str, dir: &Path) -> String {
    let escaped_dir = dir.to_str().expect("utf-8").replace('/', "&#x2f;");
    let mut out = page.replace(&escaped_dir, "[DIR]");
    let marker = "data:image/svg+xml;base64,";
    while let Some(at) = out.find(marker) {
        let end = at + out[at..].find('"').expect("end of data URI");
        out.replace_range(at..end, "[svg]");
    }
    let start = r#"<script type="application/json" id="data">"#;
    if let Some(at) = out.find(start) {
        let from = at + start.len();
        let to = from + out[from..].find("</script>").expect("end of data");
        out.replace_range(from..to, "[data]");
    }
    // "wall s" is the last column of the first table: seconds measured, not results.
    let body_at = out.find("<tbody>").expect("first table");
    let body_end = body_at + out[body_at..].find("</tbody>").expect("end of table");
    let mut body = out[body_at..body_end].to_string();
    let mut from = 0;
    while let Some(end) = body[from..].find("</td></tr>").map(|e| from + e) {
        let cell = body[..end].rfind("<td>").expect("cell") + "<td>".len();
        body.replace_range(cell..end, "[s]");
        from = cell + "[s]</td></tr>".len();
    }
    out.replace_range(body_at..body_end, &body);
    out
}

#[test]
fn demo_page_snapshot_and_report_dir_writes_the_same_page() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let page = calibrate(&out, &["--demo", "--bootstrap", "200"]);
    assert!(page.contains(r#"<div class="banner" id="simulated">SIMULATED judge"#));
    for network in ["src=\"http", "href=", "url(", "@import", "<link", "fetch("] {
        assert!(!page.contains(network), "the page loads nothing: {network}");
    }
    // The demo's sc:5 configuration gives probabilities (its vote shares): their table too; the
    // sample names each response's writer: the system level's table.
    assert_eq!(page.matches("<table class=\"sortable").count(), 10);
    assert!(page.contains("Cost and agreement, cheapest first"));
    assert!(page.contains("The models by configuration (win rate against sample-writer-good"));
    assert!(page.contains("Probabilities: P(response 2 better) against gold"));
    let svgs = plots(&page);
    assert_eq!(
        svgs.len(),
        8 + 9,
        "bars, subsets, forest, bias, probabilities, systems, cost, self-consistency, 9 confusion heatmaps"
    );
    assert!(svgs
        .iter()
        .all(|s| s.starts_with("<svg") && s.contains("</svg>")));
    // Every figure is drawn once: each SVG file of the directory is one of the page's, as it is
    // (the confusion maps' titles say "(simulated judge)" in both).
    let mut files = 0;
    for entry in std::fs::read_dir(&out).expect("run directory") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "svg") {
            let svg = std::fs::read_to_string(&path).expect("svg");
            assert!(
                svgs.contains(&svg),
                "{} is on the page as it is",
                path.display()
            );
            files += 1;
        }
    }
    assert_eq!(
        files,
        9 + 6,
        "9 confusion maps, metrics and 5 sections' figures"
    );
    // The numbers are the terminal's: the same summary rows.
    let (_, terminal, _) = run(&["report", out.to_str().expect("utf-8")]);
    let first = terminal
        .lines()
        .find(|l| l.starts_with('│') && l.contains("raterlab_with_tie/sc:5 (sim)"))
        .expect("terminal row");
    let cells: Vec<&str> = first.split(['│', '┆']).map(str::trim).collect();
    let (accuracy, kappa) = (cells[3], cells[4]);
    assert!(accuracy.starts_with("0.6744 ["), "{first}");
    assert!(page.contains(&format!("<td>{accuracy}</td><td>{kappa}</td>")));
    // `report DIR` rendered the page again from the files: byte for byte the same.
    let again = std::fs::read_to_string(out.join("report.html")).expect("page");
    assert!(again == page, "report DIR rewrites the same page");
    insta::assert_snapshot!("demo_report_html", normalized(&page, &out));
    let data = page_data(&page);
    let items = data["items"].as_array().expect("items");
    assert_eq!(items.len(), 43);
    let first_items: Vec<Value> = (0..2)
        .map(|i| {
            serde_json::json!({
                "item": items[i],
                "completions": data["completions"].as_array().expect("per config").iter()
                    .map(|c| c[i].clone()).collect::<Vec<_>>(),
            })
        })
        .collect();
    insta::assert_json_snapshot!("demo_report_data_first_items", first_items);
}

const PROMPT: &str = "Explain </textarea><script>document.title='PWNED'</script> & <!-- this";
const RESPONSE1: &str = "<img src=x onerror=\"document.title='PWNED'\"> first";
const RESPONSE2: &str = "</pre></div><b>bold</b> ]]> second";
const ANSWER: &str = "</script><script>document.title='PWNED'</script><textarea> Response 1 \
                      is right. <winner>1</winner>";

/// A run on hostile prompts and responses judged by a server whose answers are hostile too.
fn hostile_run(dir: &Path) -> (PathBuf, String) {
    let server = MockServer::start(|_| completion(ANSWER));
    let rows: Vec<String> = (0..3)
        .map(|i| {
            serde_json::json!({"id": format!("<b>{i}</b>"), "q": PROMPT, "a": RESPONSE1,
                "b": RESPONSE2, "label": -1})
            .to_string()
        })
        .collect();
    let data = write(dir, "pairs.jsonl", &(rows.join("\n") + "\n"));
    let out = dir.join("hostile");
    let page = calibrate(
        &out,
        &[
            "--data",
            data.to_str().expect("utf-8"),
            "--map",
            "prompt=q,response1=a,response2=b,label=label,id=id",
            "--endpoint",
            &server.url,
            "--model",
            "mock",
            "--prompt",
            "raterlab_with_tie",
            "--bootstrap",
            "0",
            "--no-cache",
        ],
    );
    assert_eq!(server.count(), 3);
    (out, page)
}

#[test]
fn hostile_texts_stay_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, page) = hostile_run(dir.path());
    assert_eq!(
        page.matches("<script").count(),
        3,
        "only the page's own scripts (data, browser, sorting)"
    );
    for hostile in [
        PROMPT,
        RESPONSE1,
        RESPONSE2,
        ANSWER,
        "<b>0</b>",
        "PWNED'</script>",
    ] {
        assert!(!page.contains(hostile), "raw in the page: {hostile}");
    }
    assert!(!page.contains("<textarea"), "no element made from data");
    let data = page_data(&page);
    let item = &data["items"][0];
    assert_eq!(item["id"], "<b>0</b>");
    assert_eq!(item["prompt"], PROMPT);
    assert_eq!(item["r1"], RESPONSE1);
    assert_eq!(item["r2"], RESPONSE2);
    assert_eq!(item["ratings"][0][0], -1, "the verdict was still read");
    let answer = &data["completions"][0][0][0];
    assert_eq!(answer["text"], ANSWER);
    let span = answer["span"].as_array().expect("span");
    let chars: Vec<char> = ANSWER.chars().collect();
    let (a, b) = (
        span[0].as_u64().expect("start") as usize,
        span[1].as_u64().expect("end") as usize,
    );
    assert_eq!(chars[a..b].iter().collect::<String>(), "<winner>1</winner>");
}

// ---- in a real browser ----

/// Chromium's binary, or `None` with a notice (a failure under RATERLAB_REQUIRE_CHROMIUM=1).
pub(crate) fn chromium() -> Option<PathBuf> {
    let named = std::env::var_os("RATERLAB_CHROMIUM").map(PathBuf::from);
    let found = named.or_else(|| {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .flat_map(|d| {
                ["chromium", "chromium-browser", "google-chrome"].map(|name| d.join(name))
            })
            .find(|p| p.is_file())
    });
    if found.is_none() {
        missing(
            "RATERLAB_REQUIRE_CHROMIUM",
            "no chromium is installed (apt-get install chromium)",
        );
    }
    found
}

/// Runs headless Chromium on `url` with `extra` flags and returns its stdout; offline, with a
/// fresh profile, and killed after a minute.
fn headless(browser: &Path, url: &str, extra: &[&str]) -> String {
    let profile = tempfile::tempdir().expect("profile");
    let out_file = profile.path().join("stdout");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .stdout(std::fs::File::create(&out_file).expect("stdout file"))
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let started = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("chromium did not finish within 60 s on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::fs::read_to_string(&out_file).expect("chromium output")
}

/// The DOM after the page's scripts ran, for `page` opened with `fragment`.
pub(crate) fn dom(browser: &Path, page: &Path, fragment: &str) -> String {
    let url = format!("file://{}{fragment}", page.display());
    let dom = headless(browser, &url, &["--virtual-time-budget=5000", "--dump-dom"]);
    assert!(dom.contains("</html>"), "Chromium dumped the DOM of {url}");
    dom
}

/// Text as a serialized DOM writes it inside an element.
fn html_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The "N of M items" line of the browser.
pub(crate) fn shown(dom: &str) -> String {
    let from = dom
        .find(r#"<span id="count" class="note">"#)
        .expect("count")
        + 30;
    dom[from..from + dom[from..].find('<').expect("end")].to_string()
}

/// Decodes a PNG and returns (width, height, share of pixels that are not white, distinct
/// colours).
fn png_stats(path: &Path) -> (u32, u32, f64, usize) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("screenshot"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("frame");
    let channels = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(channels).collect();
    let not_white = pixels
        .iter()
        .filter(|p| p.iter().take(3).any(|&c| c < 245))
        .count();
    let colours: std::collections::HashSet<&[u8]> = pixels.iter().copied().collect();
    (
        info.width,
        info.height,
        not_white as f64 / pixels.len() as f64,
        colours.len(),
    )
}

/// Keeps a screenshot as a CI artifact when `$CI_ARTIFACTS` names a folder.
fn keep(screenshot: &Path, name: &str) {
    if let Some(dir) = std::env::var_os("CI_ARTIFACTS") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).expect("artifacts folder");
        std::fs::copy(screenshot, dir.join(name)).expect("artifact copied");
    }
}

/// What the browser should show for a filter, computed here from the page's data.
fn expected(data: &Value, keep: impl Fn(&Value, usize) -> bool) -> usize {
    let items = data["items"].as_array().expect("items");
    (0..items.len()).filter(|&i| keep(data, i)).count()
}

fn ratings(data: &Value, i: usize) -> Vec<Option<i64>> {
    data["items"][i]["ratings"]
        .as_array()
        .expect("ratings")
        .iter()
        .map(|r| r[0].as_i64())
        .collect()
}

#[test]
fn demo_page_in_chromium_renders_and_its_filters_work() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("run");
    let page_text = calibrate(&out, &["--demo", "--both-orders", "--bootstrap", "200"]);
    let page = out.join("report.html");
    let data = page_data(&page_text);
    let n = data["items"].as_array().expect("items").len();
    assert_eq!(n, 86, "43 pairs in both orders");

    // A screenshot that is not blank: many coloured pixels (tables, bars, heatmaps).
    let shot = out.join("report.png");
    headless(
        &browser,
        &format!("file://{}", page.display()),
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1400,2400",
            "--virtual-time-budget=5000",
        ],
    );
    let (w, h, ink, colours) = png_stats(&shot);
    keep(&shot, "report.png");
    assert_eq!((w, h), (1400, 2400));
    assert!(
        ink > 0.05 && colours > 50,
        "the screenshot looks blank: {:.1}% not white, {colours} colours",
        ink * 100.0
    );

    // Unfiltered: every table, every plot decoded by the browser, the first page of items.
    let all = dom(&browser, &page, "");
    // configurations, probabilities (sc:5's vote shares), parse failures, sections,
    // comparisons, cost, significance groups, bias, self-consistency, the models (the demo
    // has one order and no annotators).
    assert_eq!(all.matches(r#"<table class="sortable"#).count(), 11);
    assert!(all.contains("Bias: how often each prefers"));
    let rendered: Vec<&str> = all
        .match_indices(r#"data-rendered=""#)
        .map(|(at, m)| {
            let from = at + m.len();
            &all[from..from + all[from..].find('"').expect("end")]
        })
        .collect();
    assert_eq!(rendered.len(), plots(&page_text).len(), "every plot loaded");
    assert!(
        rendered.iter().all(|size| !size.starts_with("0x")),
        "{rendered:?}"
    );
    assert_eq!(
        all.matches("<tr data-item=").count(),
        86,
        "one page of up to 100 rows"
    );
    assert_eq!(shown(&all), format!("{n} of {n} items"));

    // "wrong": any configuration rated against gold.
    let wrong = expected(&data, |d, i| {
        let gold = d["items"][i]["gold"].as_i64();
        ratings(d, i).iter().any(|r| r.is_some() && *r != gold)
    });
    assert!(wrong > 0 && wrong < n);
    assert_eq!(
        shown(&dom(&browser, &page, "#filter=wrong")),
        format!("{wrong} of {n} items")
    );
    // "configurations disagree", within one subset.
    let subset = data["items"][0]["subset"]
        .as_str()
        .expect("subset")
        .to_string();
    let disagree = expected(&data, |d, i| {
        let r = ratings(d, i);
        d["items"][i]["subset"] == subset.as_str() && r.iter().any(|x| *x != r[0])
    });
    assert_eq!(
        shown(&dom(
            &browser,
            &page,
            &format!("#filter=disagree&subset={subset}")
        )),
        format!("{disagree} of {n} items")
    );
    // "position-inconsistent" for the first configuration: both orders rated and the two
    // verdicts, un-swapped, differ (the position table's consistency, item by item).
    let items = data["items"].as_array().expect("items");
    let inconsistent = expected(&data, |d, i| {
        let other = (0..n)
            .find(|&j| j != i && items[j]["pair"] == items[i]["pair"])
            .expect("both orders");
        match (ratings(d, i)[0], ratings(d, other)[0]) {
            (Some(a), Some(b)) => a != -b,
            _ => false,
        }
    });
    assert_eq!(
        shown(&dom(&browser, &page, "#filter=inconsistent&config=0")),
        format!("{inconsistent} of {n} items")
    );
    // Narrow, the list cuts long ids and subsets and says which configurations' columns are
    // still past its right edge; wide, it cuts nothing and says nothing. A missing rating reads
    // as a word, its status in the tooltip.
    let more = |width: u32| {
        let url = format!("file://{}", page.display());
        let at = format!("--window-size={width},700");
        let dom = headless(
            &browser,
            &url,
            &["--virtual-time-budget=5000", "--dump-dom", &at],
        );
        let from = dom.find(r#"<span id="more" class="note">"#).expect("more") + 29;
        let cut = dom.contains(r#"<table id="items" class="narrow">"#);
        (
            cut,
            dom[from..from + dom[from..].find('<').expect("end")].to_string(),
        )
    };
    let (cut, said) = more(1000);
    assert!(
        cut && said.ends_with("C9 to the right: scroll the list sideways"),
        "{said}"
    );
    // Wider, the cut columns fit (the page's width is capped, so the nine still need the cut).
    assert_eq!(more(2400).1, "");
    let at = all
        .find(r#"<td class="r-none""#)
        .expect("the demo has items without a verdict");
    let cell = &all[at..at + all[at..].find("</td>").expect("end")];
    assert!(
        cell.ends_with(">none") && cell.contains(r#"title="no verdict""#),
        "{cell}"
    );
    // Search by id, then the detail panel with the verdict's span highlighted.
    let id = items[5]["id"].as_str().expect("id");
    let found = dom(&browser, &page, &format!("#q={id}&item=5"));
    assert_eq!(shown(&found), format!("1 of {n} items"));
    let detail = &found[found.find(r#"<div id="detail""#).expect("detail panel")..];
    assert!(detail.contains("Response 1") && detail.contains("Response 2"));
    // The texts the item names by index in the page's data, looked up by the page's script.
    for key in ["prompt", "r1", "r2"] {
        let text = items[5][key].as_str().expect("a text");
        assert!(
            detail.contains(&format!("<pre>{}</pre>", html_text(text))),
            "the detail panel shows {key}: {text}"
        );
    }
    let first_answer = data["completions"][0][5][0]["text"].as_str().expect("text");
    let span = &data["completions"][0][5][0]["span"];
    let chars: Vec<char> = first_answer.chars().collect();
    let marked: String = chars
        [span[0].as_u64().expect("start") as usize..span[1].as_u64().expect("end") as usize]
        .iter()
        .collect();
    assert!(
        detail.contains(&format!("<mark>{}</mark>", html_text(&marked))),
        "the verdict's span {marked:?} is highlighted"
    );
    // A linked item that the filter would hide: the filters are reset so that it shows.
    let rated = (0..n)
        .find(|&i| ratings(&data, i).iter().all(Option::is_some))
        .expect("an item every configuration rated");
    let linked = dom(&browser, &page, &format!("#filter=none&item={rated}"));
    assert_eq!(shown(&linked), format!("{n} of {n} items"));
    assert!(linked.contains(&format!(r#"<tr data-item="{rated}" class="sel""#)));
    // The legend names every configuration behind the C1, C2, ... columns.
    let legend = &linked[linked.find(r#"id="legend""#).expect("legend")..];
    for (k, name) in data["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .enumerate()
    {
        let name = name.as_str().expect("name");
        assert!(
            legend.contains(&format!("C{} {}", k + 1, html_text(name))),
            "{name}"
        );
    }
}

#[test]
fn hostile_page_in_chromium_runs_no_injected_code() {
    let Some(browser) = chromium() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, _) = hostile_run(dir.path());
    let found = dom(&browser, &out.join("report.html"), "#item=0");
    assert!(!found.contains("PWNED</title>") && found.contains("<title>raterlab"));
    assert!(!found.contains(r#"<img src="x""#), "no element from data");
    assert!(
        found.contains("Explain &lt;/textarea&gt;&lt;script&gt;document.title='PWNED'"),
        "the prompt shows as text"
    );
    assert!(found.contains("<mark>&lt;winner&gt;1&lt;/winner&gt;</mark>"));
    // A list that fits its box cuts nothing and names no column past its edge.
    assert!(found.contains(r#"<table id="items">"#), "no cut");
    assert!(found.contains(r#"<span id="more" class="note"></span>"#));
}

#[test]
fn analyze_html_has_the_tables_and_plots() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("analysis.html");
    let path_s = path.to_str().expect("utf-8");
    let args = [
        "analyze",
        "--input",
        "data/example-ratings.csv",
        "--group-col",
        "subset",
    ];
    assert_eq!(
        crate::common::error_of(&[&args[..], &["--html", "no/such/folder/a.html"]].concat()),
        "error: --html 'no/such/folder/a.html': the folder 'no/such/folder' does not exist; create it or write elsewhere"
    );
    let folder = dir.path().to_str().expect("utf-8");
    assert_eq!(
        crate::common::error_of(&[&args[..], &["--html", folder]].concat()),
        format!("error: --html '{folder}' is a folder; name a file in it, e.g. '{folder}/analysis.html'")
    );
    let (code, terminal, err) = run(&[&args[..], &["--html", path_s]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(terminal.contains(&format!("wrote {path_s}")));
    let page = std::fs::read_to_string(&path).expect("page");
    assert_eq!(page.matches("<table class=\"sortable").count(), 3);
    assert!(!page.contains(r#"id="browser""#), "no items to browse");
    let (_, json, _) = run(&[&args[..], &["--json"]].concat());
    let json: Value = serde_json::from_str(&json).expect("json");
    let accuracy = json["accuracy"].as_f64().expect("accuracy");
    assert!(page.contains(&format!("<td>accuracy</td><td>{accuracy:.4}</td>")));
    assert!(page.contains("<td>math-prm</td><td>12</td>"));
    assert_eq!(plots(&page).len(), 2);
    let Some(browser) = chromium() else { return };
    let found = dom(&browser, &path, "");
    assert_eq!(
        found.matches("data-rendered=\"").count(),
        2,
        "both plots load"
    );
}
