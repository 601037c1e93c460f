//! The HTTP server: routes, the per-request pipeline (admission, body
//! limit, signature, faults, accounting) and starting and stopping.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{to_bytes, Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use http_body_util::BodyExt;
use tokio::net::TcpListener;
use tokio::sync::{oneshot, Semaphore};
use tokio::task::JoinHandle;

use crate::auth;
use crate::error::ApiError;
use crate::faults::{Fault, Faults};
use crate::handlers::{self, Params, Reply};
use crate::ids::new_request_id;
use crate::options::{ListOrder, Options};
use crate::stats::{Counters, Operation, Stats};
use crate::store::Store;

/// Request bodies in flight at most, whatever the per-request limit: a flood
/// of large requests is refused with 429 instead of exhausting memory.
const MIN_BODY_BUDGET: usize = 256 << 20;
/// How long `close()` waits for requests in flight.
const CLOSE_GRACE: Duration = Duration::from_secs(10);

pub struct App {
    pub store: Store,
    faults: Faults,
    counters: Counters,
    max_request_bytes: usize,
    pub list_order: ListOrder,
    in_flight: Semaphore,
    /// Body bytes in flight, in KiB.
    body_budget: Semaphore,
}

#[derive(Debug)]
pub struct StartError(pub String);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StartError {}

/// A running server. Dropping it stops the server; `close()` also waits for
/// requests in flight and for the store to flush.
pub struct LocalMemory {
    addr: SocketAddr,
    app: Arc<App>,
    shutdown: Option<oneshot::Sender<()>>,
    serving: Option<JoinHandle<()>>,
}

impl LocalMemory {
    pub async fn start(options: Options) -> Result<Self, StartError> {
        options.check().map_err(StartError)?;
        let store = Store::open(options.data_dir.as_deref()).map_err(|e| StartError(e.0))?;
        let listener = TcpListener::bind((options.host.as_str(), options.port))
            .await
            .map_err(|e| {
                StartError(format!(
                    "cannot listen on {}:{}: {e}",
                    options.host, options.port
                ))
            })?;
        let addr = listener
            .local_addr()
            .map_err(|e| StartError(e.to_string()))?;
        let body_budget = MIN_BODY_BUDGET
            .max(4 * options.max_request_bytes)
            .div_ceil(1024);
        let app = Arc::new(App {
            store,
            faults: Faults::new(&options),
            counters: Counters::default(),
            max_request_bytes: options.max_request_bytes,
            list_order: options.list_order,
            in_flight: Semaphore::new(options.max_in_flight),
            body_budget: Semaphore::new(body_budget),
        });
        let (shutdown, signal) = oneshot::channel::<()>();
        let router = routes(app.clone());
        let serving = tokio::spawn(async move {
            let stop = async {
                let _ = signal.await;
            };
            if let Err(e) = axum::serve(listener, router)
                .with_graceful_shutdown(stop)
                .await
            {
                eprintln!("agentcore-memory-local: server error: {e}");
            }
        });
        Ok(Self {
            addr,
            app,
            shutdown: Some(shutdown),
            serving: Some(serving),
        })
    }

    /// The base URL for an SDK's endpoint override.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn stats(&self) -> Stats {
        self.app.counters.snapshot()
    }

    pub fn reset_stats(&self) {
        self.app.counters.reset()
    }

    /// Stops accepting connections, lets requests in flight finish, and
    /// closes the store.
    pub async fn close(mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(mut serving) = self.serving.take() {
            if tokio::time::timeout(CLOSE_GRACE, &mut serving)
                .await
                .is_err()
            {
                serving.abort();
            }
        }
        self.app.store.close().await;
    }
}

impl Drop for LocalMemory {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

fn routes(app: Arc<App>) -> Router {
    let op = |op: Operation| {
        move |State(app): State<Arc<App>>,
              params: Result<Path<Params>, PathRejection>,
              request: Request| { serve(app, op, params, request) }
    };
    let event = "/memories/{memoryId}/actor/{actorId}/sessions/{sessionId}/events/{eventId}";
    Router::new()
        .route(
            "/memories/{memoryId}/events",
            post(op(Operation::CreateEvent)),
        )
        .route(
            event,
            get(op(Operation::GetEvent)).delete(op(Operation::DeleteEvent)),
        )
        .route(
            "/memories/{memoryId}/actor/{actorId}/sessions/{sessionId}",
            post(op(Operation::ListEvents)),
        )
        .route(
            "/memories/{memoryId}/actor/{actorId}/sessions",
            post(op(Operation::ListSessions)),
        )
        .route(
            "/memories/{memoryId}/actors",
            post(op(Operation::ListActors)),
        )
        .route("/_local/stats", get(stats))
        .route("/_local/stats/reset", post(reset_stats).delete(reset_stats))
        .route("/_local/health", get(|| async { "ok" }))
        .fallback(|| async { ApiError::unknown_operation() })
        .method_not_allowed_fallback(|| async { ApiError::unknown_operation() })
        .with_state(app)
}

async fn stats(State(app): State<Arc<App>>) -> Response {
    let body = serde_json::to_vec(&app.counters.snapshot()).expect("stats serialise");
    json(StatusCode::OK, body)
}

async fn reset_stats(State(app): State<Arc<App>>) -> StatusCode {
    app.counters.reset();
    StatusCode::NO_CONTENT
}

/// One data-plane request, start to finish.
async fn serve(
    app: Arc<App>,
    op: Operation,
    params: Result<Path<Params>, PathRejection>,
    request: Request,
) -> Response {
    app.counters.request(op);
    let outcome = match params {
        Ok(Path(params)) => admit_and_run(&app, op, &params, request).await,
        Err(_) => Err(ApiError::cannot_parse(
            "The request path is not valid percent-encoded UTF-8",
        )),
    };
    let mut response = match outcome {
        Ok(reply) => {
            app.counters.response(reply.body.len());
            json(reply.status, reply.body)
        }
        Err(error) => {
            match error.status {
                StatusCode::TOO_MANY_REQUESTS => app.counters.throttled(),
                StatusCode::INTERNAL_SERVER_ERROR => app.counters.error(),
                _ => {}
            }
            let body = error.body();
            app.counters.response(body.len());
            error.into_response()
        }
    };
    if let Ok(id) = HeaderValue::from_str(&new_request_id()) {
        response.headers_mut().insert("x-amzn-requestid", id);
    }
    response
}

async fn admit_and_run(
    app: &App,
    op: Operation,
    params: &HashMap<String, String>,
    request: Request,
) -> Result<Reply, ApiError> {
    let _slot = app
        .in_flight
        .try_acquire()
        .map_err(|_| ApiError::throttled())?;
    let (parts, body) = request.into_parts();
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    if declared.is_some_and(|n| n > app.max_request_bytes) {
        discard(body);
        return Err(ApiError::too_large(app.max_request_bytes));
    }
    let reserve = declared
        .unwrap_or(app.max_request_bytes)
        .div_ceil(1024)
        .max(1) as u32;
    let _budget = app
        .body_budget
        .try_acquire_many(reserve)
        .map_err(|_| ApiError::throttled())?;
    let body = read_body(body, app.max_request_bytes).await?;
    app.counters.request_bytes(body.len());
    auth::check(&parts.headers)?;
    if !app.faults.latency().is_zero() {
        tokio::time::sleep(app.faults.latency()).await;
    }
    match app.faults.draw() {
        Fault::Throttle => Err(ApiError::throttled()),
        Fault::ErrorBefore => Err(ApiError::service("Injected service error")),
        Fault::ErrorAfter => {
            let _ = handlers::execute(app, op, params, &body).await;
            Err(ApiError::service("Injected service error"))
        }
        Fault::None => handlers::execute(app, op, params, &body).await,
    }
}

/// What is read of a refused body, at most, while the 413 goes out.
const DISCARD_BYTES: usize = 64 * 1024 * 1024;
const DISCARD_TIME: Duration = Duration::from_secs(5);

/// Reads and drops a refused body in the background, within bounds, while
/// the answer is sent. Closing the connection at once instead would make a
/// client that is still sending the body fail with a broken pipe before it
/// reads the 413. A client that never sends it is answered all the same.
fn discard(mut body: Body) {
    tokio::spawn(async move {
        let mut left = DISCARD_BYTES;
        let drain = async {
            while let Some(Ok(frame)) = body.frame().await {
                left = left.saturating_sub(frame.data_ref().map_or(0, Bytes::len));
                if left == 0 {
                    break;
                }
            }
        };
        let _ = tokio::time::timeout(DISCARD_TIME, drain).await;
    });
}

async fn read_body(body: Body, limit: usize) -> Result<Bytes, ApiError> {
    to_bytes(body, limit).await.map_err(|e| {
        let too_large = std::error::Error::source(&e)
            .is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
        if too_large {
            ApiError::too_large(limit)
        } else {
            ApiError::cannot_parse("The request body could not be read")
        }
    })
}

fn json(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = (status, body).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
