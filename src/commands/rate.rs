//! `raterlab rate`: one judge configuration over a dataset, ratings written to a file.

use crate::error::input_error;
use crate::raters::{Config, RaterKind};
use crate::run::data::{self, DataSettings};
use crate::run::judges;
use crate::run::plan::template;
use crate::run::settings::RateSettings;
use anyhow::Result;

pub fn run(args: RateSettings) -> Result<()> {
    let data_settings = DataSettings::from_options(args.data.clone())?;
    let rater = RaterKind::parse(&args.rater, data_settings.seed)?;
    let template = template(
        &args.prompt,
        args.parser.as_deref(),
        args.judge.system.as_deref(),
    )?;
    crate::dataset::frame::Format::from_path(&args.out)?;
    let budget = judges::budget(&args.judge)?;
    if args.judge.model.len() > 1 {
        return Err(input_error(
            "rate takes one --model; compare several with `raterlab calibrate`",
        ));
    }
    let setup = judges::build(
        &args.judge,
        args.judge.model.first().map(String::as_str),
        &crate::report::media::progress::Steps::default(),
    )?;
    let replaying = args.judge.replays();
    if args.parser.is_some() && !replaying && !rater.is_baseline() && !template.parser_fits() {
        return Err(input_error(format!(
            "parser '{}' does not fit prompt '{}': the prompt never asks for that verdict format; choose a matching --parser or another --prompt",
            template.parser, template.name
        )));
    }
    // A scores file answers its own (pointwise) prompt.
    let template = if setup.judge.is_order_blind() {
        crate::run::plan::template(crate::prompts::SCORES_PROMPT, None, None)?
    } else {
        template
    };
    let dataset = data::load(
        &data_settings,
        &crate::report::media::progress::Download::default(),
    )?;
    let config = Config {
        name: format!("{}/{}", template.name, rater),
        params: std::sync::Arc::new(judges::params(&args.judge, &setup.model, rater, &template)),
        template,
        rater,
        judge: setup.judge.clone(),
        pointwise: judges::pointwise_rule(&args.judge)?,
    };
    let configs = vec![config];
    judges::check_configs(&configs, &dataset.examples)?;
    let observer = crate::report::media::progress::Calls::new(
        &configs,
        &crate::raters::calls_per_config(&configs, &dataset.examples),
    );
    // The ratings file shows each rating's answers: they stay with the ratings.
    let ratings = crate::raters::rate_all(&configs, &dataset.examples, budget, observer.clone());
    observer.finish();
    let ratings = ratings.into_iter().next().unwrap_or_default();
    crate::report::rate::write(&args.out, &configs[0], &dataset.examples, &ratings)?;
    crate::report::rate::emit_summary(
        &configs[0],
        &dataset,
        &ratings,
        setup.cache.as_deref(),
        &args.out,
    )?;
    judges::check_failures(
        &args.judge,
        setup.cache.as_deref(),
        std::iter::once((
            configs[0].name.as_str(),
            &crate::raters::CallTally::of(&ratings),
        )),
        "the ratings file was written",
    )
}
