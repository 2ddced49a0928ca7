//! The mock server: any [`Model`] behind the Anthropic Messages, OpenAI
//! Chat Completions, OpenAI Responses and Gemini APIs.
//!
//! [`MockServer::start`] binds (loopback, a free port unless told), serves
//! on its own thread and runtime, and returns a [`RunningServer`] value
//! that reports its address, its record of exchanges and how long it has
//! been idle, and stops gracefully within a bound ([`RunningServer::stop`],
//! or when dropped).
//!
//! Every request is converted to the [`crate::llm::ModelRequest`] the
//! built-in loop would build, checked against the protocol rules
//! (violations are recorded, never refused), and answered by the model,
//! which is called under a lock on a blocking thread, one request at a
//! time, in arrival order. Requests the server cannot read get the API's
//! own error body with status 400 (413 over the body limit). Once the model
//! has no response left (or the turn cap is reached), every request gets a
//! closing text-only `end_turn` answer ([`super::record::FINISHED_TEXT`]),
//! so agents stop cleanly. A request that offers no tools is a side request
//! (title, topic or quota requests, context compaction): answered `OK`
//! without asking the model, and not part of the run.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Json, Response};
use axum::routing::{get, post};
use axum::{RequestExt, Router};
use futures_util::StreamExt;
use serde_json::{Value, json};
use std::borrow::Cow;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tokio::sync::watch;

use super::anthropic::{self, Usage};
use super::chunked::ChunkedBody;
use super::incremental::IncrementalReader;
use super::record::{
    Api, Exchange, FINISHED_TEXT, Finish, Lineage, Record, Reply, SIDE_TEXT, WireRequest,
};
use super::tally::Tally;
use super::translate::Translation;
use super::{BadRequest, WireError, chat, gemini, responses, sse, token_estimate};
use crate::llm::protocol::{self, Violation};
use crate::llm::{ContentBlock, Model, ModelError, ModelResponse, StopReason};

/// The largest request body accepted (64 MiB: long agent conversations
/// with file contents are big, but not this big).
pub const DEFAULT_BODY_LIMIT: usize = 64 << 20;

/// How long [`RunningServer::stop`] waits for open connections to finish.
pub const STOP_BOUND: Duration = Duration::from_secs(3);

/// How the server runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerOptions {
    /// Where to listen; port 0 picks a free port.
    pub listen: SocketAddr,
    /// The model id `GET /v1/models` lists and responses name when the
    /// request names none.
    pub model_id: String,
    /// Answer with the closing text once this many turns were served (the
    /// loop's `max_turns`); `None`: no cap.
    pub max_turns: Option<usize>,
    pub body_limit: usize,
    /// Answer requests that offer no tools with [`SIDE_TEXT`] without
    /// asking the model (a client's title, topic or quota requests, a
    /// context compaction): the agent's loop always offers its tools.
    pub side_requests: bool,
    /// The outside agent's workspace: where `{WORKDIR}` points and where
    /// the tool translation reads files (see [`super::translate`]).
    pub workspace: Option<std::path::PathBuf>,
    /// A cell with planning off: this dialect's planning tools are taken
    /// out of every request before the model sees it (and from the
    /// record), so the model is never offered them, whatever the agent
    /// sends. An agent with no switch for its planning tool (codex-acp
    /// 0.16.0 offers `update_plan` whatever its config says) thus runs a
    /// no-planning cell for real; `None`: every offered tool is shown.
    pub withheld_planning: Option<crate::plan::dialect::Dialect>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            model_id: "agent-eval-mock".to_string(),
            max_turns: None,
            body_limit: DEFAULT_BODY_LIMIT,
            side_requests: true,
            workspace: None,
            withheld_planning: None,
        }
    }
}

struct Activity {
    in_flight: usize,
    last_request_end: Instant,
}

struct Shared {
    model: Mutex<Box<dyn Model + Send>>,
    /// Held with the model's lock: calls out in the agent's tools, and the
    /// model's own calls shown back to it.
    translation: Mutex<Translation>,
    record: Mutex<Record>,
    /// The previous Anthropic request's messages, so the next one parses
    /// only what it adds (`None` while a request holds it: a request that
    /// arrives meanwhile is read whole).
    anthropic_reader: Mutex<Option<IncrementalReader>>,
    /// The protocol check of the conversation the reader read last.
    checked: Mutex<CheckedConversation>,
    /// The request the model was asked last, if a reader read it.
    asked_last: Mutex<Option<u64>>,
    activity: Mutex<Activity>,
    options: ServerOptions,
}

/// The protocol check of the last request a reader read: the next one
/// checks only what it changed.
#[derive(Default)]
struct CheckedConversation {
    serial: Option<u64>,
    check: protocol::GrowingCheck,
}

impl CheckedConversation {
    fn check(&mut self, messages: &[crate::llm::Message], lineage: Lineage) -> Vec<Violation> {
        let unchanged = lineage.unchanged_since(self.serial);
        self.serial = Some(lineage.serial);
        self.check.check(messages, unchanged)
    }
}

/// A lock that survives a panic elsewhere (the data is a plain record).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Starts mock servers.
pub struct MockServer;

impl MockServer {
    /// Binds and starts serving `model`.
    pub fn start(
        model: Box<dyn Model + Send>,
        options: ServerOptions,
    ) -> Result<RunningServer, WireError> {
        let listener = TcpListener::bind(options.listen).map_err(|source| WireError::Bind {
            addr: options.listen.to_string(),
            source,
        })?;
        let addr = listener.local_addr().map_err(WireError::Runtime)?;
        listener.set_nonblocking(true).map_err(WireError::Runtime)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(WireError::Runtime)?;
        let shared = Arc::new(Shared {
            model: Mutex::new(model),
            translation: Mutex::new(Translation::new(options.workspace.clone())),
            record: Mutex::new(Record::default()),
            anthropic_reader: Mutex::new(Some(IncrementalReader::default())),
            checked: Mutex::new(CheckedConversation::default()),
            asked_last: Mutex::new(None),
            activity: Mutex::new(Activity {
                in_flight: 0,
                last_request_end: Instant::now(),
            }),
            options,
        });
        let app = router(Arc::clone(&shared));
        let (stop_tx, stop_rx) = watch::channel(false);
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name(format!("agent-eval-serve-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(serve(listener, app, stop_rx, ready_tx));
                runtime.shutdown_timeout(Duration::from_secs(1));
            })
            .map_err(WireError::Runtime)?;
        match ready_rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(WireError::Runtime(e)),
            Err(_) => {
                return Err(WireError::Runtime(std::io::Error::other(
                    "the server thread ended while starting",
                )));
            }
        }
        Ok(RunningServer {
            addr,
            shared,
            stop_tx,
            thread: Some(thread),
        })
    }
}

async fn serve(
    listener: TcpListener,
    app: Router,
    mut stop_rx: watch::Receiver<bool>,
    ready: std::sync::mpsc::Sender<std::io::Result<()>>,
) {
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(listener) => listener,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let _ = ready.send(Ok(()));
    let mut graceful_rx = stop_rx.clone();
    let server = axum::serve(listener, app).with_graceful_shutdown(async move {
        let _ = graceful_rx.wait_for(|stop| *stop).await;
    });
    tokio::select! {
        _ = server => {}
        _ = async {
            let _ = stop_rx.wait_for(|stop| *stop).await;
            tokio::time::sleep(STOP_BOUND).await;
        } => {}
    }
}

/// A server that is serving; stops when [`RunningServer::stop`] is called
/// or when dropped.
pub struct RunningServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop_tx: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
}

impl RunningServer {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR`, the Anthropic base URL (clients add `/v1/messages`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://ADDR/v1`, the OpenAI base URL.
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every exchange so far, in the order the model answered them.
    pub fn exchanges(&self) -> Vec<Exchange> {
        lock(&self.shared.record).exchanges().to_vec()
    }

    /// Responses served so far (turns).
    pub fn turns(&self) -> usize {
        lock(&self.shared.record)
            .exchanges()
            .iter()
            .filter(|e| matches!(e.reply, Reply::Response { .. }))
            .count()
    }

    /// Whether the model is done: its latest answer ended the turn, or it
    /// had nothing left to say, or it failed.
    pub fn finished(&self) -> bool {
        script_finished(lock(&self.shared.record).exchanges())
    }

    /// How many times the model has ended its turn (or had nothing left to
    /// say): a session's next user message is due after each.
    pub fn turns_ended(&self) -> usize {
        lock(&self.shared.record)
            .exchanges()
            .iter()
            .filter(|e| e.is_loop() && ends_the_turn(&e.reply))
            .count()
    }

    /// How long no request has been in flight (zero while one is).
    pub fn idle_for(&self) -> Duration {
        let activity = lock(&self.shared.activity);
        if activity.in_flight > 0 {
            Duration::ZERO
        } else {
            activity.last_request_end.elapsed()
        }
    }

    /// Stops serving (gracefully, within [`STOP_BOUND`] plus a second) and
    /// returns the record.
    pub fn stop(mut self) -> Vec<Exchange> {
        self.shutdown();
        self.exchanges()
    }

    fn shutdown(&mut self) {
        let _ = self.stop_tx.send(true);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl std::fmt::Debug for RunningServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunningServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// Whether the record ends with the model done (see
/// [`RunningServer::finished`]).
pub fn script_finished(record: &[Exchange]) -> bool {
    record
        .iter()
        .rev()
        .find(|e| e.is_loop())
        .is_some_and(|e| ends_the_turn(&e.reply))
}

/// Whether a reply leaves the agent waiting for its user: the model ended
/// its turn, had nothing left to say, or failed.
fn ends_the_turn(reply: &Reply) -> bool {
    match reply {
        Reply::Response { response, .. } => response.stop_reason == StopReason::EndTurn,
        Reply::Finished(_) | Reply::ModelFailed { .. } => true,
        Reply::Rejected { .. } | Reply::Side => false,
    }
}

fn router(shared: Arc<Shared>) -> Router {
    let limit = shared.options.body_limit;
    Router::new()
        .route(
            "/v1/messages",
            post(messages).fallback(not_allowed_anthropic),
        )
        .route("/v1/messages/count_tokens", post(count_tokens))
        .route(
            "/v1/chat/completions",
            post(chat_completions).fallback(not_allowed_openai),
        )
        .route("/chat/completions", post(chat_completions))
        .route(
            "/v1/responses",
            post(responses_api).fallback(not_allowed_openai),
        )
        .route("/responses", post(responses_api))
        .route("/v1/models", get(models))
        .route("/v1/models/{id}", get(model).post(gemini_api))
        .route(
            "/v1beta/models/{id}",
            post(gemini_api).fallback(not_allowed_gemini),
        )
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(limit))
        .with_state(shared)
}

type SharedState = State<Arc<Shared>>;

/// `POST /v1/messages`: read on from the previous request's messages
/// (see [`IncrementalReader`]), which get them back once answered. The
/// body is taken as received ([`ChunkedBody`]): only what the reader
/// parses is put in one buffer.
async fn messages(State(shared): SharedState, request: Request) -> Response {
    let body = body_chunks(request).await;
    let reader = lock(&shared.anthropic_reader).take();
    let Some(mut reader) = reader else {
        let body = body.map(|body| body.gathered());
        return handle_with(Api::Anthropic, shared, body, |body| {
            Ok((anthropic::parse_request(body)?, None))
        })
        .await
        .0;
    };
    let (response, request) = handle_with(Api::Anthropic, Arc::clone(&shared), body, |body| {
        let request = reader.read(body)?;
        let known = reader.lineage().map(|lineage| (lineage, reader.tally()));
        Ok((request, known))
    })
    .await;
    if let Some(request) = request {
        reader.give_back(request.messages);
    }
    *lock(&shared.anthropic_reader) = Some(reader);
    response
}

/// The request's body as hyper read it, chunk by chunk, within the
/// router's body limit.
async fn body_chunks(request: Request) -> Result<ChunkedBody, BadRequest> {
    let mut stream = request.into_limited_body().into_data_stream();
    let mut body = ChunkedBody::default();
    while let Some(chunk) = stream.next().await {
        body.push(chunk.map_err(unreadable_body)?);
    }
    Ok(body)
}

/// What axum's `Bytes` extractor answers for a body it could not read
/// (its `FailedToBufferBody`): 413 over the body limit, else 400, with the
/// same message, so a client sees the same answer whichever way the body
/// was taken.
fn unreadable_body(error: axum::Error) -> BadRequest {
    let inner = error.into_inner();
    let inner = match inner.downcast::<axum::Error>() {
        Ok(wrapped) => wrapped.into_inner(),
        Err(inner) => inner,
    };
    let status = if inner.is::<http_body_util::LengthLimitError>() {
        413
    } else {
        400
    };
    BadRequest {
        status,
        message: format!("Failed to buffer the request body: {inner}"),
    }
}

/// What the `Bytes` extractor's refusal answers.
fn rejected(rejection: BytesRejection) -> BadRequest {
    BadRequest {
        status: rejection.status().as_u16(),
        message: rejection.body_text(),
    }
}

async fn chat_completions(
    State(shared): SharedState,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    handle(Api::ChatCompletions, shared, body).await
}

async fn responses_api(
    State(shared): SharedState,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    handle(Api::Responses, shared, body).await
}

/// `POST /v1beta/models/{model}:{method}` (and the same under `/v1`).
async fn gemini_api(
    State(shared): SharedState,
    Path(segment): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    match gemini::method_of(&segment) {
        Ok(gemini::Method::Generate { model, stream }) => {
            handle_with(Api::Gemini, shared, body.map_err(rejected), |body| {
                Ok((gemini::parse_request(body, &model, stream)?, None))
            })
            .await
            .0
        }
        Ok(gemini::Method::CountTokens) => match body {
            Ok(body) => {
                let chars = body.len();
                Json(gemini::count_tokens_json(token_estimate(chars, 2_000))).into_response()
            }
            Err(e) => error_response(Api::Gemini, e.status().as_u16(), &e.body_text()),
        },
        Err(e) => error_response(Api::Gemini, e.status, &e.message),
    }
}

async fn not_allowed_gemini() -> Response {
    error_response(Api::Gemini, 405, "method not allowed: use POST")
}

async fn count_tokens(body: Result<Bytes, BytesRejection>) -> Response {
    let parsed = body
        .map_err(rejected)
        .and_then(|body| anthropic::parse_request(&body));
    match parsed {
        Ok(request) => {
            Json(json!({"input_tokens": input_tokens(&request, Tally::of(&request.messages))}))
                .into_response()
        }
        Err(e) => error_response(Api::Anthropic, e.status, &e.message),
    }
}

async fn not_allowed_anthropic() -> Response {
    error_response(Api::Anthropic, 405, "method not allowed: use POST")
}

async fn not_allowed_openai() -> Response {
    error_response(Api::ChatCompletions, 405, "method not allowed: use POST")
}

async fn not_found(uri: axum::http::Uri) -> Response {
    let api = if uri.path().contains("messages") {
        Api::Anthropic
    } else if uri.path().starts_with("/v1beta") || uri.path().contains(':') {
        Api::Gemini
    } else {
        Api::ChatCompletions
    };
    error_response(api, 404, &format!("no such endpoint: {}", uri.path()))
}

fn model_entry(id: &str) -> Value {
    // One object both SDKs read: Anthropic's fields and OpenAI's.
    json!({
        "type": "model",
        "id": id,
        "display_name": id,
        "created_at": "1970-01-01T00:00:00Z",
        "object": "model",
        "created": 0,
        "owned_by": "agent-eval",
    })
}

async fn models(State(shared): SharedState) -> Response {
    let id = &shared.options.model_id;
    Json(json!({
        "object": "list",
        "data": [model_entry(id)],
        "has_more": false,
        "first_id": id,
        "last_id": id,
    }))
    .into_response()
}

async fn model(State(shared): SharedState, Path(id): Path<String>) -> Response {
    if id == shared.options.model_id {
        Json(model_entry(&id)).into_response()
    } else {
        error_response(
            Api::ChatCompletions,
            404,
            &format!("model `{id}` not found"),
        )
    }
}

fn error_response(api: Api, status: u16, message: &str) -> Response {
    let body = match api {
        Api::Anthropic => anthropic::error_json(status, message),
        Api::ChatCompletions | Api::Responses => chat::error_json(status, message),
        Api::Gemini => gemini::error_json(status, message),
    };
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    (status, Json(body)).into_response()
}

/// Marks a request in flight until dropped.
struct InFlight(Arc<Shared>);

impl InFlight {
    fn new(shared: &Arc<Shared>) -> Self {
        lock(&shared.activity).in_flight += 1;
        Self(Arc::clone(shared))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut activity = lock(&self.0.activity);
        activity.in_flight = activity.in_flight.saturating_sub(1);
        activity.last_request_end = Instant::now();
    }
}

async fn handle(api: Api, shared: Arc<Shared>, body: Result<Bytes, BytesRejection>) -> Response {
    let parse = |body: &Bytes| match api {
        Api::Anthropic => anthropic::parse_request(body),
        Api::ChatCompletions => chat::parse_request(body),
        Api::Responses => responses::parse_request(body),
        Api::Gemini => Err(BadRequest {
            status: 404,
            message: "the Gemini API is served under /v1beta/models/MODEL:generateContent".into(),
        }),
    };
    handle_with(api, shared, body.map_err(rejected), |body| {
        Ok((parse(body)?, None))
    })
    .await
    .0
}

/// Reads the body with `parse` (the request, and when the reader knows,
/// where it stands among those read before and its counts), asks the
/// model, answers in
/// `api`'s shape; returns the answer and the request read (`None` when it
/// was not).
async fn handle_with<B>(
    api: Api,
    shared: Arc<Shared>,
    body: Result<B, BadRequest>,
    parse: impl FnOnce(&B) -> Result<(WireRequest, Option<(Lineage, Tally)>), BadRequest>,
) -> (Response, Option<WireRequest>) {
    let _in_flight = InFlight::new(&shared);
    let parsed = body.and_then(|body| parse(&body));
    let (request, known) = match parsed {
        Ok(read) => read,
        Err(e) => {
            lock(&shared.record).push(
                api,
                None,
                Reply::Rejected {
                    status: e.status,
                    message: e.message.clone(),
                },
                Vec::new(),
            );
            return (error_response(api, e.status, &e.message), None);
        }
    };
    let lineage = known.map(|(lineage, _)| lineage);
    let tally = known.map_or_else(|| Tally::of(&request.messages), |(_, tally)| tally);
    let worker = Arc::clone(&shared);
    let answered =
        tokio::task::spawn_blocking(move || answer(&worker, api, request, lineage, tally)).await;
    let (index, request, reply) = match answered {
        Ok(answered) => answered,
        Err(e) => {
            let response = error_response(api, 500, &format!("the model failed: {e}"));
            return (response, None);
        }
    };
    let mut response = render(api, &shared.options, index, &request, tally, &reply);
    // Tells agent-eval's own HTTP clients (the built-in loop through the
    // wire) that the script is used up, so they stop as in process; other
    // clients only see the closing text.
    if let Reply::Finished(Finish::ScriptExhausted) = reply {
        response.headers_mut().insert(
            crate::model::http::MOCK_FINISH_HEADER,
            axum::http::HeaderValue::from_static("script_exhausted"),
        );
    }
    (response, Some(request))
}

/// Asks the model (under its lock, so the record follows the model's order)
/// and records the exchange. Returns the exchange's 1-based number.
fn answer(
    shared: &Shared,
    api: Api,
    mut request: WireRequest,
    lineage: Option<Lineage>,
    tally: Tally,
) -> (usize, WireRequest, Reply) {
    if shared.options.side_requests && request.tools.is_empty() {
        let index = record(shared, api, &request, Reply::Side, Vec::new(), lineage);
        return (index, request, Reply::Side);
    }
    if let Some(dialect) = shared.options.withheld_planning {
        request
            .tools
            .retain(|t| !dialect.get().is_planning_tool(&t.name));
    }
    let violations = match lineage {
        Some(lineage) => lock(&shared.checked).check(&request.messages, lineage),
        None => protocol::check(&request.messages),
    };
    let mut model = lock(&shared.model);
    let turns_served = lock(&shared.record).responses();
    let at_cap = shared
        .options
        .max_turns
        .is_some_and(|cap| turns_served >= cap);
    let reply = if at_cap {
        Reply::Finished(Finish::MaxTurns)
    } else {
        let seen = lock(&shared.translation).model_view(&request);
        let shown = seen.model_messages();
        // The model is told what it was shown before only when it is shown
        // the request as read, and its last request was the one before.
        let as_read = match (&seen, &shown) {
            (Cow::Borrowed(_), Cow::Borrowed(_)) => lineage,
            _ => None,
        };
        let mut asked_last = lock(&shared.asked_last);
        let unchanged = as_read.map_or(0, |lineage| lineage.unchanged_since(*asked_last));
        *asked_last = as_read.map(|lineage| lineage.serial);
        drop(asked_last);
        let asked = crate::llm::ModelRequest {
            system: &seen.system,
            messages: &shown,
            turn: crate::llm::count_turn(&shown),
            tools: &seen.tools,
            unchanged,
        };
        match model.respond(&asked) {
            Ok(response) => {
                let response = agent_view(shared, &request, response);
                let turn = tally.turn();
                match anthropic::freeform_call(&response) {
                    Some(name) if api != Api::Responses => Reply::ModelFailed {
                        status: 400,
                        message: format!(
                            "turn {turn}: the call of `{name}` has a freeform (string) input, which only the OpenAI Responses API can carry ({} cannot)",
                            api.name()
                        ),
                    },
                    _ => Reply::Response { turn, response },
                }
            }
            Err(ModelError::ScriptExhausted { .. }) => Reply::Finished(Finish::ScriptExhausted),
            Err(e) => Reply::ModelFailed {
                status: 400,
                message: e.to_string(),
            },
        }
    };
    let index = record(shared, api, &request, reply.clone(), violations, lineage);
    (index, request, reply)
}

/// Records an exchange: on from the request before it when the reader
/// knows where it stands.
fn record(
    shared: &Shared,
    api: Api,
    request: &WireRequest,
    reply: Reply,
    violations: Vec<Violation>,
    lineage: Option<Lineage>,
) -> usize {
    let mut record = lock(&shared.record);
    match lineage {
        Some(lineage) => record.push_read(api, request, reply, violations, lineage),
        None => record.push(api, Some(request), reply, violations),
    }
}

/// The model's response in the agent's tools. The workspace files the
/// translation needs are read first, under no lock but the model's (which
/// orders the turns): non-blocking, regular files only, capped, beneath
/// the workspace (`translate::workspace_file`).
fn agent_view(shared: &Shared, request: &WireRequest, response: ModelResponse) -> ModelResponse {
    let (workspace, paths) = {
        let translation = lock(&shared.translation);
        let workspace = translation.workspace().map(std::path::Path::to_path_buf);
        (workspace, translation.files_to_read(&response))
    };
    let on_disk = super::translate::workspace_file::read_files(workspace.as_deref(), &paths);
    lock(&shared.translation).agent_view_of(request, response, on_disk)
}

/// The input tokens reported for a request: its system prompt's and its
/// messages' texts (`tally`), estimated.
fn input_tokens(request: &WireRequest, tally: Tally) -> u64 {
    token_estimate(request.system.len() + tally.text_chars, 2_000)
}

fn render(
    api: Api,
    options: &ServerOptions,
    index: usize,
    request: &WireRequest,
    tally: Tally,
    reply: &Reply,
) -> Response {
    let closing;
    let response: &ModelResponse = match reply {
        Reply::Response { response, .. } => response,
        Reply::Finished(_) => {
            closing = ModelResponse::from_blocks(vec![ContentBlock::text(FINISHED_TEXT)]);
            &closing
        }
        Reply::Side => {
            closing = ModelResponse::from_blocks(vec![ContentBlock::text(SIDE_TEXT)]);
            &closing
        }
        Reply::ModelFailed { status, message } | Reply::Rejected { status, message } => {
            return error_response(api, *status, message);
        }
    };
    let usage = Usage {
        input: input_tokens(request, tally),
        output: token_estimate(
            serde_json::to_string(&response.content).map_or(0, |s| s.len()),
            500,
        ),
    };
    let model = request.model.as_deref().unwrap_or(&options.model_id);
    match (api, request.stream) {
        (Api::Anthropic, false) => Json(anthropic::response_json(
            response,
            &format!("msg_{index:08}"),
            model,
            usage,
        ))
        .into_response(),
        (Api::Anthropic, true) => sse::into_response(anthropic::response_events(
            response,
            &format!("msg_{index:08}"),
            model,
            usage,
        )),
        (Api::ChatCompletions, false) => Json(chat::response_json(
            response,
            &format!("chatcmpl-{index:08}"),
            model,
            usage,
        ))
        .into_response(),
        (Api::ChatCompletions, true) => sse::into_response(chat::response_events(
            response,
            &format!("chatcmpl-{index:08}"),
            model,
            usage,
            request.stream_usage,
        )),
        (Api::Responses, false) => Json(responses::response_json(
            response,
            &format!("resp_{index:08}"),
            model,
            usage,
        ))
        .into_response(),
        (Api::Responses, true) => sse::into_response(responses::response_events(
            response,
            &format!("resp_{index:08}"),
            model,
            usage,
        )),
        (Api::Gemini, false) => Json(gemini::response_json(
            response,
            &format!("gen_{index:08}"),
            model,
            usage,
        ))
        .into_response(),
        (Api::Gemini, true) => sse::into_response(gemini::response_events(
            response,
            &format!("gen_{index:08}"),
            model,
            usage,
        )),
    }
}
