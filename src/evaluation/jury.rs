//! A jury beside its members, from the members' outcomes alone: how often it could not decide
//! (and why), which members abstained, how much the members agree (Fleiss' κ, Krippendorff's
//! α), how many decisions hung on one vote, how often at least one member was right (the
//! oracle bound), and every sub-jury of up to 5 members voting by the same rule (no new call).
//! The paired tests of the jury against each member are the run's comparisons.

use super::record::{headline, wrong_for, ConfigRecord, Headline, Outcome, RunRecord};
use crate::metrics::raters::{fleiss_kappa, krippendorff_alpha, Votes};
use crate::metrics::Labels;
use crate::raters::jury::{decide, strict_majority, subsets, Ballot, Jury, Undecided};
use crate::raters::Status;

/// Sub-juries are listed for juries of at most this many members (2^5 − 1 = 31 of them).
pub const MAX_SUBSETS: usize = 5;

/// The members' agreement among themselves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemberAgreement {
    /// Fleiss' κ over the items every member rated (`items_all_rated`).
    pub fleiss_kappa: f64,
    pub items_all_rated: usize,
    /// Krippendorff's α, nominal and ordinal (missing votes allowed).
    pub alpha_nominal: f64,
    pub alpha_ordinal: f64,
}

/// A sub-jury: some of the members, voting by the jury's rule on the same answers.
#[derive(Debug, Clone, PartialEq)]
pub struct SubJury {
    /// Configuration indices of its members.
    pub members: Vec<usize>,
    /// Items it decided.
    pub decided: usize,
    /// Items without a verdict dropped (`drop`), and counted wrong (`as_wrong`).
    pub drop: Headline,
    pub as_wrong: Headline,
}

/// What the evaluation finds of a jury.
#[derive(Debug, Clone, PartialEq)]
pub struct JuryStats {
    pub items: usize,
    /// Items with voters but no verdict under the rule (no strict majority, not unanimous,
    /// a tie for the most votes, an "error" plurality), and items no member voted on.
    pub no_majority: usize,
    pub no_votes: usize,
    /// Per member (in member order): items it gave no verdict on, so did not vote.
    pub abstained: Vec<usize>,
    /// Items with a strict majority among the voters, and of them the ones one vote from
    /// undone (a bare majority).
    pub majority_items: usize,
    pub bare_majority: usize,
    /// Items every member voted on with one voice.
    pub unanimous: usize,
    /// Items at least one member got right (the oracle bound on accuracy), and every member.
    pub oracle: usize,
    pub all_right: usize,
    pub agreement: MemberAgreement,
    /// Every sub-jury, smallest first (empty above `MAX_SUBSETS` members).
    pub subsets: Vec<SubJury>,
}

/// Member `m`'s say on item `i`, from the record.
fn ballot(c: &ConfigRecord, i: usize) -> Ballot {
    let (rating, status) = match c.outcomes[i] {
        Outcome::Rated(v) => (Some(v), Status::Rated),
        Outcome::NoVerdict => (None, Status::NoVerdict),
        Outcome::CutOff => (None, Status::CutOff),
        Outcome::CallFailed => (None, Status::Failed),
        Outcome::NotAsked => (None, Status::NotAsked),
    };
    Ballot {
        rating,
        status,
        p: c.probability.as_ref().and_then(|p| p.p[i]),
        grades: c.pointwise.as_ref().map(|p| p.grades[i]),
    }
}

/// The items' ballots of some members (configuration indices).
fn ballots(run: &RunRecord, members: &[usize]) -> Vec<Vec<Ballot>> {
    (0..run.items.len())
        .map(|i| {
            members
                .iter()
                .map(|&m| ballot(&run.configs[m], i))
                .collect()
        })
        .collect()
}

/// A sub-jury's (or the jury's) figures from its members' ballots.
fn sub_jury(run: &RunRecord, jury: &Jury, positions: &[usize], all: &[Vec<Ballot>]) -> SubJury {
    let weights: Vec<f64> = positions.iter().map(|&k| jury.weights[k]).collect();
    let (mut gold, mut rated, mut wrong_filled) = (vec![], vec![], vec![]);
    let mut golds = Vec::new();
    for (item, b) in run.items.iter().zip(all) {
        let Some(g) = item.gold else {
            continue;
        };
        let mine: Vec<Ballot> = positions.iter().map(|&k| b[k]).collect();
        let d = decide(jury.vote, &mine, &weights, jury.tie_margin);
        wrong_filled.push(d.rating.unwrap_or_else(|| wrong_for(g)));
        golds.push(g);
        if let Some(r) = d.rating {
            gold.push(g);
            rated.push(r);
        }
    }
    SubJury {
        members: positions.iter().map(|&k| jury.members[k]).collect(),
        decided: rated.len(),
        drop: headline(&gold, &rated),
        as_wrong: headline(&golds, &wrong_filled),
    }
}

/// A jury's figures over every item of the run.
pub fn jury(run: &RunRecord, jury: &Jury) -> JuryStats {
    let all = ballots(run, &jury.members);
    let labels = Labels::pairwise();
    let mut s = JuryStats {
        items: run.items.iter().filter(|i| i.gold.is_some()).count(),
        no_majority: 0,
        no_votes: 0,
        abstained: vec![0; jury.members.len()],
        majority_items: 0,
        bare_majority: 0,
        unanimous: 0,
        oracle: 0,
        all_right: 0,
        agreement: MemberAgreement {
            fleiss_kappa: f64::NAN,
            items_all_rated: 0,
            alpha_nominal: f64::NAN,
            alpha_ordinal: f64::NAN,
        },
        subsets: Vec::new(),
    };
    let mut votes = Vec::with_capacity(all.len());
    // The labelled items (an unlabelled one has no right answer to count).
    for (gold, b) in run
        .items
        .iter()
        .zip(&all)
        .filter_map(|(i, b)| Some((i.gold?, b)))
    {
        let d = decide(jury.vote, b, &jury.weights, jury.tie_margin);
        match d.undecided {
            Some(Undecided::NoVotes) => s.no_votes += 1,
            Some(_) => s.no_majority += 1,
            None => {}
        }
        for (k, x) in b.iter().enumerate() {
            s.abstained[k] += usize::from(x.rating.is_none());
        }
        if let Some((_, bare)) = strict_majority(b, &jury.weights) {
            s.majority_items += 1;
            s.bare_majority += usize::from(bare);
        }
        let ratings: Vec<Option<i64>> = b.iter().map(|x| x.rating).collect();
        let all_voted = ratings.iter().all(Option::is_some);
        s.unanimous += usize::from(all_voted && ratings.windows(2).all(|w| w[0] == w[1]));
        s.oracle += usize::from(ratings.contains(&Some(gold)));
        s.all_right += usize::from(ratings.iter().all(|r| *r == Some(gold)));
        s.agreement.items_all_rated += usize::from(all_voted);
        votes.push(
            ratings
                .iter()
                .map(|r| r.and_then(|v| labels.as_slice().iter().position(|&l| l == v)))
                .collect(),
        );
    }
    let votes = Votes {
        labels,
        items: votes,
    };
    s.agreement.fleiss_kappa = fleiss_kappa(&votes);
    s.agreement.alpha_nominal = krippendorff_alpha(&votes, false);
    s.agreement.alpha_ordinal = krippendorff_alpha(&votes, true);
    if jury.members.len() <= MAX_SUBSETS {
        s.subsets = subsets(jury.members.len())
            .iter()
            .map(|p| sub_jury(run, jury, p, &all))
            .collect();
    }
    s
}

/// The jury analytic: each jury beside its members.
#[derive(Debug)]
pub struct JuryAnalytic;

impl super::Analytic for JuryAnalytic {
    fn run(&self, cx: &super::Context, _configs: &[super::ConfigResult]) -> super::Found {
        super::Found::per_config(
            cx.run
                .configs
                .iter()
                .map(|c| super::analytic::kept(c.jury.as_ref().map(|j| jury(cx.run, j)))),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::record::fixtures::{config, item};
    use crate::raters::jury::Vote;

    /// Three members on six items (gold 1 unless said), each rule checked by hand.
    #[test]
    fn a_jury_of_three_by_hand() {
        use Outcome::*;
        let items: Vec<_> = (0..6)
            .map(|i| item(i, if i == 5 { -1 } else { 1 }))
            .collect();
        let a = vec![
            Rated(1),
            Rated(1),
            Rated(1),
            Rated(-1),
            CallFailed,
            Rated(-1),
        ];
        let b = vec![
            Rated(1),
            Rated(-1),
            Rated(0),
            Rated(-1),
            CallFailed,
            Rated(1),
        ];
        let c = vec![
            Rated(1),
            Rated(1),
            Rated(-1),
            NoVerdict,
            CallFailed,
            Rated(1),
        ];
        let run = RunRecord {
            labels: crate::metrics::Labels::pairwise(),
            inputs: Default::default(),
            items: items.into_iter().collect(),
            configs: vec![config("a", a), config("b", b), config("c", c)],
            both_orders: false,
            annotators: None,
            shapes: Vec::new(),
            generators: None,
        };
        let j = Jury {
            name: "j".into(),
            members: vec![0, 1, 2],
            vote: Vote::StrictMajority,
            weights: vec![1.0; 3],
            tie_margin: 0.0,
        };
        let s = jury(&run, &j);
        // Item 2 splits 1/0/-1; item 3 has -1, -1 of two voters; item 4 has no voter.
        assert_eq!((s.no_majority, s.no_votes), (1, 1));
        assert_eq!(s.abstained, [1, 1, 2]);
        // Majorities: items 0 (3-0), 1 (2-1, bare), 3 (2 of 2), 5 (2-1, bare).
        assert_eq!((s.majority_items, s.bare_majority), (4, 3));
        assert_eq!(s.unanimous, 1);
        // Someone right: items 0, 1, 2, 5; everyone right: item 0.
        assert_eq!((s.oracle, s.all_right), (4, 1));
        assert_eq!(s.agreement.items_all_rated, 4);
        assert_eq!(s.subsets.len(), 7);
        // The whole jury: decided 0 (right), 1 (right), 3 (wrong), 5 (wrong).
        let whole = &s.subsets[6];
        assert_eq!(whole.decided, 4);
        assert_eq!(whole.drop.accuracy, 0.5);
        assert_eq!(whole.as_wrong.accuracy, 2.0 / 6.0);
        // A member alone is the member: a is right on 0, 1, 2 and 5 of its 5 rated.
        assert_eq!(s.subsets[0].members, [0]);
        assert_eq!(s.subsets[0].drop.accuracy, 4.0 / 5.0);
    }
}
