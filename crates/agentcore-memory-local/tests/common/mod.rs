//! Helpers shared by the integration tests: starting servers, SDK clients
//! pointed at them, event shortcuts, error inspection, a hand-written HTTP/1.1
//! client for malformed requests, and a handle on the server binary.
//!
//! Every integration test file compiles this module on its own, so helpers a
//! file does not use would warn.
#![allow(dead_code)]

use std::collections::HashMap;
use std::future::Future;
use std::io::BufRead;
use std::process::{Child, ChildStdout, Command, ExitStatus, Stdio};
use std::time::Duration;

use agentcore_memory_local::{new_memory_id, LocalMemory, Options};
use aws_credential_types::Credentials;
use aws_sdk_bedrockagentcore::config::retry::RetryConfig;
use aws_sdk_bedrockagentcore::config::timeout::TimeoutConfig;
use aws_sdk_bedrockagentcore::config::{BehaviorVersion, Region};
use aws_sdk_bedrockagentcore::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_bedrockagentcore::operation::create_event::builders::CreateEventFluentBuilder;
use aws_sdk_bedrockagentcore::operation::list_events::builders::ListEventsFluentBuilder;
use aws_sdk_bedrockagentcore::types::{
    Event, EventMetadataFilterExpression, FilterInput, LeftExpression, MetadataValue, OperatorType,
    PayloadType, RightExpression,
};
use aws_sdk_bedrockagentcore::Client;
use aws_smithy_types::{DateTime, Document, Number};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A fixed instant (2025-06-15) so tests can build timestamps by offset.
pub const T0: i64 = 1_750_000_000_000;

/// The Authorization value of hand-written requests: well-formed SigV4 for
/// the service; the emulator parses it but does not verify the signature.
pub const RAW_AUTH: &str = "AWS4-HMAC-SHA256 Credential=AKIDLOCALTEST/20250101/us-east-1/bedrock-agentcore/aws4_request, SignedHeaders=host;x-amz-date, Signature=abcdef0123456789";

/// Upper bound for anything a test awaits that could hang on a server bug.
pub const PATIENCE: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------- servers --

/// An in-memory server with default options.
pub async fn start() -> LocalMemory {
    start_with(Options::default()).await
}

pub async fn start_with(options: Options) -> LocalMemory {
    within(LocalMemory::start(options))
        .await
        .expect("server starts")
}

/// Awaits `f`, failing the test instead of hanging when the server does not
/// answer.
pub async fn within<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(PATIENCE, f)
        .await
        .expect("operation did not finish in time")
}

// ---------------------------------------------------------------- clients --

/// A client for `server`. Retries are disabled everywhere: the SDK would
/// otherwise hide 429/500 answers and inflate the server's request counts.
pub fn client(server: &LocalMemory) -> Client {
    client_for(&server.endpoint())
}

pub fn client_for(endpoint: &str) -> Client {
    client_with_timeout(endpoint, Duration::from_secs(30))
}

/// A client whose every operation is bounded by `timeout`, so no test can
/// wait forever on a request.
pub fn client_with_timeout(endpoint: &str, timeout: Duration) -> Client {
    let credentials = Credentials::new("AKIDLOCALTEST", "secret", None, None, "test");
    let timeouts = TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(10))
        .operation_timeout(timeout)
        .build();
    let config = aws_sdk_bedrockagentcore::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(credentials)
        .endpoint_url(endpoint)
        .retry_config(RetryConfig::disabled())
        .timeout_config(timeouts)
        .build();
    Client::from_conf(config)
}

// ----------------------------------------------------------------- scopes --

/// One session of one actor in one memory: the coordinates most calls need.
#[derive(Clone)]
pub struct Scope {
    pub client: Client,
    pub memory: String,
    pub actor: String,
    pub session: String,
}

impl Scope {
    /// A session in a fresh memory, so tests never see each other's events.
    pub fn new(client: &Client) -> Self {
        Self::in_memory(client, &new_memory_id(), "actor-1", "session-1")
    }

    pub fn in_memory(client: &Client, memory: &str, actor: &str, session: &str) -> Self {
        Self {
            client: client.clone(),
            memory: memory.into(),
            actor: actor.into(),
            session: session.into(),
        }
    }

    /// Another session (or actor) of the same memory.
    pub fn with(&self, actor: &str, session: &str) -> Self {
        Self::in_memory(&self.client, &self.memory, actor, session)
    }

    /// A CreateEvent with the coordinates and timestamp filled in.
    pub fn create(&self, ts_ms: i64) -> CreateEventFluentBuilder {
        self.client
            .create_event()
            .memory_id(&self.memory)
            .actor_id(&self.actor)
            .session_id(&self.session)
            .event_timestamp(DateTime::from_millis(ts_ms))
    }

    /// Creates an event whose blob records its timestamp; panics on error.
    pub async fn put(&self, ts_ms: i64) -> Event {
        let request = self
            .create(ts_ms)
            .payload(blob(&serde_json::json!({ "ts": ts_ms })));
        send_ok(request.send())
            .await
            .event
            .expect("event in response")
    }

    /// Creates an event with one metadata entry.
    pub async fn put_tagged(&self, ts_ms: i64, key: &str, value: &str) -> Event {
        let request = self
            .create(ts_ms)
            .payload(blob(&serde_json::json!({ "ts": ts_ms })))
            .metadata(key, MetadataValue::StringValue(value.into()));
        send_ok(request.send())
            .await
            .event
            .expect("event in response")
    }

    pub fn list(&self) -> ListEventsFluentBuilder {
        self.client
            .list_events()
            .memory_id(&self.memory)
            .actor_id(&self.actor)
            .session_id(&self.session)
    }

    /// Every event of the session, following nextToken; bounded so a token
    /// that never ends fails the test instead of looping forever.
    pub async fn list_all(&self, filter: Option<FilterInput>, page_size: i32) -> Vec<Event> {
        let mut events = Vec::new();
        let mut token: Option<String> = None;
        for _ in 0..1_000 {
            let page = send_ok(
                self.list()
                    .max_results(page_size)
                    .set_filter(filter.clone())
                    .set_next_token(token.take())
                    .send(),
            )
            .await;
            events.extend(page.events().iter().cloned());
            match page.next_token() {
                Some(t) => token = Some(t.to_string()),
                None => return events,
            }
        }
        panic!("ListEvents kept returning a nextToken after 1000 pages");
    }

    pub async fn list_ids(&self) -> Vec<String> {
        ids(&self.list_all(None, 100).await)
    }
}

pub fn ids(events: &[Event]) -> Vec<String> {
    events.iter().map(|e| e.event_id().to_string()).collect()
}

/// Awaits an SDK call that must succeed, showing the full error otherwise.
pub async fn send_ok<T, E>(call: impl Future<Output = Result<T, SdkError<E>>>) -> T
where
    E: std::error::Error + 'static,
{
    match within(call).await {
        Ok(output) => output,
        Err(e) => panic!("request failed: {}", DisplayErrorContext(&e)),
    }
}

// --------------------------------------------------------------- payloads --

/// A blob payload item holding `value`.
pub fn blob(value: &Value) -> PayloadType {
    PayloadType::Blob(document(value))
}

pub fn document(value: &Value) -> Document {
    match value {
        Value::Null => Document::Null,
        Value::Bool(b) => Document::Bool(*b),
        Value::Number(n) => Document::Number(if let Some(u) = n.as_u64() {
            Number::PosInt(u)
        } else if let Some(i) = n.as_i64() {
            Number::NegInt(i)
        } else {
            Number::Float(n.as_f64().expect("finite number"))
        }),
        Value::String(s) => Document::String(s.clone()),
        Value::Array(a) => Document::Array(a.iter().map(document).collect()),
        Value::Object(o) => {
            Document::Object(o.iter().map(|(k, v)| (k.clone(), document(v))).collect())
        }
    }
}

/// The JSON value of a document, for comparisons that ignore how the SDK
/// happened to type a number.
pub fn to_json(doc: &Document) -> Value {
    match doc {
        Document::Null => Value::Null,
        Document::Bool(b) => Value::Bool(*b),
        Document::Number(Number::PosInt(u)) => Value::from(*u),
        Document::Number(Number::NegInt(i)) => Value::from(*i),
        Document::Number(Number::Float(f)) => Value::from(*f),
        Document::String(s) => Value::String(s.clone()),
        Document::Array(a) => Value::Array(a.iter().map(to_json).collect()),
        Document::Object(o) => {
            Value::Object(o.iter().map(|(k, v)| (k.clone(), to_json(v))).collect())
        }
    }
}

/// The JSON of the blob items of an event, in order.
pub fn blobs(event: &Event) -> Vec<Value> {
    event
        .payload()
        .iter()
        .filter_map(|p| p.as_blob().ok().map(to_json))
        .collect()
}

/// The metadata of an event as plain strings.
pub fn metadata_map(event: &Event) -> HashMap<String, String> {
    event
        .metadata()
        .into_iter()
        .flatten()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_string_value().expect("string value").clone(),
            )
        })
        .collect()
}

// ------------------------------------------------------------ timestamps --

/// Milliseconds of a timestamp. The SDK parses `...600.123` through f64, so
/// the sub-second part is rounded, not truncated.
pub fn to_ms(t: &DateTime) -> i64 {
    t.secs() * 1000 + (f64::from(t.subsec_nanos()) / 1e6).round() as i64
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

// ---------------------------------------------------------------- filters --

pub fn metadata_filter(
    key: &str,
    operator: OperatorType,
    value: Option<&str>,
) -> EventMetadataFilterExpression {
    EventMetadataFilterExpression::builder()
        .left(LeftExpression::MetadataKey(key.into()))
        .operator(operator)
        .set_right(
            value.map(|v| RightExpression::MetadataValue(MetadataValue::StringValue(v.into()))),
        )
        .build()
        .expect("valid filter expression")
}

pub fn filter_of(expressions: Vec<EventMetadataFilterExpression>) -> FilterInput {
    FilterInput::builder()
        .set_event_metadata(Some(expressions))
        .build()
}

// ----------------------------------------------------------------- errors --

/// What a failed call looked like on the wire.
#[derive(Debug)]
pub struct Failure {
    pub status: Option<u16>,
    pub code: Option<String>,
    pub message: String,
}

impl Failure {
    /// Asserts a ValidationException (HTTP 400) whose message names `field`.
    pub fn assert_validation(&self, field: &str) {
        assert_eq!(self.status, Some(400), "{self:?}");
        assert_eq!(
            self.code.as_deref(),
            Some("ValidationException"),
            "{self:?}"
        );
        assert!(
            self.message.contains(field),
            "message should name '{field}': {self:?}"
        );
    }

    pub fn assert_code(&self, status: u16, code: &str) {
        assert_eq!(self.status, Some(status), "{self:?}");
        assert_eq!(self.code.as_deref(), Some(code), "{self:?}");
    }
}

pub fn failure<E>(err: &SdkError<E>) -> Failure
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    Failure {
        status: err.raw_response().map(|r| r.status().as_u16()),
        code: err.code().map(str::to_string),
        message: err
            .message()
            .map(str::to_string)
            .unwrap_or_else(|| DisplayErrorContext(err).to_string()),
    }
}

/// Awaits an SDK call that must fail, and describes the failure.
pub async fn send_err<T: std::fmt::Debug, E>(
    call: impl Future<Output = Result<T, SdkError<E>>>,
) -> Failure
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    match within(call).await {
        Ok(output) => panic!("expected an error, got {output:?}"),
        Err(e) => failure(&e),
    }
}

/// The outcome of a call as a short label: "ok" or the error code, so runs
/// can be compared as sequences.
pub fn outcome<T, E>(result: &Result<T, SdkError<E>>) -> String
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    match result {
        Ok(_) => "ok".into(),
        Err(e) => failure(e)
            .code
            .unwrap_or_else(|| format!("{}", DisplayErrorContext(e))),
    }
}

// --------------------------------------------------------------- raw HTTP --

/// A response read off a raw socket.
#[derive(Debug)]
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The error type without the optional `:namespace` suffix AWS allows.
    pub fn error_type(&self) -> Option<&str> {
        self.header("x-amzn-errortype")
            .map(|v| v.split(':').next().unwrap_or(v))
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body is not JSON ({e}): {:?}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// Asserts a JSON error body carrying a non-empty message.
    pub fn assert_json_message(&self) {
        let message = self.json()["message"].as_str().map(str::to_string);
        assert!(
            message.is_some_and(|m| !m.is_empty()),
            "no message in {:?}",
            String::from_utf8_lossy(&self.body)
        );
    }
}

/// Sends one hand-written HTTP/1.1 request with `Connection: close` and
/// reads the whole response, failing the test after `PATIENCE`.
pub async fn raw_request(
    endpoint: &str,
    method: &str,
    path: &str,
    authorization: Option<&str>,
    body: &[u8],
) -> RawResponse {
    let host = endpoint.trim_start_matches("http://");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nX-Amz-Date: 20250101T000000Z\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(auth) = authorization {
        head.push_str(&format!("Authorization: {auth}\r\n"));
    }
    head.push_str("\r\n");
    let bytes = within(async {
        let mut stream = tokio::net::TcpStream::connect(host).await.expect("connect");
        stream.write_all(head.as_bytes()).await.expect("write head");
        stream.write_all(body).await.expect("write body");
        let mut response = Vec::new();
        stream
            .read_to_end(&mut response)
            .await
            .expect("read response");
        response
    })
    .await;
    parse_response(&bytes)
}

fn parse_response(bytes: &[u8]) -> RawResponse {
    let split = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(bytes)));
    let head = String::from_utf8_lossy(&bytes[..split]).to_string();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut response = RawResponse {
        status,
        headers,
        body: bytes[split + 4..].to_vec(),
    };
    if response
        .header("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        response.body = dechunk(&response.body);
    }
    response
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = data.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&data[..eol]).to_string();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16)
            .expect("chunk size");
        if size == 0 {
            break;
        }
        out.extend_from_slice(&data[eol + 2..eol + 2 + size]);
        data = &data[eol + 2 + size + 2..];
    }
    out
}

// ----------------------------------------------------------------- binary --

/// The server binary running as a child process. Dropping the handle kills
/// the child, so a failing test does not leave a server behind.
pub struct ServerProcess {
    child: Child,
    stdout: Option<std::io::BufReader<ChildStdout>>,
    pub endpoint: String,
}

const LISTENING: &str = "agentcore-memory-local listening on ";

impl ServerProcess {
    /// Starts the binary with `args` and waits for its listening line.
    pub async fn spawn(args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agentcore-memory-local"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn the server binary");
        let stdout = std::io::BufReader::new(child.stdout.take().expect("piped stdout"));
        let (line, stdout) = within(tokio::task::spawn_blocking(move || {
            let mut stdout = stdout;
            let mut line = String::new();
            stdout.read_line(&mut line).expect("read stdout");
            (line, stdout)
        }))
        .await
        .expect("reader thread");
        let endpoint = line
            .trim_end()
            .strip_prefix(LISTENING)
            .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
            .to_string();
        Self {
            child,
            stdout: Some(stdout),
            endpoint,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a signal by name (`TERM`, `INT`) with kill(1).
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .arg(format!("-{name}"))
            .arg(self.pid().to_string())
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -{name} failed");
    }

    /// SIGKILL: the process gets no chance to flush anything.
    pub fn kill9(&mut self) {
        self.child.kill().expect("SIGKILL the server");
        self.child.wait().expect("reap the server");
    }

    /// Waits for the process to exit, polling so the wait is bounded.
    pub async fn wait(&mut self, limit: Duration) -> ExitStatus {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "server did not exit within {limit:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Everything the process printed after its listening line; call after
    /// it exited (the pipe is then closed, so this cannot block for long).
    pub async fn rest_of_stdout(&mut self) -> String {
        let mut stdout = self.stdout.take().expect("stdout not read yet");
        within(tokio::task::spawn_blocking(move || {
            let mut rest = String::new();
            std::io::Read::read_to_string(&mut stdout, &mut rest).expect("read stdout");
            rest
        }))
        .await
        .expect("reader thread")
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
