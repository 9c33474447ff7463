//! The jury rules, case by case.

use super::*;

fn ballot(r: Option<i64>) -> Ballot {
    Ballot {
        rating: r,
        status: if r.is_some() {
            Status::Rated
        } else {
            Status::NoVerdict
        },
        p: None,
        grades: None,
    }
}

fn votes(v: &[Option<i64>]) -> Vec<Ballot> {
    v.iter().copied().map(ballot).collect()
}

const ONE: [f64; 5] = [1.0; 5];

#[test]
fn a_strict_majority_decides_and_a_split_is_no_verdict() {
    let d = decide(
        Vote::StrictMajority,
        &votes(&[Some(1), Some(1), Some(-1)]),
        &ONE,
        0.0,
    );
    assert_eq!((d.rating, d.voters, d.p), (Some(1), 3, Some(2.0 / 3.0)));
    let split = decide(
        Vote::StrictMajority,
        &votes(&[Some(1), Some(0), Some(-1)]),
        &ONE,
        0.0,
    );
    assert_eq!(split.rating, None);
    assert_eq!(split.undecided, Some(Undecided::NoMajority));
    // A failed member does not vote: 1 against -1 is no majority, 1 alone is one.
    let two = decide(
        Vote::StrictMajority,
        &votes(&[Some(1), None, Some(-1)]),
        &ONE,
        0.0,
    );
    assert_eq!((two.rating, two.voters), (None, 2));
    let one = decide(
        Vote::StrictMajority,
        &votes(&[Some(1), None, None]),
        &ONE,
        0.0,
    );
    assert_eq!(one.rating, Some(1));
    let none = decide(Vote::StrictMajority, &votes(&[None, None, None]), &ONE, 0.0);
    assert_eq!(none.undecided, Some(Undecided::NoVotes));
    // Weights: 2 for -1 outweighs 1 + 0.5 for 1.
    let w = decide(
        Vote::StrictMajority,
        &votes(&[Some(-1), Some(1), Some(1)]),
        &[2.0, 1.0, 0.5],
        0.0,
    );
    assert_eq!(w.rating, Some(-1));
}

#[test]
fn a_bare_majority_is_one_vote_from_undone() {
    let b = |v: &[Option<i64>]| strict_majority(&votes(v), &ONE);
    assert_eq!(b(&[Some(1), Some(1), Some(-1)]), Some((1, true)));
    assert_eq!(b(&[Some(1), Some(1), Some(1)]), Some((1, false)));
    assert_eq!(
        b(&[Some(1), Some(1), Some(1), Some(-1), Some(-1)]),
        Some((1, true))
    );
    assert_eq!(
        b(&[Some(1), Some(1), Some(1), Some(1), Some(-1)]),
        Some((1, false))
    );
    assert_eq!(b(&[Some(0), Some(1)]), None);
}

#[test]
fn unanimous_mean_and_probability() {
    let u = |v: &[Option<i64>]| decide(Vote::Unanimous, &votes(v), &ONE, 0.0).rating;
    assert_eq!(u(&[Some(1), None, Some(1)]), Some(1));
    assert_eq!(u(&[Some(1), Some(1), Some(0)]), None);
    let m = |v: &[Option<i64>]| decide(Vote::Mean, &votes(v), &ONE, 0.0).rating;
    assert_eq!(m(&[Some(1), Some(1), Some(-1)]), Some(1));
    assert_eq!(m(&[Some(-1), Some(0), Some(0)]), Some(-1));
    assert_eq!(m(&[Some(-1), Some(1), Some(0)]), Some(0));
    let graded = |g1: f64, g2: f64| Ballot {
        grades: Some((Some(g1), Some(g2))),
        ..ballot(Some(sign(g2 - g1)))
    };
    let g = decide(
        Vote::Mean,
        &[graded(7.0, 8.0), graded(9.0, 8.0), graded(5.0, 6.0)],
        &ONE,
        0.5,
    );
    assert_eq!(g.grades, Some((Some(7.0), Some(22.0 / 3.0))));
    // A member with one grade missing does not vote on either response.
    let half = Ballot {
        grades: Some((Some(1.0), None)),
        ..ballot(None)
    };
    let h = decide(Vote::Mean, &[graded(7.0, 8.0), half], &ONE, 0.0);
    assert_eq!(h.grades, Some((Some(7.0), Some(8.0))));
    assert_eq!(g.rating, Some(0), "a gap of 1/3 is inside the 0.5 margin");
    let with_p = |p: Option<f64>| Ballot {
        p,
        ..ballot(Some(1))
    };
    let p = decide(
        Vote::Probability,
        &[with_p(Some(0.9)), with_p(None), with_p(Some(0.2))],
        &ONE,
        0.0,
    );
    assert_eq!(p.p, Some(0.55));
    assert_eq!(p.rating, Some(1));
}

#[test]
fn reward_benchs_vote_counts_errors_and_never_breaks_a_tie_for_first() {
    let r = |v: &[Option<i64>]| decide(Vote::RewardBench, &votes(v), &ONE, 0.0).undecided;
    let rating = |v: &[Option<i64>]| decide(Vote::RewardBench, &votes(v), &ONE, 0.0).rating;
    assert_eq!(rating(&[Some(1), None, Some(1)]), Some(1));
    assert_eq!(r(&[Some(1), None, None]), Some(Undecided::ErrorPlurality));
    assert_eq!(r(&[Some(1), None, Some(-1)]), Some(Undecided::TiedFirst));
    // A plurality, not a majority: 2 of 5.
    assert_eq!(
        rating(&[Some(1), Some(1), Some(-1), Some(0), None]),
        Some(1)
    );
}

#[test]
fn a_jury_row_keeps_the_members_failure() {
    let failed = RatingRow {
        rating: None,
        status: Status::Failed,
        used: 0,
        verdicts: Box::new([None]),
        reason: Some("HTTP 503".into()),
        grades: None,
        p_response2: None,
        p_problem: None,
        expected_grades: None,
    };
    let d = decide(Vote::StrictMajority, &[Ballot::from(&failed); 2], &ONE, 0.0);
    let row = row(&d, &[&failed, &failed]);
    assert_eq!(row.status, Status::Failed);
    assert_eq!(
        row.reason.as_deref(),
        Some("jury: no member answered (HTTP 503)")
    );
    let unreadable = RatingRow {
        status: Status::NoVerdict,
        ..failed.clone()
    };
    let row2 = row_of(&[&failed, &unreadable]);
    assert_eq!(row2.status, Status::NoVerdict);
}

fn row_of(members: &[&RatingRow]) -> RatingRow {
    let ballots: Vec<Ballot> = members.iter().map(|m| Ballot::from(*m)).collect();
    row(&decide(Vote::StrictMajority, &ballots, &ONE, 0.0), members)
}

#[test]
fn picks_and_wins_by_the_vote_grades_by_their_mean() {
    use crate::raters::rewardbench2::RowOutcome;
    // Both pairs' gold is -1 (the correct completion shown first): a win is a verdict of -1.
    let row =
        |pick: Option<usize>, grades: Vec<Option<f64>>, verdicts: Vec<Option<i64>>| RowOutcome {
            grades,
            pick,
            other_pick: pick,
            wins: verdicts.iter().map(|v| v.map(|v| v == -1)).collect(),
            verdicts,
            answers: Vec::new(),
        };
    let a = row(Some(0), vec![Some(8.0), Some(2.0)], vec![Some(-1), Some(0)]);
    let b = row(Some(0), vec![Some(6.0), None], vec![Some(-1), Some(-1)]);
    let c = row(Some(2), vec![None, Some(4.0)], vec![None, Some(-1)]);
    let jury = |vote| Jury {
        name: "j".into(),
        members: vec![0, 1, 2],
        vote,
        weights: vec![1.0; 3],
        tie_margin: 0.0,
    };
    let o = rb2_outcome(&jury(Vote::StrictMajority), &[&a, &b, &c]);
    assert_eq!(o.pick, Some(0));
    assert_eq!(o.grades, [Some(7.0), Some(3.0)]);
    assert_eq!(o.wins, [Some(true), Some(true)]);
    // Each pair's verdict by the vote too: the tie is outvoted.
    assert_eq!(o.verdicts, [Some(-1), Some(-1)]);
    let u = rb2_outcome(&jury(Vote::Unanimous), &[&a, &b, &c]);
    assert_eq!((u.pick, &u.wins[..]), (None, &[Some(true), None][..]));
    assert_eq!(u.verdicts, [Some(-1), None]);
    // A member of an older run directory kept no verdicts: the jury has none either.
    let old = RowOutcome {
        verdicts: Vec::new(),
        ..c.clone()
    };
    assert!(rb2_outcome(&jury(Vote::StrictMajority), &[&a, &b, &old])
        .verdicts
        .is_empty());
    // reward-bench: picks 0, 0, none: 0 wins; a split 1-1 with an error is a tie.
    assert_eq!(
        label_vote(Vote::RewardBench, &[Some(0), Some(0), None], &ONE),
        Some(0)
    );
    assert_eq!(
        label_vote(Vote::RewardBench, &[Some(0), Some(1), None], &ONE),
        None
    );
    assert_eq!(
        label_vote(Vote::StrictMajority, &[Some(0), Some(1), None], &ONE),
        None
    );
}

#[test]
fn every_sub_jury_once() {
    let s = subsets(3);
    assert_eq!(s.len(), 7);
    assert_eq!(s[0], vec![0]);
    assert_eq!(s[6], vec![0, 1, 2]);
    assert_eq!(subsets(5).len(), 31);
}
