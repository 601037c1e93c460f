//! LangGraph checkpoints in Amazon Bedrock AgentCore Memory: the event
//! layout, the encoding, the AgentCore client, pagination and retries.
//! The Node addon converts types to and from this crate and nothing else.

mod chunks;
mod client;
mod error;
mod ids;
mod known;
mod log;
mod maintenance;
mod queue;
mod record;
mod saver;
mod writes;

pub use client::{effective_endpoint, is_loopback, ClientOptions, StaticCredentials};
pub use error::{Error, Result};
pub use maintenance::PruneStrategy;
pub use record::{ChannelValue, Typed, WriteEntry};
pub use saver::{
    check_memory_id, ChannelHistory, Done, ListCursor, ListQuery, Place, PutRequest, Read, Saver,
    SaverOptions, Tuple, Write, WritesRequest, ADMITTED_CALLS, CARRY_BYTES, DEFAULT_KNOWN_BYTES,
    DEFAULT_MAX_EVENT_BYTES,
};
pub use writes::PendingWrite;
