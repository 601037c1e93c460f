//! What the saver stores in an event: one `blob` payload item per record,
//! `{"lgc": 1, "enc": "msgpack", "data": base64}`, where `data` is the record
//! in MessagePack. Values are kept as the serializer's `[type, bytes]` pair,
//! untouched. Anything else in a session (conversational events, other
//! tools' blobs, truncated data) is recognised as foreign and skipped.

use std::collections::HashMap;

use aws_sdk_bedrockagentcore::types::PayloadType;
use aws_smithy_types::Document;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use bytes::Bytes;
use serde::{Deserialize, Serialize};

const FORMAT_KEY: &str = "lgc";
const FORMAT_VERSION: u64 = 1;
const ENCODING_KEY: &str = "enc";
const MSGPACK: &str = "msgpack";
const DATA_KEY: &str = "data";

/// A value as the serializer produced it: its type tag and bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Typed {
    #[serde(rename = "t")]
    pub kind: String,
    #[serde(rename = "d")]
    pub data: Bytes,
}

impl Typed {
    /// The marker for a channel that has a version but no value.
    pub const EMPTY: &'static str = "empty";

    pub fn is_empty_marker(&self) -> bool {
        self.kind == Self::EMPTY
    }
}

/// A channel's value at a version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChannelValue {
    #[serde(rename = "c")]
    pub channel: String,
    #[serde(rename = "v")]
    pub version: String,
    #[serde(rename = "x")]
    pub value: Typed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckpointRecord {
    pub actor: String,
    pub thread_id: String,
    pub checkpoint_ns: String,
    pub checkpoint_id: String,
    pub parent_id: Option<String>,
    /// `checkpoint.v`: below 4, pending sends are migrated on read.
    pub v: i64,
    /// The checkpoint without its channel values.
    pub checkpoint: Typed,
    pub metadata: Typed,
    /// The metadata's primitive fields as JSON, for `list` filters.
    pub filterable: String,
    /// `channel_versions`, as strings.
    pub versions: Vec<(String, String)>,
    /// Values stored with this checkpoint: those it changed, and those of
    /// its parent it carries so that a read needs no older event.
    pub values: Vec<ChannelValue>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteEntry {
    pub idx: i64,
    pub channel: String,
    pub value: Typed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WritesRecord {
    pub actor: String,
    pub thread_id: String,
    pub checkpoint_ns: String,
    pub checkpoint_id: String,
    pub task_id: String,
    pub task_path: String,
    /// Order of writes to the same (task, idx): first wins for idx >= 0,
    /// last wins for the special negative ones.
    pub seq: u64,
    pub writes: Vec<WriteEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Record {
    Checkpoint(CheckpointRecord),
    Writes(WritesRecord),
}

impl Record {
    /// The thread and namespace the record belongs to.
    pub fn place(&self) -> (&str, &str) {
        match self {
            Record::Checkpoint(c) => (&c.thread_id, &c.checkpoint_ns),
            Record::Writes(w) => (&w.thread_id, &w.checkpoint_ns),
        }
    }
}

/// Why a payload item is not one of ours.
#[derive(Debug, Clone, PartialEq)]
pub enum Foreign {
    NotBlob,
    NotOurs,
    Corrupt(&'static str),
}

impl std::fmt::Display for Foreign {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Foreign::NotBlob => f.write_str("a payload that is not a blob"),
            Foreign::NotOurs => f.write_str("a blob this saver did not write"),
            Foreign::Corrupt(why) => write!(f, "a checkpoint blob that cannot be decoded ({why})"),
        }
    }
}

/// Event metadata key marking the saver's events, so they can be found
/// without reading payloads (`deleteThread` lists without them).
pub const MARKER_KEY: &str = "langgraph";

pub fn is_ours(event: &aws_sdk_bedrockagentcore::types::Event) -> bool {
    event.metadata().is_some_and(|m| m.contains_key(MARKER_KEY))
}

impl Record {
    /// The marker's value: what kind of record the event holds.
    pub fn kind(&self) -> &'static str {
        match self {
            Record::Checkpoint(_) => "checkpoint",
            Record::Writes(_) => "writes",
        }
    }
}

pub fn encode(record: &Record) -> PayloadType {
    let bytes = rmp_serde::to_vec_named(record).expect("records serialise");
    let object: HashMap<String, Document> = [
        (FORMAT_KEY.to_string(), Document::from(FORMAT_VERSION)),
        (ENCODING_KEY.to_string(), Document::String(MSGPACK.into())),
        (
            DATA_KEY.to_string(),
            Document::String(STANDARD.encode(bytes)),
        ),
    ]
    .into();
    PayloadType::Blob(Document::Object(object))
}

pub fn decode(item: &PayloadType) -> Result<Record, Foreign> {
    let PayloadType::Blob(Document::Object(object)) = item else {
        return Err(if matches!(item, PayloadType::Blob(_)) {
            Foreign::NotOurs
        } else {
            Foreign::NotBlob
        });
    };
    let version = object.get(FORMAT_KEY).and_then(|d| match d {
        Document::Number(n) => n.to_f64_lossy().into(),
        _ => None,
    });
    if version != Some(FORMAT_VERSION as f64) {
        return Err(Foreign::NotOurs);
    }
    if object.get(ENCODING_KEY).and_then(Document::as_string) != Some(MSGPACK) {
        return Err(Foreign::Corrupt("unknown encoding"));
    }
    let data = object
        .get(DATA_KEY)
        .and_then(Document::as_string)
        .ok_or(Foreign::Corrupt("no data"))?;
    let bytes = STANDARD
        .decode(data)
        .map_err(|_| Foreign::Corrupt("bad base64"))?;
    rmp_serde::from_slice(&bytes).map_err(|_| Foreign::Corrupt("bad record"))
}

#[cfg(test)]
mod tests {
    use super::*;

    pub fn typed(kind: &str, data: &[u8]) -> Typed {
        Typed {
            kind: kind.into(),
            data: Bytes::copy_from_slice(data),
        }
    }

    #[test]
    fn records_round_trip_with_binary_values() {
        let record = Record::Writes(WritesRecord {
            actor: "a".into(),
            thread_id: "t|1".into(),
            checkpoint_ns: "".into(),
            checkpoint_id: "c".into(),
            task_id: "task".into(),
            task_path: "~__pregel_pull, node".into(),
            seq: 7,
            writes: vec![WriteEntry {
                idx: -3,
                channel: "__interrupt__".into(),
                value: typed("bytes", &[0, 255, 1]),
            }],
        });
        assert_eq!(decode(&encode(&record)).unwrap(), record);
    }

    #[test]
    fn foreign_payloads_are_recognised() {
        let text = PayloadType::Blob(Document::String("hello".into()));
        assert_eq!(decode(&text).unwrap_err(), Foreign::NotOurs);
        let python = PayloadType::Blob(Document::Object(
            [("checkpoint".to_string(), Document::Null)].into(),
        ));
        assert_eq!(decode(&python).unwrap_err(), Foreign::NotOurs);
        let truncated = PayloadType::Blob(Document::Object(
            [
                ("lgc".to_string(), Document::from(1u64)),
                ("enc".to_string(), Document::String("msgpack".into())),
                ("data".to_string(), Document::String("gqF".into())),
            ]
            .into(),
        ));
        assert!(matches!(
            decode(&truncated).unwrap_err(),
            Foreign::Corrupt(_)
        ));
    }
}
