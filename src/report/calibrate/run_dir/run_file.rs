//! run.json of a run over pairs: the record's configurations and data as `run::file`'s types,
//! what `report DIR` reads back.

use crate::evaluation::{ConfigRecord, Reference};
use crate::run::file::{
    AnnotatorsFile, CostFile, JuryFile, PairsConfigFile, PairsDataFile, PairsRunFile,
    PointwiseFile, ReferenceFile, RunFile, SCHEMA,
};
use crate::run::record::{ConfigMeta, Run};

fn config_file(meta: &ConfigMeta, rec: &ConfigRecord, all: &[ConfigRecord]) -> PairsConfigFile {
    let c = rec.cost;
    PairsConfigFile {
        cost: CostFile::from(c),
        price: meta.price,
        judge: meta.judge.clone(),
        max_tokens: meta.max_tokens,
        model: meta.model.clone(),
        name: meta.name.clone(),
        parser: meta.parser.clone(),
        pointwise: rec.pointwise.as_ref().map(|p| PointwiseFile {
            lowest: p.lowest,
            order_blind: p.order_blind,
            tie_margin: p.tie_margin,
        }),
        probability: rec.probability.as_ref().map(|p| p.source.clone()),
        prompt: meta.prompt.clone(),
        rater: meta.rater.clone(),
        simulated: meta.simulated,
        system: meta.system.clone(),
        temperature: meta.temperature,
        template: meta.template.clone(),
        jury: rec.jury.as_ref().map(|j| JuryFile {
            members: j.members.iter().map(|&m| all[m].name.clone()).collect(),
            vote: j.vote.key().to_string(),
            weights: j.weights.clone(),
            tie_margin: j.tie_margin,
        }),
    }
}

/// run.json of a run over pairs.
pub fn run_file(run: &Run) -> RunFile {
    let m = &run.meta;
    RunFile::Pairs(PairsRunFile {
        bootstrap: m.head.bootstrap,
        command: m.head.command.clone(),
        configs: m
            .configs
            .iter()
            .zip(&run.record.configs)
            .map(|(meta, rec)| config_file(meta, rec, &run.record.configs))
            .collect(),
        created_unix: m.head.created_unix,
        data: PairsDataFile {
            annotators: run.record.annotators.as_ref().map(|a| AnnotatorsFile {
                names: a.names.clone(),
                policy: a.policy.clone(),
            }),
            both_orders: m.head.both_orders,
            checksum_sha256: m.checksum.clone(),
            items: run.record.items.len(),
            no_majority: m.no_majority,
            unlabelled: run.record.unlabelled(),
            seed: m.head.seed,
            source: m.head.source.clone(),
            unshared: m.unshared.clone(),
            reference: run
                .record
                .generators
                .as_ref()
                .and_then(|g| g.reference.as_ref())
                .map(|r| match r {
                    Reference::Gold => ReferenceFile {
                        source: r.source(),
                        gold: true,
                        scores: Vec::new(),
                    },
                    Reference::Table { source, scores } => ReferenceFile {
                        source: source.clone(),
                        gold: false,
                        scores: scores.clone(),
                    },
                }),
        },
        name: m.head.name.clone(),
        raterlab_version: env!("CARGO_PKG_VERSION").into(),
        schema: SCHEMA,
        sort: m.sort.key().to_string(),
        family: m.family.key().to_string(),
    })
}
