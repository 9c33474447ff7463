//! Judge options → a ready judge, checked before any call is made.

use crate::dataset::hub::Progress;
use crate::dataset::source::cache_dir;
use crate::error::input_error;
use crate::judge::cache::{Cache, Cached};
use crate::judge::execute::Budget;
use crate::judge::openai::{OpenAi, OpenAiConfig};
use crate::judge::replay::Replay;
use crate::judge::{CallError, Judge, Params};
use crate::raters::{CallTally, RaterKind};
use crate::run::settings::JudgeSettings;
use crate::run::settings::JudgeSpec;
use anyhow::Result;
use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// A judge and what identifies its calls.
#[derive(Clone)]
pub struct JudgeSetup {
    pub judge: Arc<dyn Judge>,
    /// The model name in the cache key and the reports.
    pub model: String,
    pub cache: Option<Arc<Cache>>,
}

impl std::fmt::Debug for JudgeSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JudgeSetup")
            .field("judge", &self.judge.describe())
            .field("model", &self.model)
            .finish()
    }
}

fn is_local(host: &str) -> bool {
    host == "localhost" || host.starts_with("127.") || host == "::1" || host == "[::1]"
}

/// `scheme://host:port/...` → (host, port).
fn host_port(url: &str) -> Option<(String, u16)> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split('/').next()?;
    let authority = authority.rsplit('@').next()?;
    let default = if scheme == "https" { 443 } else { 80 };
    if let Some(stripped) = authority.strip_prefix('[') {
        let (host, rest) = stripped.split_once(']')?;
        let port = rest
            .strip_prefix(':')
            .and_then(|p| p.parse().ok())
            .unwrap_or(default);
        return Some((host.to_string(), port));
    }
    match authority.rsplit_once(':') {
        Some((h, p)) => Some((h.to_string(), p.parse().ok()?)),
        None => Some((authority.to_string(), default)),
    }
}

/// Fails fast when nothing listens at the endpoint (`flag` names where the URL came from).
fn check_reachable(url: &str, flag: &str) -> Result<()> {
    let (host, port) = host_port(url).ok_or_else(|| {
        input_error(format!(
            "{flag} '{url}' is not a URL; give e.g. http://127.0.0.1:8000/v1"
        ))
    })?;
    let addrs: Vec<_> = (host.as_str(), port)
        .to_socket_addrs()
        .map_err(|e| {
            input_error(format!(
                "cannot resolve the endpoint host '{host}': {e}; check {flag}"
            ))
        })?
        .collect();
    let reachable = addrs
        .iter()
        .any(|a| TcpStream::connect_timeout(a, Duration::from_secs(3)).is_ok());
    if !reachable {
        return Err(input_error(format!(
            "cannot reach the endpoint {url} (nothing answers at {host}:{port}); is the server running? check {flag}"
        )));
    }
    Ok(())
}

fn openai(args: &JudgeSettings, model: Option<&str>) -> Result<(Arc<dyn Judge>, String)> {
    if args.endpoint.is_none() && !args.offline {
        return Err(input_error(
            "no judge: give --endpoint URL --model NAME for an OpenAI-compatible server (or set OPENAI_BASE_URL), --judge sim for the simulated judge, --judge replay:FILE for recorded answers, or try --demo",
        ));
    }
    let model = model.map(str::to_string).ok_or_else(|| {
        input_error("--model is required for an OpenAI-compatible judge; give the model name the server serves, e.g. --model qwen2.5:7b")
    })?;
    let Some(endpoint) = args.endpoint.clone() else {
        // Only with --offline (checked above): answers come from the cache alone, and the
        // endpoint is not part of the cache key.
        let unreachable = OpenAi::new(OpenAiConfig::new("http://offline.invalid/v1"))
            .map_err(|e| input_error(e.to_string()))?;
        return Ok((Arc::new(unreachable), model));
    };
    let mut config = OpenAiConfig::new(&endpoint);
    let key = std::env::var(&args.api_key_env)
        .ok()
        .filter(|k| !k.trim().is_empty());
    let host = host_port(&endpoint).map(|h| h.0).unwrap_or_default();
    if key.is_none() && !is_local(&host) {
        return Err(input_error(format!(
            "the API key variable {} is not set; export it, or name another variable with --api-key-env (servers on this machine need no key)",
            args.api_key_env
        )));
    }
    config.api_key = key;
    config.timeout = Duration::from_secs_f64(args.timeout.max(0.001));
    config.retry.max_retries = args.retries;
    config.retry.base_backoff = Duration::from_millis(args.retry_base_ms);
    config.samples_per_request = samples_per_request(args);
    for header in &args.headers {
        let (k, v) = header
            .split_once(':')
            .ok_or_else(|| input_error(format!("--header '{header}': expected NAME:VALUE")))?;
        config
            .extra_headers
            .push((k.trim().to_string(), v.trim().to_string()));
    }
    if !args.offline {
        check_reachable(&endpoint, "--endpoint")?;
    }
    let client = OpenAi::new(config).map_err(|e| input_error(format!("--header: {e}")))?;
    Ok((Arc::new(client), model))
}

/// A reward model behind an engine: vLLM and SGLang need the model's name, SGLang its chat
/// template; TEI serves one model (named by --model for the cache, else by its URL).
fn reward(
    args: &JudgeSettings,
    engine: crate::judge::reward::Engine,
    url: &str,
    model: Option<&str>,
) -> Result<(Arc<dyn Judge>, String)> {
    use crate::judge::reward::{Engine, RewardConfig, RewardModel};
    let prefix = engine.prefix();
    let model = match (engine, model) {
        (_, Some(m)) => m.to_string(),
        (Engine::Tei, None) => format!("tei@{url}"),
        (_, None) => {
            return Err(input_error(format!(
                "--judge {prefix}:{url} needs --model: the name the server serves the reward model under"
            )))
        }
    };
    let chat_template = match (engine, &args.chat_template) {
        (Engine::Sglang, None) => {
            return Err(input_error(format!(
                "--judge {prefix}:{url} needs --chat-template FILE: SGLang's /classify takes text, so raterlab renders each conversation with the model's chat template (its tokenizer_config.json's chat_template, saved as a .jinja file)"
            )))
        }
        (Engine::Sglang, Some(path)) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                input_error(format!("cannot read --chat-template '{}': {e}", path.display()))
            })?;
            crate::judge::reward::render_chat_template(
                &text,
                &[
                    crate::judge::Message::user("question"),
                    crate::judge::Message {
                        role: "assistant".into(),
                        content: "answer".into(),
                    },
                ],
            )
            .map_err(|e| {
                input_error(format!(
                    "--chat-template '{}' does not render a question and its answer: {e}",
                    path.display()
                ))
            })?;
            Some(text)
        }
        (_, Some(_)) => {
            return Err(input_error(format!(
                "--chat-template goes with sglang-reward:URL; {prefix} applies the model's own"
            )))
        }
        (_, None) => None,
    };
    if !args.offline {
        check_reachable(url, "--judge")?;
    }
    let judge = RewardModel::new(RewardConfig {
        engine,
        base_url: url.to_string(),
        model: model.clone(),
        chat_template,
        timeout: Duration::from_secs_f64(args.timeout.max(0.001)),
        retry: crate::judge::RetryPolicy {
            max_retries: args.retries,
            base_backoff: Duration::from_millis(args.retry_base_ms),
            ..crate::judge::openai::OpenAiConfig::new(url).retry
        },
    })
    .map_err(|e| input_error(e.to_string()))?;
    Ok((Arc::new(judge), model))
}

/// Builds the judge the options describe (for one model), behind the cache when it is worth
/// caching.
pub fn build(
    args: &JudgeSettings,
    model: Option<&str>,
    progress: &dyn Progress,
) -> Result<JudgeSetup> {
    let (judge, model): (Arc<dyn Judge>, String) = match &args.judge {
        None | Some(JudgeSpec::OpenAi) => openai(args, model)?,
        Some(JudgeSpec::Replay(path)) => (
            Arc::new(Replay::open(path)?),
            model.unwrap_or("replay").to_string(),
        ),
        Some(JudgeSpec::Scores(path)) => (
            Arc::new(crate::judge::scores::Scores {
                path: path.clone(),
                table: crate::dataset::scores::load(path)?,
            }),
            model.unwrap_or("scores").to_string(),
        ),
        Some(JudgeSpec::Sim(sim)) => (Arc::new(sim.clone()), model.unwrap_or("sim").to_string()),
        Some(JudgeSpec::Reward { engine, url }) => reward(args, *engine, url, model)?,
    };
    if !judge.cacheable() || args.no_cache {
        return Ok(JudgeSetup {
            judge,
            model,
            cache: None,
        });
    }
    let dir = completions_dir(args.cache_dir.as_deref());
    let cache = Arc::new(Cache::open(&dir, progress).map_err(|e| {
        input_error(format!(
            "cannot open the response cache in '{}': {e}; pass --cache-dir or --no-cache",
            dir.display()
        ))
    })?);
    let cached = Cached::new(judge, cache.clone(), args.offline);
    Ok(JudgeSetup {
        judge: Arc::new(cached),
        model,
        cache: Some(cache),
    })
}

/// The response cache folder: `--cache-dir`, or the default.
pub fn completions_dir(given: Option<&std::path::Path>) -> PathBuf {
    given
        .map(std::path::Path::to_path_buf)
        .unwrap_or_else(|| cache_dir().join("completions"))
}

/// Failures that fail the run once its outputs are written (exit code 2): calls the server
/// refused for the configuration itself (a wrong model name, key or path), and with
/// `--offline`, calls missing from the cache. `written` says what was kept.
pub fn check_failures<'a>(
    args: &JudgeSettings,
    cache: Option<&Cache>,
    configs: impl Iterator<Item = (&'a str, &'a CallTally)>,
    written: &str,
) -> Result<()> {
    let (mut calls, mut missed, mut refused, mut not_sent) = (0usize, 0usize, 0usize, 0usize);
    let mut answers = 0usize;
    let mut first_refusal: Option<&CallError> = None;
    let mut gone: Option<(&str, &str)> = None;
    // Configurations that made calls and got no answer at all, with their first error.
    let mut unanswered: Vec<(&str, &CallError)> = Vec::new();
    for (name, t) in configs {
        calls += t.calls;
        answers += t.answered;
        missed += t.missed;
        not_sent += t.not_sent;
        refused += t.refused;
        first_refusal = first_refusal.or(t.first_refusal.as_ref());
        gone = gone.or(t.gone.as_ref().map(|(e, r)| (e.as_str(), r.as_str())));
        if let (true, 0, Some(error)) = (t.calls > 0, t.answered, &t.first_error) {
            unanswered.push((name, error));
        }
    }
    if let Some(error) = first_refusal {
        let unsent = if not_sent > 0 {
            format!(", and the {not_sent} after them were not sent")
        } else {
            String::new()
        };
        return Err(input_error(format!(
            "the judge refused the configuration: {error} ({refused} of {calls} calls refused{unsent}). Check --model (the name the server serves), the API key (--api-key-env) and --endpoint (it usually ends in /v1); {written}"
        )));
    }
    if let Some((endpoint, reason)) = gone {
        return Err(input_error(format!(
            "the endpoint {endpoint} stopped answering after {answers} answers ({reason}); the {answers} answers are cached; start the server and run the same command to finish ({written})"
        )));
    }
    if args.offline && missed > 0 {
        return Err(input_error(format!(
            "--offline: {missed} of {calls} calls are not in the cache ({}); run without --offline to make them ({written})",
            cache.map_or_else(String::new, |c| c.path().display().to_string())
        )));
    }
    if !unanswered.is_empty() {
        let which: Vec<String> = unanswered
            .iter()
            .map(|(name, error)| format!("{name} ({error})"))
            .collect();
        return Err(anyhow::anyhow!(
            "no call of {} was answered: {}; the run has no verdict from it. Check the endpoint and the model, then run the same command again: answers already cached are not asked again ({written})",
            if unanswered.len() == 1 { "this configuration" } else { "these configurations" },
            which.join("; ")
        ));
    }
    Ok(())
}

/// Sampling parameters for a rater.
/// Before any call: every configuration whose prompt asks for a reference answer has one for
/// every item, and `--pointwise-missing lowest` has a scale to take the lowest grade from.
pub fn check_configs(
    configs: &[crate::raters::Config],
    examples: &[crate::dataset::examples::Example],
) -> Result<()> {
    for c in configs.iter().filter(|c| !c.rater.is_baseline()) {
        if let Some(why) = c.judge.answers_none_of(examples) {
            return Err(input_error(why));
        }
        let t = &c.template;
        if t.mode == crate::prompts::Mode::Ranking && examples.iter().any(|e| e.more.len() != 2) {
            return Err(input_error(format!(
                "prompt '{}' shows four responses at once, for RewardBench 2 rows (--data sample-v2, reward-bench-2 or a file in its form); these items are pairs: use a pairwise or pointwise prompt (raterlab prompts list)",
                t.name
            )));
        }
        if t.uses_reference() && examples.iter().any(|e| e.reference.is_none()) {
            return Err(input_error(format!(
                "prompt '{}' uses {{reference}}, but the data has no reference answers; map a column with --map reference=COL",
                t.name
            )));
        }
        if t.mode == crate::prompts::Mode::Pointwise
            && t.scale.is_none()
            && c.pointwise.missing == crate::raters::Missing::Lowest
            && !c.judge.is_order_blind()
        {
            return Err(input_error(format!(
                "--pointwise-missing lowest needs a scale, and prompt '{}' has none; add scale = [min, max] to it",
                t.name
            )));
        }
    }
    Ok(())
}

/// `--tie-margin` and `--pointwise-missing`, checked.
pub fn pointwise_rule(args: &JudgeSettings) -> Result<crate::raters::PointwiseRule> {
    if !(args.tie_margin >= 0.0 && args.tie_margin.is_finite()) {
        return Err(input_error(format!(
            "--tie-margin {} must be a number of 0 or more",
            args.tie_margin
        )));
    }
    Ok(crate::raters::PointwiseRule {
        tie_margin: args.tie_margin,
        missing: args.pointwise_missing,
    })
}

pub fn params(
    args: &JudgeSettings,
    model: &str,
    rater: RaterKind,
    template: &crate::prompts::Template,
) -> Params {
    let default_temperature = if matches!(rater, RaterKind::SelfConsistency { .. }) {
        1.0
    } else {
        0.0
    };
    Params {
        model: model.to_string(),
        temperature: args.temperature.unwrap_or(default_temperature),
        max_tokens: args.max_tokens,
        seed: args.judge_seed,
        // Logprobs only for a template that reads them (`--top-logprobs` sets how many).
        top_logprobs: template
            .probability
            .as_ref()
            .map(|p| args.top_logprobs.unwrap_or(p.top)),
        reasoning_effort: args.reasoning_effort.clone(),
        request: template.request.clone(),
    }
}

pub fn budget(args: &JudgeSettings) -> Result<Budget> {
    if args.concurrency == 0 {
        return Err(input_error("--concurrency 0 makes no call; give 1 or more"));
    }
    Ok(Budget {
        concurrency: args.concurrency,
        requests_per_minute: args.rpm,
    })
}

/// `--samples-per-request`, OpenAI's largest `n` when unset.
pub fn samples_per_request(args: &JudgeSettings) -> u32 {
    match args.samples_per_request {
        0 => crate::judge::openai::MAX_SAMPLES_PER_REQUEST,
        n => n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints() {
        assert_eq!(
            host_port("http://127.0.0.1:8000/v1"),
            Some(("127.0.0.1".into(), 8000))
        );
        assert_eq!(
            host_port("https://api.openai.com/v1"),
            Some(("api.openai.com".into(), 443))
        );
        assert_eq!(host_port("http://[::1]:9/v1"), Some(("::1".into(), 9)));
        assert_eq!(host_port("localhost:80"), None);
        assert!(is_local("localhost") && is_local("127.0.0.2") && !is_local("example.com"));
    }
}
