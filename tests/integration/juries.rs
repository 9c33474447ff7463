//! Juries end to end: every vote rule against an independent computation from the members'
//! ratings, on a mock server with failing and unreadable members (cache, `--offline` and
//! `report DIR` unchanged), and on LLMBar's real recorded judges, whose majority is computed
//! here from LLMBar's own reading of each recorded answer.

use crate::common::{json_of, ratings_strings, run, shared_data};
use crate::judge_cli::{completion, user_text};
use crate::mock_http::{MockServer, Reply};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The rule, written out plainly: the jury's rating from its members' (None: no vote).
fn expected(vote: &str, votes: &[Option<i64>], weights: &[f64]) -> Option<i64> {
    let voters: Vec<(i64, f64)> = votes
        .iter()
        .zip(weights)
        .filter_map(|(v, w)| Some(((*v)?, *w)))
        .collect();
    let total: f64 = voters.iter().map(|x| x.1).sum();
    let weight_of =
        |label: i64| -> f64 { voters.iter().filter(|x| x.0 == label).map(|x| x.1).sum() };
    match vote {
        "majority" => voters
            .iter()
            .map(|x| x.0)
            .find(|&l| 2.0 * weight_of(l) > total),
        "unanimous" => {
            let first = voters.first()?.0;
            voters.iter().all(|x| x.0 == first).then_some(first)
        }
        "mean" => {
            if voters.is_empty() {
                return None;
            }
            let mean: f64 = voters.iter().map(|x| x.0 as f64 * x.1).sum::<f64>() / total;
            Some(if mean > 0.0 {
                1
            } else if mean < 0.0 {
                -1
            } else {
                0
            })
        }
        "reward-bench" => {
            // max(set(votes), key=votes.count), "error" a vote too; a tie for first: none.
            let mut counts: HashMap<Option<i64>, usize> = HashMap::new();
            for v in votes {
                *counts.entry(*v).or_default() += 1;
            }
            let most = *counts.values().max()?;
            let firsts: Vec<Option<i64>> = counts
                .iter()
                .filter(|(_, c)| **c == most)
                .map(|(v, _)| *v)
                .collect();
            match firsts[..] {
                [one] => one,
                _ => None,
            }
        }
        other => panic!("no rule {other}"),
    }
}

/// Each configuration's rating per item id, from ratings.parquet.
fn ratings_by_config(dir: &Path) -> HashMap<String, HashMap<String, Option<i64>>> {
    let config = ratings_strings(dir, "config");
    let id = ratings_strings(dir, "id");
    let rating = ratings_strings(dir, "rating");
    let mut out: HashMap<String, HashMap<String, Option<i64>>> = HashMap::new();
    for ((c, i), r) in config.into_iter().zip(id).zip(rating) {
        out.entry(c.expect("config")).or_default().insert(
            i.expect("id"),
            r.map(|x| x.parse().expect("an integer rating")),
        );
    }
    out
}

/// Checks every jury of a run document against `expected` over its members' ratings; returns
/// (jury name, items without a verdict) per jury.
fn check_juries(doc: &Value, dir: &Path) -> Vec<(String, usize)> {
    let by = ratings_by_config(dir);
    let gold = golds(dir);
    // ratings.csv's member_votes by (configuration, item).
    let shown_votes: HashMap<(String, String), Option<String>> = ratings_strings(dir, "config")
        .into_iter()
        .zip(ratings_strings(dir, "id"))
        .zip(ratings_strings(dir, "member_votes"))
        .map(|((c, i), v)| ((c.expect("config"), i.expect("id")), v))
        .collect();
    let mut out = Vec::new();
    for c in doc["configs"].as_array().expect("configs") {
        let Some(j) = c.get("jury") else { continue };
        let name = c["name"].as_str().expect("name");
        let members: Vec<&str> = j["members"]
            .as_array()
            .expect("members")
            .iter()
            .map(|m| m.as_str().expect("a name"))
            .collect();
        let weights: Vec<f64> = j["weights"]
            .as_array()
            .expect("weights")
            .iter()
            .map(|w| w.as_f64().expect("a weight"))
            .collect();
        let vote = j["vote"].as_str().expect("vote");
        let mine = &by[name];
        let mut undecided = 0;
        let (mut oracle, mut calls) = (0, 0);
        for (id, got) in mine {
            let votes: Vec<Option<i64>> = members.iter().map(|m| by[*m][id]).collect();
            assert_eq!(
                *got,
                expected(vote, &votes, &weights),
                "{name} on {id}: members {votes:?}"
            );
            undecided += usize::from(got.is_none());
            oracle += usize::from(votes.contains(&Some(gold[id])));
            // ratings.csv shows each member's vote on the jury's row.
            let shown: Vec<String> = votes
                .iter()
                .map(|v| v.map_or("-".to_string(), |x| x.to_string()))
                .collect();
            assert_eq!(
                shown_votes[&(name.to_string(), id.clone())].as_deref(),
                Some(shown.join(",").as_str())
            );
        }
        assert_eq!(
            j["no_majority"].as_u64().expect("count") + j["no_votes"].as_u64().expect("count"),
            undecided as u64,
            "{name}"
        );
        assert_eq!(j["oracle_items"].as_u64(), Some(oracle as u64), "{name}");
        // A jury costs what its members cost, and makes no call of its own.
        for m in &members {
            let member = doc["configs"]
                .as_array()
                .expect("configs")
                .iter()
                .find(|x| x["name"] == *m)
                .expect("the member");
            calls += member["cost"]["calls"].as_u64().expect("calls");
        }
        assert_eq!(c["cost"]["calls"].as_u64(), Some(calls), "{name}");
        out.push((name.to_string(), undecided));
    }
    out
}

/// Each item's gold label, from ratings.parquet.
fn golds(dir: &Path) -> HashMap<String, i64> {
    ratings_strings(dir, "id")
        .into_iter()
        .zip(ratings_strings(dir, "gold"))
        .map(|(i, g)| (i.expect("id"), g.expect("gold").parse().expect("a label")))
        .collect()
}

/// Four judges behind one server, told apart by model; `gamma` fails some items for good,
/// `delta` answers some unreadably, and every 11th request fails once with 503 (retried).
fn judges_server(requests: Arc<AtomicUsize>) -> MockServer {
    MockServer::start(move |r| {
        let n = requests.fetch_add(1, Ordering::SeqCst) + 1;
        if n % 11 == 0 {
            return Reply::status(503, "{\"error\": {\"message\": \"busy\"}}");
        }
        let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        let text = user_text(r);
        let h = text.len();
        let pick = |k: usize| ["[[A]]", "[[B]]", "[[C]]"][k % 3];
        match body["model"].as_str().unwrap_or("") {
            "alpha" => completion(pick(h)),
            "beta" => completion(pick(h / 3)),
            "gamma" if h % 5 == 0 => Reply::status(
                400,
                "{\"error\": {\"message\": \"context length exceeded\"}}",
            ),
            "gamma" => completion(pick(2 * (h / 7 % 2))),
            "delta" if h % 4 == 0 => completion("I cannot tell which is better."),
            _ => completion(pick(h / 5)),
        }
    })
}

#[test]
fn every_vote_rule_equals_an_independent_count_with_failed_and_unreadable_members() {
    let requests = Arc::new(AtomicUsize::new(0));
    let server = judges_server(requests.clone());
    let dir = tempfile::tempdir().expect("tempdir");
    let mut experiment = String::from("prompts = [\"simple_with_tie\"]\n");
    for model in ["alpha", "beta", "gamma", "delta"] {
        experiment.push_str(&format!(
            "[[judge]]\nlabel = \"{model}\"\nendpoint = \"{}/v1\"\nmodel = \"{model}\"\n",
            server.url
        ));
    }
    experiment.push_str(
        "[[jury]]\nname = \"poll\"\nmembers = [\"alpha\", \"beta\", \"gamma\"]\n\
         [[jury]]\nname = \"four\"\nmembers = [\"alpha\", \"beta\", \"gamma\", \"delta/simple_with_tie/basic\"]\nweights = [1, 1, 1, 1.5]\n",
    );
    let config = dir.path().join("exp.toml");
    std::fs::write(&config, experiment).expect("experiment");
    let cache = dir.path().join("cache");
    let out = dir.path().join("run");
    let args = |out: &Path| -> Vec<String> {
        [
            "calibrate",
            "--config",
            config.to_str().expect("utf-8"),
            "--jury",
            "all:unanimous=alpha,beta,delta",
            "--jury",
            "rb:reward-bench=alpha,beta,gamma",
            "--jury",
            "avg:mean=alpha,gamma,delta",
            "--cache-dir",
            cache.to_str().expect("utf-8"),
            "--retries",
            "2",
            "--retry-base-ms",
            "5",
            "--bootstrap",
            "50",
            "--out",
            out.to_str().expect("utf-8"),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let first: Vec<String> = args(&out);
    let doc = json_of(&first.iter().map(String::as_str).collect::<Vec<_>>());
    let configs = doc["configs"].as_array().expect("configs");
    assert_eq!(configs.len(), 4 + 5, "four members and five juries");
    let juries = check_juries(&doc, &out);
    let names: Vec<&str> = juries.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "poll/simple_with_tie/basic",
            "four/simple_with_tie/basic",
            "all/simple_with_tie/basic",
            "rb/simple_with_tie/basic",
            "avg/simple_with_tie/basic"
        ]
    );
    // Every rule met its undecided case on these answers (ties of votes, failed members).
    for (name, undecided) in &juries {
        assert!(
            *undecided > 0,
            "{name} decided every item: the test misses a case"
        );
    }
    let poll = &configs[4]["jury"];
    assert!(
        poll["abstained"]["gamma/simple_with_tie/basic"]
            .as_u64()
            .expect("count")
            > 0
    );
    assert_eq!(poll["subsets"].as_array().map(Vec::len), Some(7));
    assert_eq!(poll["versus_members"].as_array().map(Vec::len), Some(3));
    // The juries made no request: the server saw the members' calls and the retried faults.
    let member_calls: u64 = configs[..4]
        .iter()
        .map(|c| c["cost"]["calls"].as_u64().expect("calls"))
        .sum();
    let seen = requests.load(Ordering::SeqCst) as u64;
    assert!(seen >= member_calls && seen <= member_calls + member_calls / 10 + 2 + 20);
    // The same command offline: from the cache, the same juries.
    let again = dir.path().join("again");
    let mut offline = args(&again);
    offline.push("--offline".into());
    let before = requests.load(Ordering::SeqCst);
    let (code, stdout, err) = run(&offline
        .iter()
        .map(String::as_str)
        .chain(["--json"])
        .collect::<Vec<_>>());
    // Items whose call failed for good are not in the cache: --offline says so (exit 2)
    // after writing the run directory.
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not in the cache"), "{err}");
    assert!(stdout.is_empty() || serde_json::from_str::<Value>(&stdout).is_ok());
    assert_eq!(
        requests.load(Ordering::SeqCst),
        before,
        "offline sends nothing"
    );
    let doc2 = json_of(&["report", again.to_str().expect("utf-8")]);
    for k in 4..9 {
        assert_eq!(
            doc2["configs"][k]["jury"], doc["configs"][k]["jury"],
            "jury {k} offline"
        );
    }
    // report DIR rebuilds the juries from the run directory alone.
    let back = json_of(&["report", out.to_str().expect("utf-8")]);
    for k in 0..9 {
        assert_eq!(back["configs"][k]["jury"], doc["configs"][k]["jury"]);
        assert_eq!(back["configs"][k]["overall"], doc["configs"][k]["overall"]);
    }
}

#[test]
fn a_jury_names_real_members_and_votes_by_a_known_rule() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["--jury", "poll=nobody,sim"],
            "member 'nobody' is neither a configuration nor a judge label",
        ),
        (&["--jury", "poll:best=a,b"], "unknown jury vote 'best'"),
        (&["--jury", "poll"], "is not NAME[:VOTE]=MEMBER,MEMBER"),
        (
            &["--jury", "poll=simple_with_tie/basic"],
            "a jury needs at least two",
        ),
    ];
    for (flags, want) in cases {
        let mut args = vec!["calibrate", "--judge", "sim", "--data", "sample"];
        args.extend(flags);
        let err = crate::common::error_of(&args);
        assert!(err.contains(want), "{flags:?}: {err}");
    }
}

/// LLMBar's reading of each recorded answer by the texts shown: -1, 1 or None.
fn llmbar_readings(shared: &Path, judge: &str) -> HashMap<(String, String), Option<i64>> {
    crate::llmbar_replay::recorded(shared, judge)
        .into_iter()
        .map(|(v, winner)| {
            let text = |k: &str| v[k].as_str().expect("text").to_string();
            ((text("response1"), text("response2")), winner)
        })
        .collect()
}

#[test]
fn a_jury_of_three_recorded_llmbar_judges_is_their_majority_by_llmbars_own_reading() {
    let Some(shared) = shared_data() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let judges = ["GPT-4-Vanilla", "PaLM2-CoT", "ChatGPT-0301-CoT"];
    // Each judge read as LLMBar read it: its own patterns, as TOML templates (PaLM2-CoT by the
    // Vanilla pattern, as LLMBar read it); the members are configurations named in full.
    let template = |name: &str| {
        crate::common::root()
            .join(format!("examples/prompts/{name}.toml"))
            .display()
            .to_string()
    };
    let mut experiment = String::from(
        "[[jury]]\nname = \"poll\"\nmembers = [\"GPT-4-Vanilla/llmbar-vanilla/basic\", \"PaLM2-CoT/llmbar-vanilla/basic\", \"ChatGPT-0301-CoT/llmbar-cot/basic\"]\n",
    );
    // Each judge under its own prompt (a `[[judge]]`'s `prompts`): no cross configuration.
    for (j, prompt) in judges
        .iter()
        .zip(["llmbar-vanilla", "llmbar-vanilla", "llmbar-cot"])
    {
        experiment.push_str(&format!(
            "[[judge]]\nlabel = \"{j}\"\njudge = \"replay:{}\"\nprompts = [{:?}]\n",
            shared.join(format!("llmbar/judges/{j}.jsonl")).display(),
            template(prompt)
        ));
    }
    let config = dir.path().join("exp.toml");
    std::fs::write(&config, experiment).expect("experiment");
    let out = dir.path().join("run");
    let doc = json_of(&[
        "calibrate",
        "--config",
        config.to_str().expect("utf-8"),
        "--data",
        shared
            .join("llmbar/llmbar-reward-bench-schema.parquet")
            .to_str()
            .expect("utf-8"),
        "--both-orders",
        "--bootstrap",
        "200",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert_eq!(
        doc["configs"].as_array().map(Vec::len),
        Some(4),
        "three judges and the jury"
    );
    check_juries(&doc, &out);
    // The majority of LLMBar's own readings of the same answers, item by item.
    let readings: Vec<_> = judges.iter().map(|j| llmbar_readings(&shared, j)).collect();
    let items: HashMap<String, (String, String, i64)> =
        std::fs::read_to_string(out.join("items.jsonl"))
            .expect("items")
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("JSON");
                let s = |k: &str| v[k].as_str().expect("text").to_string();
                (s("id"), (s("response1"), s("response2"), 0))
            })
            .collect();
    let by = ratings_by_config(&out);
    let gold = golds(&out);
    let jury = &by["poll"];
    let (mut right, mut decided, mut no_majority) = (0usize, 0usize, 0usize);
    for (id, (r1, r2, _)) in &items {
        let votes: Vec<Option<i64>> = readings
            .iter()
            .map(|r| r[&(r1.clone(), r2.clone())])
            .collect();
        let want = expected("majority", &votes, &[1.0; 3]);
        assert_eq!(jury[id], want, "{id}: {votes:?}");
        match want {
            Some(v) => {
                decided += 1;
                right += usize::from(v == gold[id]);
            }
            None => no_majority += 1,
        }
    }
    let c = doc["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .find(|c| c.get("jury").is_some())
        .expect("the jury");
    assert_eq!(c["jury"]["no_majority"].as_u64(), Some(no_majority as u64));
    let accuracy = c["overall"]["accuracy"].as_f64().expect("accuracy");
    assert!((accuracy - right as f64 / decided as f64).abs() < 1e-12);
    // The answer's first lines name the jury against its best member, with the verdict.
    let (code, terminal, err) = run(&["report", out.to_str().expect("utf-8")]);
    assert_eq!(code, 0, "{err}");
    let head: String = terminal.lines().take(12).collect::<Vec<_>>().join(" ");
    assert!(
        head.contains("Jury poll (majority vote, 3 members): accuracy")
            && head.contains("against its best member GPT-4-Vanilla/llmbar-vanilla/basic")
            && head.contains("the member is better"),
        "{terminal}"
    );
    // The paired difference is over the items both rated, fewer than the jury's accuracy
    // counts when some are undecided; the line says so (not "jury − member" over all).
    assert!(decided < 838, "some items are undecided");
    assert!(
        head.contains(&format!("on the {decided} items both rated")),
        "{terminal}"
    );
    // The paired verdict against each member is the run's Holm-adjusted comparison.
    let versus = c["jury"]["versus_members"].as_array().expect("versus");
    assert_eq!(versus.len(), 3);
    for v in versus {
        let member = v["member"].as_str().expect("member");
        let cmp = doc["comparisons"]
            .as_array()
            .expect("comparisons")
            .iter()
            .find(|x| {
                (x["a"] == member && x["b"] == c["name"])
                    || (x["b"] == member && x["a"] == c["name"])
            })
            .expect("the comparison");
        let sign = if cmp["b"] == c["name"] { 1.0 } else { -1.0 };
        let (run, jury) = (
            crate::common::paired(cmp, "accuracy"),
            crate::common::paired(v, "accuracy"),
        );
        // The jury is B against each member (A).
        assert_eq!((&jury["a"], &jury["b"]), (&v["member"], &c["name"]));
        let diff = run["diff"].as_f64().expect("diff");
        assert!((jury["diff"].as_f64().expect("diff") - sign * diff).abs() < 1e-15);
        assert_eq!(jury["p_holm"], run["p_holm"]);
    }
}

/// RewardBench 2 rows: a jury's pick is its members' strict majority, its grades their mean
/// (items.jsonl, slot by slot), and `report DIR` scores it the same way.
#[test]
fn a_jury_on_rewardbench2_rows_votes_picks_and_averages_grades() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("rb2");
    let doc = json_of(&crate::common::rb2_poll(out.to_str().expect("utf-8"), "50"));
    let names: Vec<&str> = doc["configs"]
        .as_array()
        .expect("configs")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect();
    assert_eq!(
        names[6..],
        ["poll/rb2_ranking/basic", "poll/rb2_rating/basic"]
    );
    let (mut no_pick, mut rows) = (0, 0);
    for line in std::fs::read_to_string(out.join("items.jsonl"))
        .expect("items")
        .lines()
    {
        let row: Value = serde_json::from_str(line).expect("JSON");
        let result = |config: &str| -> Value {
            row["results"]
                .as_array()
                .expect("results")
                .iter()
                .find(|r| r["config"] == config)
                .cloned()
                .expect("a result")
        };
        let of = |prompt: &str| -> Vec<Value> {
            ["s1", "s2", "s3"]
                .iter()
                .map(|m| result(&format!("{m}/{prompt}/basic")))
                .collect()
        };
        let picks: Vec<Option<i64>> = of("rb2_ranking")
            .iter()
            .map(|r| r["pick"].as_i64())
            .collect();
        let want = expected("majority", &picks, &[1.0; 3]);
        assert_eq!(
            result("poll/rb2_ranking/basic")["pick"].as_i64(),
            want,
            "{}",
            row["id"]
        );
        no_pick += usize::from(want.is_none());
        rows += 1;
        let graded = of("rb2_rating");
        let jury = result("poll/rb2_rating/basic");
        for slot in 0..4 {
            let present: Vec<f64> = graded
                .iter()
                .filter_map(|r| r["grades"][slot].as_f64())
                .collect();
            let mean =
                (!present.is_empty()).then(|| present.iter().sum::<f64>() / present.len() as f64);
            let got = jury["grades"][slot].as_f64();
            assert!(
                match (got, mean) {
                    (Some(a), Some(b)) => (a - b).abs() < 1e-12,
                    (a, b) => a.is_none() && b.is_none(),
                },
                "{} slot {slot}: {got:?} vs {mean:?}",
                row["id"]
            );
        }
    }
    assert!(
        no_pick > 0 && no_pick < rows,
        "the picks split on some rows, not all"
    );
    let back = json_of(&["report", out.to_str().expect("utf-8")]);
    assert_eq!(back["configs"], doc["configs"]);
}

/// A jury of two reward models (JudgeBench's published outputs, as `scores:FILE` judges)
/// under `mean`: each response's grade is the two models' mean score, compared as one
/// pointwise judge; checked pair by pair against the mean computed here.
#[test]
fn a_mean_jury_of_reward_models_compares_their_mean_scores() {
    let Some(shared) = shared_data() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let outputs = shared.join("judgebench/outputs");
    let models = [
        "Skywork_Skywork-Reward-Llama-3.1-8B",
        "internlm_internlm2-7b-reward",
    ];
    let file = |m: &str| {
        outputs.join(format!(
            "dataset=judgebench,response_model=gpt-4o-2024-05-13,judge_name=reward_model,judge_model={m}.jsonl"
        ))
    };
    let pairs = |m: &str| -> Vec<Value> {
        std::fs::read_to_string(file(m))
            .expect("outputs")
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect()
    };
    // Each model's score of each response (by pair and side), and a scores file of its own.
    let mut scores: Vec<HashMap<(String, String), f64>> = Vec::new();
    let mut experiment = String::from(
        "[[jury]]\nname = \"rm\"\nvote = \"mean\"\nmembers = [\"skywork\", \"internlm\"]\n",
    );
    for (m, label) in models.iter().zip(["skywork", "internlm"]) {
        let mut lines = String::new();
        let mut by = HashMap::new();
        for p in pairs(m) {
            let s = &p["judgments"][0]["judgment"]["scores"];
            for (side, key) in [(0, "response_A"), (1, "response_B")] {
                let score = s[side].as_f64().expect("a score");
                let text = |k: &str| p[k].as_str().expect("text").to_string();
                by.insert((text("question"), text(key)), score);
                lines.push_str(&format!(
                    "{}\n",
                    serde_json::json!({"prompt": p["question"], "response": p[key], "score": score})
                ));
            }
        }
        let path = dir.path().join(format!("{label}.jsonl"));
        std::fs::write(&path, lines).expect("scores");
        experiment.push_str(&format!(
            "[[judge]]\nlabel = \"{label}\"\njudge = \"scores:{}\"\n",
            path.display()
        ));
        scores.push(by);
    }
    let config = dir.path().join("exp.toml");
    std::fs::write(&config, experiment).expect("experiment");
    let out = dir.path().join("run");
    let doc = json_of(&[
        "calibrate", "--config", config.to_str().expect("utf-8"),
        "--data", file(models[0]).to_str().expect("utf-8"),
        "--map", "prompt=question,response1=response_A,response2=response_B,label=label,id=pair_id,subset=source",
        "--gold-map", "A>B=-1", "--gold-map", "B>A=1",
        "--no-cache", "--bootstrap", "0", "--out", out.to_str().expect("utf-8"),
    ]);
    assert_eq!(doc["configs"][2]["name"], "rm/scores/basic");
    let by = ratings_by_config(&out);
    let jury = &by["rm/scores/basic"];
    let (mut checked, mut ties) = (0, 0);
    for line in std::fs::read_to_string(out.join("items.jsonl"))
        .expect("items")
        .lines()
    {
        let item: Value = serde_json::from_str(line).expect("JSON");
        let text = |k: &str| item[k].as_str().expect("text").to_string();
        let mean = |r: &str| {
            let key = (text("prompt"), text(r));
            (scores[0][&key] + scores[1][&key]) / 2.0
        };
        let (g1, g2) = (mean("response1"), mean("response2"));
        let want = if g2 > g1 {
            1
        } else if g2 < g1 {
            -1
        } else {
            0
        };
        ties += usize::from(want == 0);
        assert_eq!(
            jury[&text("id")],
            Some(want),
            "{}: {g1} vs {g2}",
            text("id")
        );
        checked += 1;
    }
    assert!(checked > 300, "every pair of the file: {checked}");
    assert_eq!(
        doc["configs"][2]["counts"]["ties"].as_u64(),
        Some(ties as u64)
    );
}
