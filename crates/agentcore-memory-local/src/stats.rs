//! Request and byte counters, served at `/_local/stats`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

/// The operations of the data plane this server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    CreateEvent,
    GetEvent,
    DeleteEvent,
    ListEvents,
    ListSessions,
    ListActors,
}

impl Operation {
    pub const ALL: [Operation; 6] = [
        Self::CreateEvent,
        Self::GetEvent,
        Self::DeleteEvent,
        Self::ListEvents,
        Self::ListSessions,
        Self::ListActors,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::CreateEvent => "CreateEvent",
            Self::GetEvent => "GetEvent",
            Self::DeleteEvent => "DeleteEvent",
            Self::ListEvents => "ListEvents",
            Self::ListSessions => "ListSessions",
            Self::ListActors => "ListActors",
        }
    }
}

#[derive(Default)]
pub struct Counters {
    requests: [AtomicU64; 6],
    bytes_in: AtomicU64,
    bytes_out: AtomicU64,
    throttled: AtomicU64,
    errors: AtomicU64,
}

/// A snapshot of the counters. Every request to an operation counts,
/// including those refused or answered with an injected fault.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub requests: BTreeMap<String, u64>,
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// Requests answered with 429, injected or for overload.
    pub throttled: u64,
    /// Requests answered with an injected 500.
    pub errors: u64,
}

impl Counters {
    pub fn request(&self, op: Operation) {
        self.requests[op as usize].fetch_add(1, Ordering::Relaxed);
    }

    pub fn request_bytes(&self, bytes_in: usize) {
        self.bytes_in.fetch_add(bytes_in as u64, Ordering::Relaxed);
    }

    pub fn response(&self, bytes_out: usize) {
        self.bytes_out
            .fetch_add(bytes_out as u64, Ordering::Relaxed);
    }

    pub fn throttled(&self) {
        self.throttled.fetch_add(1, Ordering::Relaxed);
    }

    pub fn error(&self) {
        self.errors.fetch_add(1, Ordering::Relaxed);
    }

    pub fn snapshot(&self) -> Stats {
        let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
        Stats {
            requests: Operation::ALL
                .iter()
                .map(|op| (op.name().to_string(), load(&self.requests[*op as usize])))
                .collect(),
            bytes_in: load(&self.bytes_in),
            bytes_out: load(&self.bytes_out),
            throttled: load(&self.throttled),
            errors: load(&self.errors),
        }
    }

    pub fn reset(&self) {
        let counters = self.requests.iter().chain([
            &self.bytes_in,
            &self.bytes_out,
            &self.throttled,
            &self.errors,
        ]);
        counters.for_each(|c| c.store(0, Ordering::Relaxed));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_resets() {
        let c = Counters::default();
        c.request(Operation::ListEvents);
        c.request_bytes(10);
        c.request(Operation::ListEvents);
        c.request_bytes(5);
        c.response(7);
        let s = c.snapshot();
        assert_eq!(s.requests["ListEvents"], 2);
        assert_eq!(s.requests["CreateEvent"], 0);
        assert_eq!((s.bytes_in, s.bytes_out), (15, 7));
        c.reset();
        assert_eq!(c.snapshot().requests["ListEvents"], 0);
        assert_eq!(c.snapshot().bytes_in, 0);
    }
}
