//! Corrected estimates equal their authors' code (tests/fixtures/generate_ppi_fixtures.py):
//! ppi_py's classical, PPI and PPI++ intervals on its README's galaxies and on the Arena
//! battles with GPT-3.5-turbo as the judge, Lee et al.'s Rogan–Gladen interval and
//! allocation, and Chatzi et al.'s prediction-powered ranking of the 12 models.

use crate::common::{fixture, shared_data};
use raterlab::metrics::ppi::{
    allocate, classical_mean_ci, ppi_lambda, ppi_mean_ci, rogan_gladen, rogan_gladen_ci,
};
use raterlab::metrics::ppr::{estimate, lambda, rank_sets, sample_avg, Battle, Per, Rates, Sets};
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

const TOL: f64 = 1e-9;

fn close(got: f64, want: &Value, what: &str) {
    let want = want.as_f64().unwrap_or(f64::NAN);
    assert!((got - want).abs() < TOL, "{what}: {got} vs {want}");
}

fn pair(got: (f64, f64), want: &Value, what: &str) {
    close(got.0, &want[0], what);
    close(got.1, &want[1], what);
}

/// A float array of a stored (uncompressed) .npz member, as NumPy writes it: '<f8' or '<i8'.
fn npz_member(path: &Path, name: &str) -> Vec<f64> {
    let bytes = std::fs::read(path).expect("npz");
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]) as usize;
    let u32_at =
        |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes")) as usize;
    let mut at = 0;
    while bytes[at..at + 4] == *b"PK\x03\x04" {
        assert_eq!(
            u16_at(at + 8),
            0,
            "the .npz member is stored, not compressed"
        );
        let size = u32_at(at + 18);
        let (name_len, extra_len) = (u16_at(at + 26), u16_at(at + 28));
        let member = std::str::from_utf8(&bytes[at + 30..at + 30 + name_len]).expect("name");
        let data = &bytes[at + 30 + name_len + extra_len..][..size];
        if member == name {
            assert_eq!(&data[..6], b"\x93NUMPY");
            let header_len = u16::from_le_bytes([data[8], data[9]]) as usize;
            let header = std::str::from_utf8(&data[10..10 + header_len]).expect("header");
            let body = &data[10 + header_len..];
            return body
                .chunks_exact(8)
                .map(|c| {
                    let b: [u8; 8] = c.try_into().expect("8 bytes");
                    if header.contains("'<f8'") {
                        f64::from_le_bytes(b)
                    } else {
                        assert!(header.contains("'<i8'"), "{header}");
                        i64::from_le_bytes(b) as f64
                    }
                })
                .collect();
        }
        at += 30 + name_len + extra_len + size;
    }
    panic!("{name} is not in {}", path.display());
}

fn fixture_doc() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture("ppi.json")).expect("ppi.json"))
        .expect("JSON")
}

fn means(y: &[f64], yhat: &[f64], unlabelled: &[f64], want: &Value) {
    let alpha = want["alpha"].as_f64().expect("alpha");
    let what = format!("α = {alpha}");
    pair(
        classical_mean_ci(y, alpha).ci,
        &want["humans"],
        &format!("humans {what}"),
    );
    pair(
        ppi_mean_ci(y, yhat, unlabelled, 1.0, alpha).ci,
        &want["ppi"],
        &format!("PPI {what}"),
    );
    let lam = ppi_lambda(y, yhat, unlabelled);
    close(lam, &want["lambda"], &format!("λ {what}"));
    pair(
        ppi_mean_ci(y, yhat, unlabelled, lam, alpha).ci,
        &want["ppi_plus"],
        &format!("PPI++ {what}"),
    );
}

#[test]
fn ppi_py_readme_galaxies_interval() {
    let Some(shared) = shared_data() else {
        return;
    };
    let doc = fixture_doc();
    let g = &doc["galaxies"];
    let path = shared.join("ppi/galaxies.npz");
    let (y_all, yhat_all) = (npz_member(&path, "Y.npy"), npz_member(&path, "Yhat.npy"));
    let labelled: Vec<usize> = g["labelled"]
        .as_array()
        .expect("labelled")
        .iter()
        .map(|v| v.as_u64().expect("index") as usize)
        .collect();
    let y: Vec<f64> = labelled.iter().map(|&i| y_all[i]).collect();
    let yhat: Vec<f64> = labelled.iter().map(|&i| yhat_all[i]).collect();
    means(&y, &yhat, &yhat_all[1000..], g);
    // The README's printed interval.
    let ci = ppi_mean_ci(
        &y,
        &yhat,
        &yhat_all[1000..],
        ppi_lambda(&y, &yhat, &yhat_all[1000..]),
        0.1,
    )
    .ci;
    assert!(
        (ci.0 - 0.2322466630315982).abs() < TOL && (ci.1 - 0.2626038799812829).abs() < TOL,
        "{ci:?}"
    );
}

/// The Arena battles: (human winner, judge winner, model_a, model_b) in file order.
fn arena(shared: &Path) -> Vec<(String, String, String, String)> {
    let read = |name: &str| -> Vec<Value> {
        std::fs::read_to_string(shared.join("arena-ppr").join(name))
            .expect("battles")
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON line"))
            .collect()
    };
    let (human, judge) = (read("human.json"), read("gpt-3.5-turbo.json"));
    human
        .iter()
        .zip(&judge)
        .map(|(h, j)| {
            let s = |v: &Value, k: &str| v[k].as_str().expect("text").to_string();
            (
                s(h, "winner"),
                s(j, "winner"),
                s(h, "model_a"),
                s(h, "model_b"),
            )
        })
        .collect()
}

#[test]
fn arena_means_rogan_gladen_and_allocation_equal_their_authors_code() {
    let Some(shared) = shared_data() else {
        return;
    };
    let doc = fixture_doc();
    let a = &doc["arena"];
    let battles = arena(&shared);
    let every = a["every"].as_u64().expect("every") as usize;
    let won = |w: &str| f64::from(u8::from(w == "model_a"));
    let (mut y, mut yhat, mut unl) = (Vec::new(), Vec::new(), Vec::new());
    for (i, (h, j, _, _)) in battles.iter().enumerate() {
        if i % every == 0 {
            y.push(won(h));
            yhat.push(won(j));
        } else {
            unl.push(won(j));
        }
    }
    assert_eq!((y.len(), unl.len()), (1077, 25842));
    for m in a["means"].as_array().expect("means") {
        means(&y, &yhat, &unl, m);
    }
    let p = unl.iter().sum::<f64>() / unl.len() as f64;
    let positives: Vec<f64> = y
        .iter()
        .zip(&yhat)
        .filter(|p| *p.0 == 1.0)
        .map(|p| *p.1)
        .collect();
    let negatives: Vec<f64> = y
        .iter()
        .zip(&yhat)
        .filter(|p| *p.0 == 0.0)
        .map(|p| *p.1)
        .collect();
    let q1 = positives.iter().sum::<f64>() / positives.len() as f64;
    let q0 = 1.0 - negatives.iter().sum::<f64>() / negatives.len() as f64;
    for r in a["rogan_gladen"].as_array().expect("rogan_gladen") {
        close(q0, &r["specificity"], "specificity");
        close(q1, &r["sensitivity"], "sensitivity");
        close(rogan_gladen(p, q0, q1), &r["estimate"], "Rogan–Gladen");
        let alpha = r["alpha"].as_f64().expect("alpha");
        let ci = rogan_gladen_ci(
            p,
            q0,
            q1,
            (unl.len(), negatives.len(), positives.len()),
            alpha,
        );
        pair(ci, &r["ci"], "Rogan–Gladen interval");
    }
    for c in a["allocation"].as_array().expect("allocation") {
        let n = |k: &str| c[k].as_u64().expect("count") as usize;
        let x = |k: &str| c[k].as_f64().expect("number");
        let got = allocate(n("m"), x("p"), x("q0"), x("q1"), n("pilot"));
        let want = (
            c["split"][0].as_u64().expect("m0") as usize,
            c["split"][1].as_u64().expect("m1") as usize,
        );
        assert_eq!(got, want, "{c}");
    }
}

#[test]
fn arena_ranking_equals_prediction_powered_ranking() {
    let Some(shared) = shared_data() else {
        return;
    };
    let doc = fixture_doc();
    let s = &doc["systems"];
    let models: Vec<&str> = s["models"]
        .as_array()
        .expect("models")
        .iter()
        .map(|m| m.as_str().expect("name"))
        .collect();
    let index: HashMap<&str, usize> = models.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let label = |w: &str| match w {
        "model_a" => -1,
        "model_b" => 1,
        _ => 0,
    };
    let (mut humans, mut judge_labelled, mut unlabelled, mut judge_all) =
        (vec![], vec![], vec![], vec![]);
    for (i, (h, j, a, b)) in arena(&shared).iter().enumerate() {
        let (Some(&a), Some(&b)) = (index.get(a.as_str()), index.get(b.as_str())) else {
            continue;
        };
        let judged = Battle::of_label(a, b, label(j));
        judge_all.push(judged);
        if i % 25 == 0 {
            humans.push(Battle::of_label(a, b, label(h)));
            judge_labelled.push(judged);
        } else {
            unlabelled.push(judged);
        }
    }
    assert_eq!((judge_all.len(), humans.len()), (14947, 633));
    let k = models.len();
    let sets = Sets {
        humans: &humans,
        judge: &judge_labelled,
        unlabelled: &unlabelled,
    };
    let lam = lambda(k, sets);
    close(lam, &s["lambda"], "λ");
    let check = |rates: &Rates, want: &Value, what: &str| {
        for (i, (t, se)) in rates.theta.iter().zip(rates.se()).enumerate() {
            close(*t, &want["win_rate"][i], &format!("{what} {}", models[i]));
            close(se, &want["se"][i], &format!("{what} se {}", models[i]));
        }
        for alpha in ["0.05", "0.1"] {
            let got = rank_sets(rates, alpha.parse().expect("α"));
            let want: Vec<[usize; 2]> =
                serde_json::from_value(want["rank_sets"][alpha].clone()).expect("rank sets");
            assert_eq!(got, want, "{what} at α = {alpha}");
        }
    };
    let theirs = Per::AllBattles;
    check(&sample_avg(k, &humans, theirs), &s["humans"], "humans");
    check(&sample_avg(k, &judge_all, theirs), &s["judge"], "judge");
    check(&estimate(k, sets, lam, theirs), &s["ppr"], "PPR");
    // Each model's own battles: the same win rates, each standard error the authors' over the
    // model's share of the battles.
    let own = sample_avg(k, &humans, Per::ModelBattles);
    let share = |i: usize| {
        humans.iter().filter(|b| b.a == i || b.b == i).count() as f64 / humans.len() as f64
    };
    for (i, (t, se)) in own.theta.iter().zip(own.se()).enumerate() {
        close(*t, &s["humans"]["win_rate"][i], "win rate");
        close(se * share(i), &s["humans"]["se"][i], "the share's factor");
    }
}

/// ppi_py's galaxies: every galaxy's label and the model's probability, and which 1,000 are
/// labelled (the fixture's draw).
fn galaxies(shared: &Path) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    let path = shared.join("ppi/galaxies.npz");
    let labelled = fixture_doc()["galaxies"]["labelled"]
        .as_array()
        .expect("labelled")
        .iter()
        .map(|i| i.as_u64().expect("index") as usize)
        .collect();
    (
        npz_member(&path, "Y.npy"),
        npz_member(&path, "Yhat.npy"),
        labelled,
    )
}

/// `analyze --estimate`'s galaxies: 1,000 labelled, 15,743 not, and ppi_py's README interval.
fn the_readmes_interval(e: &Value, what: &str) {
    assert_eq!(
        (e["n_labelled"].as_u64(), e["n_unlabelled"].as_u64()),
        (Some(1000), Some(15743))
    );
    pair(
        (
            e["mean"]["ppi_plus"]["ci"][0].as_f64().expect("lo"),
            e["mean"]["ppi_plus"]["ci"][1].as_f64().expect("hi"),
        ),
        &serde_json::json!([0.2322466630315982, 0.2626038799812829]),
        what,
    );
}

/// The galaxies through `analyze --estimate`: a rating column of probabilities is used as it
/// is, and the command prints ppi_py's README interval.
#[test]
fn analyze_estimates_the_galaxies_from_probabilities() {
    let Some(shared) = shared_data() else {
        return;
    };
    let (y, yhat, labelled) = galaxies(&shared);
    let mut csv = String::from("gold,rating\n");
    for &i in &labelled {
        csv.push_str(&format!("{},{:?}\n", y[i] as i64, yhat[i]));
    }
    for v in &yhat[1000..] {
        csv.push_str(&format!(",{v:?}\n"));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let file = crate::common::write(dir.path(), "galaxies.csv", &csv);
    let out = crate::common::json_of(&[
        "analyze",
        "--input",
        file.to_str().expect("utf-8"),
        "--estimate",
        "--estimate-label",
        "1",
        "--alpha",
        "0.1",
        "--bootstrap",
        "0",
    ]);
    let e = &out["estimate"];
    the_readmes_interval(e, "the README's interval through the command");
    assert!(e["mean"]["rogan_gladen"].is_null());
    assert!(e["notes"].to_string().contains("these ratings are numbers"));
}

/// The galaxies as two files joined on their ids (the gold file holds the 1,000 labelled
/// galaxies, the ratings file every galaxy's probability): the same interval as one file.
#[test]
fn analyze_estimates_the_galaxies_from_two_files() {
    let Some(shared) = shared_data() else {
        return;
    };
    let (y, yhat, labelled) = galaxies(&shared);
    // The gold file lists its galaxies in another order than the ratings file.
    let mut gold = String::from("id,gold\n");
    for &i in labelled.iter().rev() {
        gold.push_str(&format!("g{i},{}\n", y[i] as i64));
    }
    let mut ratings = String::from("id,rating\n");
    for &i in &labelled {
        ratings.push_str(&format!("g{i},{:?}\n", yhat[i]));
    }
    for (k, v) in yhat[1000..].iter().enumerate() {
        ratings.push_str(&format!("u{k},{v:?}\n"));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let gold = crate::common::write(dir.path(), "gold.csv", &gold);
    let ratings = crate::common::write(dir.path(), "ratings.csv", &ratings);
    let out = crate::common::json_of(&[
        "analyze",
        "--gold",
        gold.to_str().expect("utf-8"),
        "--ratings",
        ratings.to_str().expect("utf-8"),
        "--estimate",
        "--estimate-label",
        "1",
        "--alpha",
        "0.1",
        "--bootstrap",
        "0",
    ]);
    the_readmes_interval(&out["estimate"], "the README's interval from two files");
}
