//! `--family` on RewardBench 2 rows, as on pairs: Holm counts every pair either way; under
//! `best` only the best's pairs and a jury's with its members keep a verdict, the others their
//! unadjusted test and interval; `all` judges every pair. `report DIR` keeps the run's family
//! or takes another, and a run written before RewardBench 2 read `--family` (it judged every
//! pair) reads as `all`. Before, RewardBench 2 judged every pair whatever `--family` said.

use crate::common::{json_of, run};
use serde_json::Value;
use std::path::Path;

/// (a, b, finding, Holm p) of each comparison.
fn comparisons(doc: &Value) -> Vec<(String, String, String, Option<f64>)> {
    doc["comparisons"]
        .as_array()
        .expect("comparisons")
        .iter()
        .map(|c| {
            (
                c["a"].as_str().expect("a").to_string(),
                c["b"].as_str().expect("b").to_string(),
                c["finding"].as_str().expect("finding").to_string(),
                c["p_holm"].as_f64(),
            )
        })
        .collect()
}

#[test]
fn rewardbench2_gives_a_verdict_to_the_pairs_its_family_names() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("run");
    let out = dir.to_str().expect("utf-8");
    let doc = json_of(&crate::common::rb2_poll(out, "100"));
    assert_eq!(doc["family"], "best");
    let best = doc["best"].as_str().expect("a best").to_string();
    // Each jury's members, by name, in the document.
    let mut members: Vec<(String, String)> = Vec::new();
    for c in doc["configs"].as_array().expect("configs") {
        for m in c["members"].as_array().into_iter().flatten() {
            members.push((
                c["name"].as_str().expect("name").into(),
                m.as_str().expect("member").into(),
            ));
        }
    }
    assert_eq!(members.len(), 6, "two juries of three members");
    let in_family = |a: &str, b: &str| {
        a == best
            || b == best
            || members
                .iter()
                .any(|(j, m)| (j == a && m == b) || (j == b && m == a))
    };
    let all = comparisons(&doc);
    assert_eq!(all.len(), 28, "every pair of 8 configurations is tested");
    let (mut judged, mut unjudged) = (0, 0);
    for (a, b, finding, p_holm) in &all {
        if in_family(a, b) {
            judged += 1;
            assert_ne!(finding, "no_verdict", "{a} vs {b}");
            assert!(p_holm.is_some(), "{a} vs {b}: a verdict has its Holm p");
        } else {
            unjudged += 1;
            assert_eq!(finding, "no_verdict", "{a} vs {b}");
            assert!(p_holm.is_none(), "{a} vs {b}: no verdict, no Holm p");
        }
    }
    assert!(
        judged > 0 && unjudged > 0,
        "{judged} judged, {unjudged} not"
    );
    // The terminal says which and why.
    let (code, text, err) = run(&["report", out]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("no verdict (--family best)"), "{text}");
    // report DIR keeps the run's family, or takes another.
    let again = json_of(&["report", out, "--json"]);
    assert_eq!(again["family"], "best");
    assert_eq!(comparisons(&again), all);
    let every = json_of(&["report", out, "--family", "all", "--json"]);
    assert_eq!(every["family"], "all");
    for (a, b, finding, p_holm) in comparisons(&every) {
        assert_ne!(finding, "no_verdict", "{a} vs {b}");
        assert!(p_holm.is_some(), "{a} vs {b}");
    }
    // A run.json without `family` (as written before RewardBench 2 read --family): every pair
    // judged, as it was.
    let path = Path::new(out).join("run.json");
    let mut file: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("run.json")).expect("JSON");
    let m = file.as_object_mut().expect("an object");
    assert!(m.remove("family").is_some());
    std::fs::write(&path, serde_json::to_string_pretty(&file).expect("JSON")).expect("write");
    let old = json_of(&["report", out, "--json"]);
    assert_eq!(old["family"], "all");
    assert!(comparisons(&old).iter().all(|c| c.2 != "no_verdict"));
}
