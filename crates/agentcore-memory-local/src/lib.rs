//! `agentcore-memory-local`: the Amazon Bedrock AgentCore Memory data plane
//! (events, sessions, actors) served on loopback, for development and tests.
//!
//! It speaks the service's REST-JSON wire format, so the official SDKs work
//! against it with nothing but an endpoint override. Events live in memory,
//! or in SQLite under a data directory.

mod auth;
mod error;
mod faults;
mod handlers;
mod ids;
mod model;
mod options;
mod server;
mod stats;
mod store;
mod token;
mod validate;

pub use ids::new_memory_id;
pub use options::{ListOrder, Options};
pub use server::{LocalMemory, StartError};
pub use stats::Stats;
