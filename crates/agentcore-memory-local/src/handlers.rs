//! The six operations of the data plane: each parses its body, checks it
//! against the service model, asks the store and renders the response.

use std::collections::HashMap;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::http::StatusCode;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::ApiError;
use crate::ids::memory_key;
use crate::model::*;
use crate::server::App;
use crate::stats::Operation;
use crate::store::{Created, NewEvent, StoreError};
use crate::token;
use crate::validate::{self, required, MetadataCondition};

pub type Params = HashMap<String, String>;

/// A successful response: status and JSON body.
pub struct Reply {
    pub status: StatusCode,
    pub body: Vec<u8>,
}

type Result<T> = std::result::Result<T, ApiError>;

pub async fn execute(app: &App, op: Operation, params: &Params, body: &[u8]) -> Result<Reply> {
    match op {
        Operation::CreateEvent => create_event(app, params, body).await,
        Operation::GetEvent => get_event(app, params).await,
        Operation::DeleteEvent => delete_event(app, params).await,
        Operation::ListEvents => list_events(app, params, body).await,
        Operation::ListSessions => list_sessions(app, params, body).await,
        Operation::ListActors => list_actors(app, params, body).await,
    }
}

async fn create_event(app: &App, params: &Params, body: &[u8]) -> Result<Reply> {
    let memory = memory_param(params)?;
    let request: CreateEventRequest = parse(body)?;
    let actor = required("actorId", &request.actor_id)?;
    validate::actor_id(actor)?;
    let session = required("sessionId", &request.session_id)?;
    validate::session_id(session)?;
    let timestamp_ms = validate::timestamp_ms(request.event_timestamp)?;
    let payload = required("payload", &request.payload)?;
    validate::payload(payload)?;
    if let Some(branch) = &request.branch {
        validate::branch_name("branch.name", &branch.name)?;
        if let Some(root) = &branch.root_event_id {
            validate::event_id("branch.rootEventId", root)?;
        }
    }
    let metadata = validate::metadata(request.metadata)?;
    let payload =
        serde_json::value::to_raw_value(payload).map_err(|_| ApiError::cannot_parse("payload"))?;
    let key = SessionKey {
        memory,
        actor: actor.clone(),
        session: session.clone(),
    };
    let fingerprint = fingerprint(
        &key,
        timestamp_ms,
        payload.get(),
        request.branch.as_ref(),
        &metadata,
    );
    let new = NewEvent {
        key: key.clone(),
        timestamp_ms,
        payload,
        branch: request.branch,
        metadata,
        client_token: request.client_token,
        fingerprint,
    };
    match app.store.create(new, now_ms()).await.map_err(store_error)? {
        Created::New(event) | Created::Replayed(event) => reply(
            StatusCode::CREATED,
            &EventEnvelope {
                event: EventOut::new(&key, &event, true),
            },
        ),
        Created::Mismatch => Err(ApiError::idempotency_mismatch()),
    }
}

async fn get_event(app: &App, params: &Params) -> Result<Reply> {
    let (key, event_id) = event_params(params)?;
    let event = app.store.get(&key, &event_id).await.map_err(store_error)?;
    let event = event.ok_or_else(event_not_found)?;
    reply(
        StatusCode::OK,
        &EventEnvelope {
            event: EventOut::new(&key, &event, true),
        },
    )
}

async fn delete_event(app: &App, params: &Params) -> Result<Reply> {
    let (key, event_id) = event_params(params)?;
    if !app
        .store
        .delete(&key, &event_id, now_ms())
        .await
        .map_err(store_error)?
    {
        return Err(event_not_found());
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Deleted<'a> {
        event_id: &'a str,
    }
    reply(
        StatusCode::OK,
        &Deleted {
            event_id: &event_id,
        },
    )
}

async fn list_events(app: &App, params: &Params, body: &[u8]) -> Result<Reply> {
    let key = session_params(params)?;
    let request: ListEventsRequest = parse(body)?;
    let limit = validate::max_results(request.max_results)?;
    let matcher = EventMatcher::new(app, &key, request.filter.as_ref()).await?;
    let filter_json = serde_json::to_string(&request.filter).expect("filters serialise");
    let query = token::digest(&[
        "ListEvents",
        &key.memory,
        &key.actor,
        &key.session,
        &filter_json,
    ]);
    let before = request
        .next_token
        .as_deref()
        .map(|t| token::decode(t, &query))
        .transpose()?;
    let with_payload = request.include_payloads.unwrap_or(true);
    // maxResults bounds the events scanned; filters apply to the page after
    // it is cut, so a filtered page may be short or empty and still go on.
    let page = app
        .store
        .scan(&key, before.as_deref(), limit, with_payload, app.list_order)
        .await
        .map_err(store_error)?;
    let next_token = page
        .more
        .then(|| token::encode(&query, &page.items[page.items.len() - 1].event_id));
    let events = page
        .items
        .iter()
        .filter(|e| matcher.matches(e))
        .map(|e| EventOut::new(&key, e, with_payload))
        .collect();
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Events<'a> {
        events: Vec<EventOut<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        next_token: Option<String>,
    }
    reply(StatusCode::OK, &Events { events, next_token })
}

async fn list_sessions(app: &App, params: &Params, body: &[u8]) -> Result<Reply> {
    let memory = memory_param(params)?;
    let actor = actor_param(params)?;
    let request: ListSessionsRequest = parse(body)?;
    let limit = validate::max_results(request.max_results)?;
    let has_events_only = match request.filter.and_then(|f| f.event_filter).as_deref() {
        None => false,
        Some("HAS_EVENTS") => true,
        Some(_) => {
            return Err(ApiError::field(
                "filter.eventFilter",
                "Member must satisfy enum value set: [HAS_EVENTS]",
            ))
        }
    };
    let query = token::digest(&[
        "ListSessions",
        &memory,
        &actor,
        &has_events_only.to_string(),
    ]);
    let after = request
        .next_token
        .as_deref()
        .map(|t| token::decode(t, &query))
        .transpose()?;
    let page = app
        .store
        .sessions(
            &memory,
            &actor,
            after.as_deref(),
            limit,
            has_events_only,
            now_ms(),
        )
        .await
        .map_err(store_error)?;
    let next_token = page
        .more
        .then(|| token::encode(&query, &page.items[page.items.len() - 1].session_id));
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Summary<'a> {
        session_id: &'a str,
        actor_id: &'a str,
        created_at: f64,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Sessions<'a> {
        session_summaries: Vec<Summary<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        next_token: Option<String>,
    }
    let session_summaries = page
        .items
        .iter()
        .map(|s| Summary {
            session_id: &s.session_id,
            actor_id: &s.actor_id,
            created_at: epoch_seconds(s.created_ms),
        })
        .collect();
    reply(
        StatusCode::OK,
        &Sessions {
            session_summaries,
            next_token,
        },
    )
}

async fn list_actors(app: &App, params: &Params, body: &[u8]) -> Result<Reply> {
    let memory = memory_param(params)?;
    let request: ListActorsRequest = parse(body)?;
    let limit = validate::max_results(request.max_results)?;
    let query = token::digest(&["ListActors", &memory]);
    let after = request
        .next_token
        .as_deref()
        .map(|t| token::decode(t, &query))
        .transpose()?;
    let page = app
        .store
        .actors(&memory, after.as_deref(), limit, now_ms())
        .await
        .map_err(store_error)?;
    let next_token = page
        .more
        .then(|| token::encode(&query, &page.items[page.items.len() - 1]));
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Summary<'a> {
        actor_id: &'a str,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Actors<'a> {
        actor_summaries: Vec<Summary<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        next_token: Option<String>,
    }
    let actor_summaries = page.items.iter().map(|a| Summary { actor_id: a }).collect();
    reply(
        StatusCode::OK,
        &Actors {
            actor_summaries,
            next_token,
        },
    )
}

/// The metadata and branch conditions of a ListEvents filter.
struct EventMatcher {
    metadata: Vec<MetadataCondition>,
    branch: Option<BranchMatch>,
}

/// Events of branch `name`, and with `includeParentBranches` the events of
/// each ancestor branch up to the event the child branched from.
struct BranchMatch {
    name: String,
    ancestors: Vec<(String, String)>,
}

/// The branch of events written without one.
const MAIN_BRANCH: &str = "main";
/// Branches of branches followed at most.
const MAX_BRANCH_DEPTH: usize = 16;

impl EventMatcher {
    async fn new(app: &App, key: &SessionKey, filter: Option<&EventFilter>) -> Result<Self> {
        let Some(filter) = filter else {
            return Ok(Self {
                metadata: vec![],
                branch: None,
            });
        };
        let metadata = match &filter.event_metadata {
            Some(list) => validate::metadata_filters(list)?,
            None => vec![],
        };
        let branch = match &filter.branch {
            Some(b) => {
                let name = required("filter.branch.name", &b.name)?;
                validate::branch_name("filter.branch.name", name)?;
                let ancestors = if b.include_parent_branches.unwrap_or(false) {
                    branch_ancestors(app, key, name).await?
                } else {
                    vec![]
                };
                Some(BranchMatch {
                    name: name.clone(),
                    ancestors,
                })
            }
            None => None,
        };
        Ok(Self { metadata, branch })
    }

    fn matches(&self, event: &StoredEvent) -> bool {
        self.metadata.iter().all(|c| c.matches(&event.metadata))
            && self.branch.as_ref().is_none_or(|b| b.matches(event))
    }
}

impl BranchMatch {
    fn matches(&self, event: &StoredEvent) -> bool {
        let branch = event
            .branch
            .as_ref()
            .map_or(MAIN_BRANCH, |b| b.name.as_str());
        branch == self.name
            || self
                .ancestors
                .iter()
                .any(|(name, root)| branch == name && event.event_id.as_str() <= root.as_str())
    }
}

/// (ancestor branch, last event of it included), nearest first.
async fn branch_ancestors(
    app: &App,
    key: &SessionKey,
    name: &str,
) -> Result<Vec<(String, String)>> {
    let mut ancestors = Vec::new();
    let mut current = name.to_string();
    while ancestors.len() < MAX_BRANCH_DEPTH {
        let Some(root) = app
            .store
            .branch_root(key, &current)
            .await
            .map_err(store_error)?
        else {
            break;
        };
        let Some(root_event) = app.store.get(key, &root).await.map_err(store_error)? else {
            break;
        };
        let parent = root_event
            .branch
            .as_ref()
            .map_or(MAIN_BRANCH.to_string(), |b| b.name.clone());
        ancestors.push((parent.clone(), root));
        if parent == MAIN_BRANCH || parent == current {
            break;
        }
        current = parent;
    }
    Ok(ancestors)
}

#[derive(Serialize)]
struct EventEnvelope<'a> {
    event: EventOut<'a>,
}

fn reply(status: StatusCode, body: &impl Serialize) -> Result<Reply> {
    let body =
        serde_json::to_vec(body).map_err(|_| ApiError::service("could not render the response"))?;
    Ok(Reply { status, body })
}

/// Parses a JSON body; an empty body is the empty object. Errors name the
/// place in the document but never repeat a value from it.
fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T> {
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        b"{}".as_slice()
    } else {
        body
    };
    let de = &mut serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = match inner.classify() {
            serde_json::error::Category::Data => {
                format!(
                    "Value at '{path}' has the wrong type or shape: {}",
                    redact_values(&inner.to_string())
                )
            }
            _ => format!(
                "Request body is not valid JSON (line {}, column {})",
                inner.line(),
                inner.column()
            ),
        };
        ApiError::cannot_parse(message)
    })
}

/// serde's messages quote offending values; keep the shape, drop the value.
fn redact_values(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut quoted = false;
    for c in message.chars() {
        match c {
            '"' | '`' => {
                if !quoted {
                    out.push_str("<value>");
                }
                quoted = !quoted;
            }
            _ if !quoted => out.push(c),
            _ => {}
        }
    }
    out.split(" at line ")
        .next()
        .unwrap_or_default()
        .to_string()
}

fn path_param<'a>(params: &'a Params, name: &str) -> Result<&'a String> {
    params
        .get(name)
        .ok_or_else(|| ApiError::field(name, "Member must not be null"))
}

fn memory_param(params: &Params) -> Result<String> {
    let memory_id = path_param(params, "memoryId")?;
    validate::memory_id(memory_id)?;
    Ok(memory_key(memory_id).to_string())
}

fn actor_param(params: &Params) -> Result<String> {
    let actor = path_param(params, "actorId")?;
    validate::actor_id(actor)?;
    Ok(actor.clone())
}

fn session_params(params: &Params) -> Result<SessionKey> {
    let memory = memory_param(params)?;
    let actor = actor_param(params)?;
    let session = path_param(params, "sessionId")?;
    validate::session_id(session)?;
    Ok(SessionKey {
        memory,
        actor,
        session: session.clone(),
    })
}

fn event_params(params: &Params) -> Result<(SessionKey, String)> {
    let key = session_params(params)?;
    let event_id = path_param(params, "eventId")?;
    validate::event_id("eventId", event_id)?;
    Ok((key, event_id.clone()))
}

fn fingerprint(
    key: &SessionKey,
    timestamp_ms: i64,
    payload: &str,
    branch: Option<&Branch>,
    metadata: &std::collections::BTreeMap<String, String>,
) -> String {
    let branch = serde_json::to_string(&branch).expect("branch serialises");
    let metadata = serde_json::to_string(metadata).expect("metadata serialises");
    token::digest(&[
        &key.actor,
        &key.session,
        &timestamp_ms.to_string(),
        payload,
        &branch,
        &metadata,
    ])
}

fn event_not_found() -> ApiError {
    ApiError::not_found("Event not found")
}

fn store_error(e: StoreError) -> ApiError {
    eprintln!("agentcore-memory-local: {}", e.0);
    ApiError::service("Internal storage error")
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_name_the_place_but_not_the_value() {
        let err = parse::<CreateEventRequest>(br#"{"actorId": "a", "payload": "secret-text"}"#)
            .unwrap_err();
        assert!(err.message.contains("'payload'"), "{}", err.message);
        assert!(!err.message.contains("secret-text"), "{}", err.message);
        assert_eq!(err.reason, Some("CannotParse"));
        let err = parse::<CreateEventRequest>(b"{not json").unwrap_err();
        assert!(err.message.contains("not valid JSON"));
    }

    #[test]
    fn an_empty_body_is_an_empty_request() {
        let request: ListEventsRequest = parse(b"").unwrap();
        assert!(request.max_results.is_none());
    }
}
