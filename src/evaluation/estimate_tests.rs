use super::*;
use rand::Rng;

fn settings(label: i64) -> EstimateSettings {
    EstimateSettings { label, alpha: 0.05 }
}

/// Gold -1/1 with P(-1) = `rate`; the judge right with probability `right`; the first `n`
/// items labelled.
fn items(total: usize, n: usize, rate: f64, right: f64, seed: u64) -> Vec<Item> {
    let mut rng =
        crate::metrics::random::stream(seed, crate::metrics::random::Purpose::Simulation, 0);
    (0..total)
        .map(|i| {
            let gold = if rng.random_bool(rate) { -1 } else { 1 };
            let judge = if rng.random_bool(right) { gold } else { -gold };
            Item::label((i < n).then_some(gold), judge)
        })
        .collect()
}

#[test]
fn every_method_is_given_with_its_interval_and_the_judges_worth() {
    let e = estimate(&items(5000, 300, 0.3, 0.85, 1), settings(-1));
    assert_eq!((e.n_labelled, e.n_unlabelled), (300, 4700));
    let m = &e.mean;
    for i in [m.judge, m.humans, m.ppi].into_iter().flatten() {
        assert!(i.ci[0] <= i.estimate && i.estimate <= i.ci[1]);
    }
    let plus = m.ppi_plus.expect("PPI++");
    assert!((0.0..=1.0).contains(&plus.lambda));
    // The judge adds information: PPI++ is narrower than the humans alone, and worth more
    // human labels than were given.
    let humans = m.humans.expect("humans");
    assert!(plus.interval.ci[1] - plus.interval.ci[0] < humans.ci[1] - humans.ci[0]);
    assert!(e.worth.expect("worth") > 300.0);
    let rg = m.rogan_gladen.expect("Rogan–Gladen");
    assert!(rg.sensitivity > 0.7 && rg.specificity > 0.7 && !rg.clipped);
    // The judge alone is biased towards ½ by its errors: 0.3·0.85 + 0.7·0.15 = 0.36.
    assert!((m.judge.expect("judge").estimate - 0.36).abs() < 0.03);
    assert!(e.notes.is_empty(), "{:?}", e.notes);
    assert!(!e.disagree);
}

#[test]
fn edge_cases_give_what_can_be_given_and_say_why_not_the_rest() {
    // No labelled item: the judge alone.
    let none = estimate(&items(100, 0, 0.3, 0.8, 2), settings(-1));
    assert!(none.mean.judge.is_some() && none.mean.humans.is_none() && none.mean.ppi.is_none());
    assert!(none.mean.rogan_gladen.is_none() && none.worth.is_none());
    assert!(none.notes[0].contains("no item has a gold label"));
    // No unlabelled item: the humans and the judge, nothing combined.
    let all = estimate(&items(100, 100, 0.3, 0.8, 3), settings(-1));
    assert!(all.mean.humans.is_some() && all.mean.ppi_plus.is_none());
    assert!(all.notes[0].contains("no item is unlabelled"));
    // A judge that always says one label: λ is 0 (PPI++ is the humans' interval) and
    // Rogan–Gladen has nothing to correct with.
    let mut constant = items(400, 100, 0.3, 0.8, 4);
    for i in &mut constant {
        i.judge = -1;
    }
    let c = estimate(&constant, settings(-1));
    let plus = c.mean.ppi_plus.expect("PPI++");
    assert_eq!(plus.lambda, 0.0);
    assert_eq!(plus.interval, c.mean.humans.expect("humans"));
    assert!(c.mean.rogan_gladen.is_none());
    assert!(
        c.notes.iter().any(|n| n.contains("no better than chance")),
        "{:?}",
        c.notes
    );
    // A label no labelled item has: the humans say 0, Rogan–Gladen cannot measure the
    // sensitivity.
    let absent = estimate(&items(400, 100, 0.3, 0.8, 5), settings(0));
    assert_eq!(absent.mean.humans.expect("humans").estimate, 0.0);
    assert!(absent.mean.rogan_gladen.is_none());
    assert!(absent
        .notes
        .iter()
        .any(|n| n.contains("sensitivity cannot be measured")));
    // Rogan–Gladen outside [0, 1]: a judge right on 90% of the labelled items that says -1 on
    // every unlabelled one is corrected above 1: clipped, and said.
    let mut odd = items(400, 200, 0.3, 0.9, 6);
    for i in odd.iter_mut().filter(|i| i.gold.is_none()) {
        i.judge = -1;
    }
    let o = estimate(&odd, settings(-1));
    let rg = o.mean.rogan_gladen.expect("Rogan–Gladen");
    assert!(rg.clipped && rg.interval.estimate == 1.0, "{rg:?}");
    assert!(o.notes.iter().any(|n| n.contains("clipped")));
    // Clipped at 1 while PPI++ stays near 0.3: the two corrections disagree, and it is said.
    assert!(o.disagree);
}

/// 600 seeded runs of 200 labelled and 2,000 unlabelled items (true share 0.3, a judge right
/// on 85%): the PPI++ interval covers 0.3 in 95% of them within the simulation's binomial
/// margin (three standard errors).
#[test]
fn the_ppi_plus_interval_covers_as_often_as_it_says() {
    let runs = 600;
    let mut covered = 0;
    for seed in 0..runs {
        let e = estimate(&items(2200, 200, 0.3, 0.85, 100 + seed), settings(-1));
        let ci = e.mean.ppi_plus.expect("PPI++").interval.ci;
        covered += usize::from(ci[0] <= 0.3 && 0.3 <= ci[1]);
    }
    let rate = covered as f64 / runs as f64;
    let margin = 3.0 * (0.95 * 0.05 / runs as f64).sqrt();
    assert!((rate - 0.95).abs() <= margin, "{covered}/{runs}");
}

#[test]
fn models_are_ranked_from_humans_the_judge_and_both() {
    let mut rng = crate::metrics::random::stream(9, crate::metrics::random::Purpose::Simulation, 0);
    let names = ["a", "b", "c"];
    // a beats b beats c; the judge right on 80%.
    let strength = [0.8, 0.5, 0.2];
    let matches: Vec<Match> = (0..3000)
        .map(|i| {
            let (x, y) = match i % 3 {
                0 => (0, 1),
                1 => (1, 2),
                _ => (0, 2),
            };
            let p = strength[x] / (strength[x] + strength[y]);
            let gold = if rng.random_bool(p) { -1 } else { 1 };
            let judge = if rng.random_bool(0.8) { gold } else { -gold };
            Match {
                models: [names[x].to_string(), names[y].to_string()],
                gold: (i % 10 == 0).then_some(gold),
                judge,
            }
        })
        .collect();
    let s = systems(&matches, 0.05).expect("ranked");
    let order: Vec<&str> = s.models.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(order, ["a", "b", "c"]);
    assert!((0.0..=1.0).contains(&s.lambda));
    // Every rank set holds the model's true rank; the weakest cannot be first.
    assert!(
        s.models[2].ppr.rank_set[0] > 1,
        "{:?}",
        s.models[2].ppr.rank_set
    );
    for (truth, m) in (1..).zip(&s.models) {
        let [lo, hi] = m.ppr.rank_set;
        assert!(
            lo <= truth && truth <= hi,
            "{}: {:?}",
            m.name,
            m.ppr.rank_set
        );
        assert!(m.humans.se > 0.0 && m.judge.se > 0.0);
    }
    // Without unlabelled items there is nothing to combine.
    let labelled: Vec<Match> = matches
        .iter()
        .filter(|m| m.gold.is_some())
        .cloned()
        .collect();
    assert!(systems(&labelled, 0.05).is_none());
}
