//! Where events live: in memory, or in SQLite under a data directory. Both
//! keep each session's events ordered by eventId, whose zero-padded
//! millisecond prefix makes that the timestamp order, so a page is a range
//! scan from the cursor: O(page + log n), never the whole session.

mod memory;
mod sqlite;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::value::RawValue;

use crate::model::{Branch, SessionKey, SessionSummary, StoredEvent};
use crate::options::ListOrder;

pub use memory::MemoryStore;
pub use sqlite::SqliteStore;

/// Sessions whose events were all deleted stay listed this long, as on the
/// service, where empty sessions disappear after about a day.
pub const EMPTY_SESSION_TTL_MS: i64 = 24 * 60 * 60 * 1000;

/// A validated CreateEvent.
#[derive(Debug)]
pub struct NewEvent {
    pub key: SessionKey,
    pub timestamp_ms: i64,
    pub payload: Box<RawValue>,
    pub branch: Option<Branch>,
    pub metadata: BTreeMap<String, String>,
    pub client_token: Option<String>,
    /// Digest of every parameter: a reused clientToken must match it.
    pub fingerprint: String,
}

impl NewEvent {
    fn stored(&self, event_id: String) -> StoredEvent {
        StoredEvent {
            event_id,
            timestamp_ms: self.timestamp_ms,
            payload: self.payload.clone(),
            branch: self.branch.clone(),
            metadata: self.metadata.clone(),
        }
    }
}

#[derive(Debug)]
pub enum Created {
    /// A new event.
    New(Arc<StoredEvent>),
    /// The clientToken was seen before with the same parameters: the event
    /// it made then.
    Replayed(Arc<StoredEvent>),
    /// The clientToken was seen before with other parameters.
    Mismatch,
}

/// One page of a listing; `more` says whether anything follows it.
#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub more: bool,
}

impl<T> Page<T> {
    fn empty() -> Self {
        Self {
            items: Vec::new(),
            more: false,
        }
    }

    /// Cuts `limit + 1` fetched rows to a page.
    fn cut(mut items: Vec<T>, limit: usize) -> Self {
        let more = items.len() > limit;
        items.truncate(limit);
        Self { items, more }
    }
}

#[derive(Debug)]
pub struct StoreError(pub String);

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        Self(format!("storage error: {e}"))
    }
}

type Result<T> = std::result::Result<T, StoreError>;

/// Is a session listed, given its event count and when it became empty?
fn session_listed(
    event_count: u64,
    emptied_ms: Option<i64>,
    has_events_only: bool,
    now_ms: i64,
) -> bool {
    event_count > 0
        || (!has_events_only && emptied_ms.is_some_and(|t| now_ms - t < EMPTY_SESSION_TTL_MS))
}

pub enum Store {
    Memory(MemoryStore),
    Sqlite(SqliteStore),
}

impl Store {
    pub fn open(data_dir: Option<&Path>) -> Result<Self> {
        Ok(match data_dir {
            None => Self::Memory(MemoryStore::default()),
            Some(dir) => Self::Sqlite(SqliteStore::open(dir)?),
        })
    }

    pub async fn create(&self, event: NewEvent, now_ms: i64) -> Result<Created> {
        match self {
            Self::Memory(s) => Ok(s.create(event, now_ms)),
            Self::Sqlite(s) => s.create(event, now_ms).await,
        }
    }

    pub async fn get(&self, key: &SessionKey, event_id: &str) -> Result<Option<Arc<StoredEvent>>> {
        match self {
            Self::Memory(s) => Ok(s.get(key, event_id)),
            Self::Sqlite(s) => s.get(key, event_id).await,
        }
    }

    pub async fn delete(&self, key: &SessionKey, event_id: &str, now_ms: i64) -> Result<bool> {
        match self {
            Self::Memory(s) => Ok(s.delete(key, event_id, now_ms)),
            Self::Sqlite(s) => s.delete(key, event_id, now_ms).await,
        }
    }

    /// Up to `limit` events past the cursor in `order`: older than it when
    /// newest first, newer when oldest first.
    pub async fn scan(
        &self,
        key: &SessionKey,
        cursor: Option<&str>,
        limit: usize,
        with_payload: bool,
        order: ListOrder,
    ) -> Result<Page<Arc<StoredEvent>>> {
        match self {
            Self::Memory(s) => Ok(s.scan(key, cursor, limit, order)),
            Self::Sqlite(s) => s.scan(key, cursor, limit, with_payload, order).await,
        }
    }

    /// Sessions of an actor after `after`, by sessionId.
    pub async fn sessions(
        &self,
        memory: &str,
        actor: &str,
        after: Option<&str>,
        limit: usize,
        has_events_only: bool,
        now_ms: i64,
    ) -> Result<Page<SessionSummary>> {
        match self {
            Self::Memory(s) => Ok(s.sessions(memory, actor, after, limit, has_events_only, now_ms)),
            Self::Sqlite(s) => {
                s.sessions(memory, actor, after, limit, has_events_only, now_ms)
                    .await
            }
        }
    }

    /// Actors of a memory after `after`, by actorId.
    pub async fn actors(
        &self,
        memory: &str,
        after: Option<&str>,
        limit: usize,
        now_ms: i64,
    ) -> Result<Page<String>> {
        match self {
            Self::Memory(s) => Ok(s.actors(memory, after, limit, now_ms)),
            Self::Sqlite(s) => s.actors(memory, after, limit, now_ms).await,
        }
    }

    /// The root event of a branch: the rootEventId its first event named.
    pub async fn branch_root(&self, key: &SessionKey, name: &str) -> Result<Option<String>> {
        match self {
            Self::Memory(s) => Ok(s.branch_root(key, name)),
            Self::Sqlite(s) => s.branch_root(key, name).await,
        }
    }

    /// Waits for pending writes and releases the store.
    pub async fn close(&self) {
        if let Self::Sqlite(s) = self {
            s.close().await;
        }
    }
}
