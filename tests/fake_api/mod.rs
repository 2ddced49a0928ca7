//! A fake HTTP API on loopback for the client tests: answers every request
//! with the next queued reply (or a default), records what it received and
//! how many requests were in flight at once. Stops when dropped.

#![allow(dead_code)]

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One reply: status, extra headers, JSON body.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Value,
}

impl Reply {
    pub fn ok(body: Value) -> Self {
        Self {
            status: 200,
            headers: Vec::new(),
            body,
        }
    }

    pub fn status(status: u16, body: Value) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body,
        }
    }

    pub fn header(mut self, name: &'static str, value: &str) -> Self {
        self.headers.push((name, value.to_string()));
        self
    }
}

/// What the fake received.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Computes a reply from the request body (for fakes that follow a
/// conversation instead of a fixed queue).
pub type Responder = Box<dyn Fn(&Value) -> Reply + Send + Sync>;

struct Shared {
    queue: Mutex<VecDeque<Reply>>,
    fallback: Reply,
    responder: Option<Responder>,
    received: Mutex<Vec<Received>>,
    delay: Duration,
    in_flight: AtomicUsize,
    peak: AtomicUsize,
}

pub struct FakeApi {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

pub struct Builder {
    queue: VecDeque<Reply>,
    fallback: Reply,
    responder: Option<Responder>,
    delay: Duration,
}

impl Builder {
    /// Replies used in order, one per request.
    pub fn then(mut self, reply: Reply) -> Self {
        self.queue.push_back(reply);
        self
    }

    /// The reply once the queue is empty.
    pub fn otherwise(mut self, reply: Reply) -> Self {
        self.fallback = reply;
        self
    }

    /// Replies computed from each request body (used once the queue is
    /// empty, before the fallback).
    pub fn responder(mut self, responder: Responder) -> Self {
        self.responder = Some(responder);
        self
    }

    /// How long each request is held before it is answered.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    pub fn start(self) -> FakeApi {
        let shared = Arc::new(Shared {
            queue: Mutex::new(self.queue),
            fallback: self.fallback,
            responder: self.responder,
            received: Mutex::new(Vec::new()),
            delay: self.delay,
            in_flight: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        });
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        listener.set_nonblocking(true).expect("nonblocking");
        let addr = listener.local_addr().expect("addr");
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let state = shared.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                let app = Router::new().fallback(handle).with_state(state);
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stop_rx.await;
                    })
                    .await;
            });
        });
        FakeApi {
            addr,
            shared,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    shared.peak.fetch_max(now, Ordering::SeqCst);
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    shared.received.lock().unwrap().push(Received {
        method: method.to_string(),
        path: uri.path().to_string(),
        headers: headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_string()))
            .collect(),
        body: body.clone(),
    });
    if !shared.delay.is_zero() {
        tokio::time::sleep(shared.delay).await;
    }
    let queued = shared.queue.lock().unwrap().pop_front();
    let reply = match (queued, &shared.responder) {
        (Some(reply), _) => reply,
        (None, Some(responder)) => responder(&body),
        (None, None) => shared.fallback.clone(),
    };
    shared.in_flight.fetch_sub(1, Ordering::SeqCst);
    let mut response = (
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        axum::Json(reply.body),
    )
        .into_response();
    for (name, value) in reply.headers {
        if let Ok(value) = value.parse() {
            response.headers_mut().insert(name, value);
        }
    }
    response
}

impl FakeApi {
    pub fn builder() -> Builder {
        Builder {
            queue: VecDeque::new(),
            fallback: Reply::status(500, serde_json::json!({"error": "no reply queued"})),
            responder: None,
            delay: Duration::ZERO,
        }
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().unwrap().clone()
    }

    /// The most requests that were in flight at once.
    pub fn peak_in_flight(&self) -> usize {
        self.shared.peak.load(Ordering::SeqCst)
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
