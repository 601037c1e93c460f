//! What the saver stores in an event: one `blob` payload item per record,
//! `{"lgc": 1, "enc": "msgpack", "data": base64}`, where `data` is the record
//! in MessagePack, compressed with zstd (`"enc": "msgpack+zstd"`) when that
//! pays. Values are kept as the serializer's `[type, bytes]` pair, untouched.
//! A record too large for one event is split (see `chunks`): `part` items
//! carry its slices and a `head` item, written last, says how to join them.
//! Anything else in a session (conversational events, other tools' blobs,
//! truncated data) is recognised as foreign and skipped.

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
const DATA_KEY: &str = "data";
const PART_KEY: &str = "part";
const PARTS_KEY: &str = "parts";
const SPLIT_KEY: &str = "key";
const DIGEST_KEY: &str = "sha256";

/// Records smaller than this are not worth compressing.
const COMPRESS_MIN: usize = 512;
/// zstd's default level: fast, and most of the gain on JSON-like values.
const ZSTD_LEVEL: i32 = 3;

/// How a record's bytes are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Msgpack,
    MsgpackZstd,
}

impl Encoding {
    fn name(self) -> &'static str {
        match self {
            Encoding::Msgpack => "msgpack",
            Encoding::MsgpackZstd => "msgpack+zstd",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        match name {
            "msgpack" => Some(Encoding::Msgpack),
            "msgpack+zstd" => Some(Encoding::MsgpackZstd),
            _ => None,
        }
    }
}

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
/// Event metadata key on the events `copyThread` writes: the thread part of
/// the source, so that an interrupted copy can be resumed and any other
/// content of the target refused.
pub const COPY_KEY: &str = "langgraph-copy-of";
/// Event metadata key naming the checkpoint an event's record is about, so
/// that readers decode only the events a question needs.
pub const CHECKPOINT_KEY: &str = "langgraph-checkpoint";

/// Whether a value may go into event metadata (the service's pattern).
pub fn fits_metadata(value: &str) -> bool {
    value.len() <= 256
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c.is_ascii_whitespace() || "._:/=+@-".contains(c))
}

pub fn is_ours(event: &aws_sdk_bedrockagentcore::types::Event) -> bool {
    event.metadata().is_some_and(|m| m.contains_key(MARKER_KEY))
}

impl Record {
    /// The checkpoint the record is about.
    pub fn checkpoint_id(&self) -> &str {
        match self {
            Record::Checkpoint(c) => &c.checkpoint_id,
            Record::Writes(w) => &w.checkpoint_id,
        }
    }

    /// The marker's value: what kind of record the event holds.
    pub fn kind(&self) -> &'static str {
        match self {
            Record::Checkpoint(_) => "checkpoint",
            Record::Writes(_) => "writes",
        }
    }
}

/// A record encoded, ready to be stored whole or split.
#[derive(Debug, Clone)]
pub struct Packed {
    pub encoding: Encoding,
    pub bytes: Vec<u8>,
}

impl Packed {
    /// Bytes of the blob once base64-encoded: what counts toward a request.
    pub fn stored_len(&self) -> usize {
        self.bytes.len().div_ceil(3) * 4
    }
}

pub fn pack(record: &Record, compress: bool) -> Packed {
    let bytes = rmp_serde::to_vec_named(record).expect("records serialise");
    if compress && bytes.len() >= COMPRESS_MIN {
        if let Ok(small) = zstd::bulk::compress(&bytes, ZSTD_LEVEL) {
            // Only when it saves at least a tenth: not worth a decode step otherwise.
            if small.len() * 10 <= bytes.len() * 9 {
                return Packed {
                    encoding: Encoding::MsgpackZstd,
                    bytes: small,
                };
            }
        }
    }
    Packed {
        encoding: Encoding::Msgpack,
        bytes,
    }
}

pub fn unpack(encoding: Encoding, bytes: &[u8]) -> Result<Record, Foreign> {
    let plain;
    let bytes = match encoding {
        Encoding::Msgpack => bytes,
        Encoding::MsgpackZstd => {
            plain = zstd::stream::decode_all(bytes).map_err(|_| Foreign::Corrupt("bad zstd"))?;
            &plain
        }
    };
    rmp_serde::from_slice(bytes).map_err(|_| Foreign::Corrupt("bad record"))
}

/// A record stored whole in one payload item.
pub fn whole(packed: &Packed) -> PayloadType {
    blob([
        (
            ENCODING_KEY,
            Document::String(packed.encoding.name().into()),
        ),
        (DATA_KEY, Document::String(STANDARD.encode(&packed.bytes))),
    ])
}

/// One slice of a split record.
pub fn part(key: &str, index: usize, slice: &[u8]) -> PayloadType {
    blob([
        (SPLIT_KEY, Document::String(key.into())),
        (PART_KEY, Document::from(index as u64)),
        (DATA_KEY, Document::String(STANDARD.encode(slice))),
    ])
}

/// The item that completes a split record: its encoding, how many parts
/// and the digest of their joined bytes.
pub fn head(key: &str, packed: &Packed, parts: usize) -> PayloadType {
    blob([
        (SPLIT_KEY, Document::String(key.into())),
        (
            ENCODING_KEY,
            Document::String(packed.encoding.name().into()),
        ),
        (PARTS_KEY, Document::from(parts as u64)),
        (DIGEST_KEY, Document::String(digest_hex(&packed.bytes))),
    ])
}

fn blob<const N: usize>(fields: [(&str, Document); N]) -> PayloadType {
    let mut object: HashMap<String, Document> =
        [(FORMAT_KEY.to_string(), Document::from(FORMAT_VERSION))].into();
    object.extend(fields.into_iter().map(|(k, v)| (k.to_string(), v)));
    PayloadType::Blob(Document::Object(object))
}

pub fn digest_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What one of the saver's payload items holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Record(Record),
    Part {
        key: String,
        index: usize,
        data: Bytes,
    },
    Head {
        key: String,
        encoding: Encoding,
        parts: usize,
        sha256: String,
    },
}

pub fn decode(item: &PayloadType) -> Result<Item, Foreign> {
    let PayloadType::Blob(Document::Object(object)) = item else {
        return Err(if matches!(item, PayloadType::Blob(_)) {
            Foreign::NotOurs
        } else {
            Foreign::NotBlob
        });
    };
    if number(object, FORMAT_KEY) != Some(FORMAT_VERSION) {
        return Err(Foreign::NotOurs);
    }
    let text = |key| object.get(key).and_then(Document::as_string);
    let data = || {
        let data = text(DATA_KEY).ok_or(Foreign::Corrupt("no data"))?;
        STANDARD
            .decode(data)
            .map_err(|_| Foreign::Corrupt("bad base64"))
    };
    let encoding = || {
        text(ENCODING_KEY)
            .and_then(Encoding::from_name)
            .ok_or(Foreign::Corrupt("unknown encoding"))
    };
    match (text(SPLIT_KEY), number(object, PART_KEY)) {
        (Some(key), Some(index)) => Ok(Item::Part {
            key: key.to_string(),
            index: index as usize,
            data: data()?.into(),
        }),
        (Some(key), None) => Ok(Item::Head {
            key: key.to_string(),
            encoding: encoding()?,
            parts: number(object, PARTS_KEY).ok_or(Foreign::Corrupt("no part count"))? as usize,
            sha256: text(DIGEST_KEY)
                .ok_or(Foreign::Corrupt("no digest"))?
                .to_string(),
        }),
        _ => Ok(Item::Record(unpack(encoding()?, &data()?)?)),
    }
}

fn number(object: &HashMap<String, Document>, key: &str) -> Option<u64> {
    match object.get(key) {
        Some(Document::Number(n)) => {
            let f = n.to_f64_lossy();
            (f >= 0.0 && f.fract() == 0.0).then_some(f as u64)
        }
        _ => None,
    }
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
        for compress in [false, true] {
            let packed = pack(&record, compress);
            assert_eq!(
                decode(&whole(&packed)).unwrap(),
                Item::Record(record.clone())
            );
        }
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
