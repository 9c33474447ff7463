//! An in-process HTTP/1.1 server on 127.0.0.1 for tests: keep-alive, request log, and
//! injected faults (error statuses, delays, bodies cut short, dropped connections).

// Delays, hang-ups and request bodies serve the judge-client tests too.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// A request as received.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the server does with a request.
#[derive(Debug, Clone)]
pub enum Reply {
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// Announces the whole body's length, sends only `sent` bytes, then closes.
    CutShort { body: Vec<u8>, sent: usize },
    /// Waits, then replies.
    Delayed(Duration, Box<Reply>),
    /// Closes the connection without answering.
    Hangup,
}

impl Reply {
    pub fn status(status: u16, body: &str) -> Self {
        Reply::Full {
            status,
            headers: vec![],
            body: body.as_bytes().to_vec(),
        }
    }

    pub fn bytes(body: Vec<u8>) -> Self {
        Reply::Full {
            status: 200,
            headers: vec![],
            body,
        }
    }
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// The server; stops when dropped.
pub struct MockServer {
    pub url: String,
    pub requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
    addr: std::net::SocketAddr,
}

impl MockServer {
    pub fn start(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Self {
        Self::start_on("127.0.0.1:0", handler)
    }

    /// On a given address (e.g. the port of a server that died, to stand in for it).
    pub fn start_on(
        address: &str,
        handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
    ) -> Self {
        let listener = TcpListener::bind(address).expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("address");
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let (log, flag) = (requests.clone(), stop.clone());
        thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (handler, log) = (handler.clone(), log.clone());
                thread::spawn(move || serve(stream, &*handler, &log));
            }
        });
        Self {
            url: format!("http://{addr}"),
            requests,
            stop,
            addr,
        }
    }

    pub fn count(&self) -> usize {
        self.requests.lock().map(|r| r.len()).unwrap_or(0)
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let length = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Writes a reply; false when the connection must close.
fn write_reply(stream: &mut TcpStream, reply: Reply) -> bool {
    match reply {
        Reply::Full {
            status,
            headers,
            body,
        } => {
            let mut head = format!(
                "HTTP/1.1 {status} {}\r\nContent-Length: {}\r\n",
                reason(status),
                body.len()
            );
            if !headers
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            {
                head.push_str("Content-Type: application/octet-stream\r\n");
            }
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            // One write: head and body split over two segments would meet Nagle's algorithm
            // and the client's delayed ACK (a 40 ms stall per reply), as real servers avoid.
            let mut reply = head.into_bytes();
            reply.extend_from_slice(&body);
            stream.write_all(&reply).is_ok()
        }
        Reply::CutShort { body, sent } => {
            let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body[..sent.min(body.len())]);
            let _ = stream.flush();
            let _ = stream.shutdown(Shutdown::Both);
            false
        }
        Reply::Delayed(wait, inner) => {
            thread::sleep(wait);
            write_reply(stream, *inner)
        }
        Reply::Hangup => {
            let _ = stream.shutdown(Shutdown::Both);
            false
        }
    }
}

fn serve(stream: TcpStream, handler: &Handler, log: &Mutex<Vec<Request>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let _ = stream.set_nodelay(true);
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    while let Some(request) = read_request(&mut reader) {
        // Counted when received, before the handler answers (a held answer is a call made).
        if let Ok(mut l) = log.lock() {
            l.push(request.clone());
        }
        let reply = handler(&request);
        if !write_reply(&mut writer, reply) {
            return;
        }
    }
}
