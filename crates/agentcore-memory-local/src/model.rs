//! The JSON shapes of the operations, as the service model names them.
//! Blob and JSON payload contents stay raw text: the server never needs to
//! look inside them, and large ones then cost one copy, not a parse tree.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateEventRequest {
    pub actor_id: Option<String>,
    pub session_id: Option<String>,
    pub event_timestamp: Option<f64>,
    pub payload: Option<Vec<PayloadItem>>,
    pub branch: Option<Branch>,
    pub client_token: Option<String>,
    pub metadata: Option<BTreeMap<String, MetadataValue>>,
    // extractionMode and extractionConfig steer long-term memory, which this
    // server does not emulate; they are accepted and ignored.
}

/// A payload item: a union of which exactly one member is set.
#[derive(Debug, Deserialize, Serialize)]
pub struct PayloadItem {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversational: Option<Conversational>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json: Option<JsonData>,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct Conversational {
    pub content: Option<Content>,
    pub role: Option<String>,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct Content {
    pub text: Option<String>,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct JsonData {
    pub content: Option<Box<RawValue>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Branch {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_event_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetadataValue {
    pub string_value: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListEventsRequest {
    pub include_payloads: Option<bool>,
    pub max_results: Option<i64>,
    pub next_token: Option<String>,
    pub filter: Option<EventFilter>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventFilter {
    pub branch: Option<BranchFilter>,
    pub event_metadata: Option<Vec<MetadataFilter>>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchFilter {
    pub name: Option<String>,
    pub include_parent_branches: Option<bool>,
}

#[derive(Debug, Deserialize, Serialize)]
pub struct MetadataFilter {
    pub left: Option<LeftExpression>,
    pub operator: Option<String>,
    pub right: Option<RightExpression>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeftExpression {
    pub metadata_key: Option<String>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RightExpression {
    pub metadata_value: Option<MetadataValue>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSessionsRequest {
    pub max_results: Option<i64>,
    pub next_token: Option<String>,
    pub filter: Option<SessionFilter>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionFilter {
    pub event_filter: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListActorsRequest {
    pub max_results: Option<i64>,
    pub next_token: Option<String>,
}

/// An event as a store keeps it.
#[derive(Debug)]
pub struct StoredEvent {
    pub event_id: String,
    pub timestamp_ms: i64,
    /// The payload list, as JSON text.
    pub payload: Box<RawValue>,
    pub branch: Option<Branch>,
    pub metadata: BTreeMap<String, String>,
}

/// Where an event lives.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionKey {
    pub memory: String,
    pub actor: String,
    pub session: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SessionSummary {
    pub actor_id: String,
    pub session_id: String,
    pub created_ms: i64,
}

/// The `Event` structure of a response.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventOut<'a> {
    pub memory_id: &'a str,
    pub actor_id: &'a str,
    pub session_id: &'a str,
    pub event_id: &'a str,
    pub event_timestamp: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<&'a RawValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<&'a Branch>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<&'a str, MetadataOut<'a>>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetadataOut<'a> {
    pub string_value: &'a str,
}

impl<'a> EventOut<'a> {
    pub fn new(key: &'a SessionKey, event: &'a StoredEvent, include_payload: bool) -> Self {
        let metadata = (!event.metadata.is_empty()).then(|| {
            event
                .metadata
                .iter()
                .map(|(k, v)| (k.as_str(), MetadataOut { string_value: v }))
                .collect()
        });
        Self {
            memory_id: &key.memory,
            actor_id: &key.actor,
            session_id: &key.session,
            event_id: &event.event_id,
            event_timestamp: epoch_seconds(event.timestamp_ms),
            payload: include_payload.then_some(&*event.payload),
            branch: event.branch.as_ref(),
            metadata,
        }
    }
}

/// Timestamps travel as epoch seconds with a fraction.
pub fn epoch_seconds(ms: i64) -> f64 {
    ms as f64 / 1000.0
}
