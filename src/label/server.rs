//! The labelling page's server: axum on a tokio runtime, over the label store.
//!
//! Routes: `GET /` the page (given whole by the caller, with its Content-Security-Policy),
//! `GET /api/state` where an annotator stands and their next item, `POST /api/label`,
//! `/api/undo` and `/api/skip` the writes, each answering with the next state once the event
//! is committed. Every request needs the token (the page's address carries it as `?token=`,
//! the page's script sends it as `Authorization: Bearer`), compared in constant time: without
//! it the answer is 401, with a wrong one 403, and neither shows anything of the data. Bodies
//! are JSON, at most `BODY_LIMIT` bytes; a malformed or unknown request gets a 4xx and writes
//! nothing. No path reaches the file system: the routes are all there is.

use super::queue::{Asks, Progress, Queue, Status};
use super::store::{NewLabel, Store};
use anyhow::{Context, Result};
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Query, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

/// The largest request body taken (a note is the largest part).
pub const BODY_LIMIT: usize = 16 * 1024;
/// The longest note kept, in characters.
pub const NOTE_LIMIT: usize = 4000;

/// One turn of a conversation before the prompt.
#[derive(Debug, Clone, Serialize)]
pub struct Turn {
    pub role: String,
    pub content: String,
}

/// One item to label, its responses in the data's order.
#[derive(Debug, Clone)]
pub struct Item {
    /// The content id (the store's key).
    pub id: String,
    /// The id the data gives it (shown, never stored).
    pub pair_id: String,
    pub subset: String,
    pub history: Vec<Turn>,
    pub prompt: String,
    pub responses: [String; 2],
}

/// The page as served: its HTML and the policy that lets only its own script and style run.
#[derive(Debug, Clone)]
pub struct Page {
    pub html: String,
    pub csp: String,
}

/// What the server is given.
#[derive(Debug)]
pub struct Config {
    pub addr: SocketAddr,
    pub token: String,
    /// Who labels when the page's address names no annotator.
    pub annotator: String,
    /// The labelling guidelines (markdown), shown above the first item.
    pub guidelines: String,
    pub page: Page,
    /// Which items are asked, and what the page says beside them.
    pub asks: Box<dyn Asks>,
}

struct Shared {
    store: Store,
    items: Vec<Item>,
    index: HashMap<String, usize>,
    queue: Queue,
    /// The item each annotator has open on this server.
    open: Mutex<HashMap<String, String>>,
    token: String,
    annotator: String,
    guidelines: String,
    page: Page,
    asks: Box<dyn Asks>,
}

/// What the page is told after each step.
#[derive(Debug, Serialize)]
struct StateView<'a> {
    annotator: &'a str,
    progress: Progress,
    overlap: usize,
    /// The next item (None: every item labelled).
    item: Option<ItemView<'a>>,
    /// The guidelines, on `GET /api/state` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    guidelines: Option<&'a str>,
    /// What the last write did ("saved", "undone", "skipped", "nothing to undo").
    #[serde(skip_serializing_if = "Option::is_none")]
    did: Option<&'static str>,
    /// The estimate as labels arrive, or where PAC labelling stands.
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<Status>,
}

#[derive(Debug, Serialize)]
struct ItemView<'a> {
    id: &'a str,
    data_id: &'a str,
    /// Its place in the queue, from 1.
    position: usize,
    subset: &'a str,
    history: &'a [Turn],
    prompt: &'a str,
    /// The two responses in the order this annotator sees them.
    first: &'a str,
    second: &'a str,
}

#[derive(Debug, Deserialize)]
struct Who {
    annotator: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LabelBody {
    annotator: Option<String>,
    item_id: String,
    /// 1: the response shown first is better, 2: the one shown second, 0: a tie.
    key: u8,
    seconds: f64,
    note: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SkipBody {
    annotator: Option<String>,
    item_id: String,
    seconds: f64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct UndoBody {
    annotator: Option<String>,
}

/// A 4xx or 5xx with a one-line reason (never the data).
struct Refusal(StatusCode, String);

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (self.0, self.1).into_response()
    }
}

fn bad(reason: impl Into<String>) -> Refusal {
    Refusal(StatusCode::BAD_REQUEST, reason.into())
}

fn failed(e: anyhow::Error) -> Refusal {
    Refusal(
        StatusCode::INTERNAL_SERVER_ERROR,
        format!("the label store could not be written: {e:#}"),
    )
}

/// An annotator's name: letters, digits and `_ . @ -`, at most 64.
pub fn valid_annotator(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.@-".contains(c))
}

impl Shared {
    fn who(&self, named: Option<String>) -> Result<String, Refusal> {
        let name = named.unwrap_or_else(|| self.annotator.clone());
        if valid_annotator(&name) {
            Ok(name)
        } else {
            Err(bad(
                "annotator: use letters, digits and _ . @ - (at most 64)",
            ))
        }
    }

    fn item(&self, id: &str) -> Result<usize, Refusal> {
        self.index
            .get(id)
            .copied()
            .ok_or_else(|| Refusal(StatusCode::NOT_FOUND, format!("no item '{id}' here")))
    }

    /// The state after a step: `show` the item to show (an undone one), else the next.
    fn state(
        &self,
        annotator: &str,
        show: Option<usize>,
        did: Option<&'static str>,
        guidelines: bool,
    ) -> Result<Response, Refusal> {
        let events = self.store.events().map_err(failed)?;
        let stage = self.asks.stage(&events);
        for (kind, detail) in &stage.decided {
            self.store.decide(kind, detail).map_err(failed)?;
        }
        let queue = self.queue.only(stage.asked.as_ref());
        let shown = show.and_then(|k| queue.ids.iter().position(|id| *id == self.items[k].id));
        let position = match shown {
            Some(p) => Some(p),
            None => {
                let open = self
                    .open
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .iter()
                    .filter(|(who, _)| *who != annotator)
                    .map(|(_, id)| id.clone())
                    .collect::<Vec<_>>();
                let open: HashSet<&str> = open.iter().map(String::as_str).collect();
                queue.next(annotator, &events, &open)
            }
        };
        {
            let mut open = self
                .open
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match position {
                Some(p) => open.insert(annotator.to_string(), queue.ids[p].clone()),
                None => open.remove(annotator),
            };
        }
        let item = position.map(|p| {
            let it = &self.items[self.index[&queue.ids[p]]];
            let swapped = self.queue.shown_first(annotator, &it.id) == super::ShownFirst::Response2;
            let (first, second) = if swapped { (1, 0) } else { (0, 1) };
            ItemView {
                id: &it.id,
                data_id: &it.pair_id,
                position: p + 1,
                subset: &it.subset,
                history: &it.history,
                prompt: &it.prompt,
                first: &it.responses[first],
                second: &it.responses[second],
            }
        });
        let view = StateView {
            annotator,
            progress: queue.progress(annotator, &events),
            overlap: queue.overlap,
            item,
            guidelines: guidelines.then_some(self.guidelines.as_str()),
            did,
            status: stage.status,
        };
        Ok(Json(view).into_response())
    }
}

fn seconds(s: f64) -> Result<f64, Refusal> {
    if s.is_finite() && (0.0..=86_400.0).contains(&s) {
        Ok(s)
    } else {
        Err(bad("seconds: a number of seconds from 0 to 86400"))
    }
}

async fn blocking<F>(f: F) -> Result<Response, Refusal>
where
    F: FnOnce() -> Result<Response, Refusal> + Send + 'static,
{
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| failed(anyhow::anyhow!("{e}")))?
}

async fn page(State(s): State<Arc<Shared>>) -> Response {
    let mut r = Response::new(Body::from(s.page.html.clone()));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    if let Ok(csp) = HeaderValue::from_str(&s.page.csp) {
        h.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    r
}

async fn state(State(s): State<Arc<Shared>>, Query(who): Query<Who>) -> Result<Response, Refusal> {
    blocking(move || {
        let annotator = s.who(who.annotator)?;
        s.state(&annotator, None, None, true)
    })
    .await
}

async fn label(
    State(s): State<Arc<Shared>>,
    Json(body): Json<LabelBody>,
) -> Result<Response, Refusal> {
    blocking(move || {
        let annotator = s.who(body.annotator)?;
        let k = s.item(&body.item_id)?;
        let shown_first = s.queue.shown_first(&annotator, &s.items[k].id);
        let label = shown_first
            .label_of_key(body.key)
            .ok_or_else(|| bad("key: 1 (shown first better), 2 (shown second) or 0 (tie)"))?;
        let note = body.note.as_deref().map(str::trim);
        if note.is_some_and(|n| n.chars().count() > NOTE_LIMIT) {
            return Err(bad(format!("note: at most {NOTE_LIMIT} characters")));
        }
        s.store
            .label(&NewLabel {
                item_id: &s.items[k].id,
                annotator: &annotator,
                label,
                shown_first,
                seconds: seconds(body.seconds)?,
                note,
            })
            .map_err(failed)?;
        s.state(&annotator, None, Some("saved"), false)
    })
    .await
}

async fn skip(
    State(s): State<Arc<Shared>>,
    Json(body): Json<SkipBody>,
) -> Result<Response, Refusal> {
    blocking(move || {
        let annotator = s.who(body.annotator)?;
        let k = s.item(&body.item_id)?;
        s.store
            .skip(&s.items[k].id, &annotator, seconds(body.seconds)?)
            .map_err(failed)?;
        s.state(&annotator, None, Some("skipped"), false)
    })
    .await
}

async fn undo(
    State(s): State<Arc<Shared>>,
    Json(body): Json<UndoBody>,
) -> Result<Response, Refusal> {
    blocking(move || {
        let annotator = s.who(body.annotator)?;
        match s.store.undo(&annotator).map_err(failed)? {
            // An item of another data file (same store) is taken back, and the next shown.
            Some(id) => match s.index.get(&id) {
                Some(&k) => s.state(&annotator, Some(k), Some("undone"), false),
                None => s.state(&annotator, None, Some("undone"), false),
            },
            None => s.state(&annotator, None, Some("nothing to undo"), false),
        }
    })
    .await
}

async fn not_found() -> Refusal {
    Refusal(StatusCode::NOT_FOUND, "not found".into())
}

/// Equal in time whatever the bytes (the lengths are the token's, not secret).
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The token a request carries: `Authorization: Bearer`, or `?token=` (the page's address).
fn token_of(req: &Request) -> Option<String> {
    if let Some(v) = req.headers().get(header::AUTHORIZATION) {
        return v
            .to_str()
            .ok()
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::to_string);
    }
    req.uri()
        .query()?
        .split('&')
        .find_map(|kv| kv.strip_prefix("token="))
        .map(str::to_string)
}

/// Every request: the token first, then the headers that keep the page to itself.
async fn guard(State(s): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    let mut response = match token_of(&req) {
        None => Refusal(
            StatusCode::UNAUTHORIZED,
            "this labelling page needs its token: open the address `raterlab label` printed".into(),
        )
        .into_response(),
        Some(t) if !same(t.as_bytes(), s.token.as_bytes()) => {
            Refusal(StatusCode::FORBIDDEN, "wrong token".into()).into_response()
        }
        Some(_) => next.run(req).await,
    };
    let h = response.headers_mut();
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

/// What a server did before it stopped.
#[derive(Debug, Clone, PartialEq)]
pub struct Stopped {
    pub addr: SocketAddr,
    /// Labels in force in the store when it closed.
    pub labels: usize,
}

/// Serves the page until Ctrl-C or SIGTERM; `ready` is told the bound address first (with
/// `--port 0`, the port the system chose). The store is closed when this returns.
pub fn serve(
    config: Config,
    store: Store,
    items: Vec<Item>,
    queue: Queue,
    ready: impl FnOnce(SocketAddr) -> Result<()>,
) -> Result<Stopped> {
    let index = items
        .iter()
        .enumerate()
        .map(|(k, it)| (it.id.clone(), k))
        .collect();
    let shared = Arc::new(Shared {
        store,
        items,
        index,
        queue,
        open: Mutex::new(HashMap::new()),
        token: config.token,
        annotator: config.annotator,
        guidelines: config.guidelines,
        page: config.page,
        asks: config.asks,
    });
    let app = Router::new()
        .route("/", get(page))
        .route("/api/state", get(state))
        .route("/api/label", post(label))
        .route("/api/skip", post(skip))
        .route("/api/undo", post(undo))
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(shared.clone(), guard))
        .with_state(shared.clone());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the server's runtime")?;
    let addr = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|e| {
                crate::error::input_error(format!(
                    "cannot listen on {}: {e}; choose another --port (0 picks a free one)",
                    config.addr
                ))
            })?;
        let addr = listener.local_addr()?;
        // Listening for Ctrl-C and SIGTERM before the address is told: a signal that comes
        // as soon as the page is announced closes the store too.
        let stop = stop_signal().context("listening for Ctrl-C and SIGTERM")?;
        ready(addr)?;
        axum::serve(listener, app)
            .with_graceful_shutdown(stop)
            .await
            .context("serving the labelling page")?;
        anyhow::Ok(addr)
    })?;
    drop(runtime);
    let labels = shared.store.current()?.len();
    Ok(Stopped { addr, labels })
}

/// Ctrl-C or SIGTERM, listened for from the moment this is called (inside the runtime): the
/// future ends at the first of them.
fn stop_signal() -> std::io::Result<std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>>
{
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        Ok(Box::pin(async move {
            tokio::select! {
                _ = interrupt.recv() => {},
                _ = term.recv() => {},
            }
        }))
    }
    #[cfg(not(unix))]
    Ok(Box::pin(async {
        let _ = tokio::signal::ctrl_c().await;
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_compared_whole() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"ab"));
        assert!(!same(b"", b"a"));
    }

    #[test]
    fn annotator_names_are_plain() {
        for ok in ["ann", "bob.smith", "a-1_x@lab"] {
            assert!(valid_annotator(ok), "{ok}");
        }
        for no in ["", "a b", "<script>", "x/../y", &"a".repeat(65)] {
            assert!(!valid_annotator(no), "{no}");
        }
    }
}
