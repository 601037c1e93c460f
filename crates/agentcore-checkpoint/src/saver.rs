//! The checkpoint saver: the LangGraph saver contract over AgentCore Memory.
//!
//! Layout: a thread's namespace is one session (see `ids`). A put is one
//! CreateEvent holding the checkpoint record; a putWrites is one CreateEvent
//! holding a writes record. Event timestamps are at least the time in the
//! checkpoint id, which lets a reader stop at the first page that proves it
//! has everything (see `log`).

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use aws_sdk_bedrockagentcore::types::PayloadType;
use futures::{StreamExt, TryStreamExt};
use sha2::{Digest, Sha256};

use crate::client::{ClientOptions, MemoryClient};
use crate::error::{Error, Result};
use crate::ids::{self, uuid6_millis};
use crate::log::SessionLog;
use crate::record::{
    self, ChannelValue, CheckpointRecord, Record, Typed, WriteEntry, WritesRecord,
};
use crate::tables::{TableKey, Tables};
use crate::writes::{self, PendingWrite};

/// The channel of pending sends in checkpoints before v4.
const TASKS: &str = "__pregel_tasks";
/// DeleteEvent calls in flight at once.
const DELETE_CONCURRENCY: usize = 8;

#[derive(Debug, Clone)]
pub struct SaverOptions {
    pub client: ClientOptions,
    /// The actor used when a config names none.
    pub default_actor: String,
    /// Checkpoints whose value locations are remembered.
    pub table_capacity: usize,
}

/// Where a checkpoint lives.
#[derive(Debug, Clone, Default)]
pub struct Place {
    pub actor: Option<String>,
    pub thread_id: String,
    pub checkpoint_ns: String,
}

#[derive(Debug, Clone)]
pub struct PutRequest {
    pub place: Place,
    pub checkpoint_id: String,
    pub parent_id: Option<String>,
    pub v: i64,
    pub checkpoint: Typed,
    pub metadata: Typed,
    pub filterable: String,
    pub versions: Vec<(String, String)>,
    /// Values of the channels in `newVersions`.
    pub new_values: Vec<ChannelValue>,
}

#[derive(Debug, Clone)]
pub struct WritesRequest {
    pub place: Place,
    pub checkpoint_id: String,
    pub task_id: String,
    pub task_path: String,
    pub writes: Vec<WriteEntry>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Tuple {
    pub actor: String,
    pub thread_id: String,
    pub checkpoint_ns: String,
    pub checkpoint_id: String,
    pub parent_id: Option<String>,
    pub checkpoint: Typed,
    pub metadata: Typed,
    pub values: Vec<ChannelValue>,
    pub pending_writes: Vec<PendingWrite>,
    /// For checkpoints before v4: the parent's pending sends, to migrate.
    pub pending_sends: Option<Vec<Typed>>,
}

#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    pub actor: Option<String>,
    pub thread_id: Option<String>,
    pub checkpoint_ns: Option<String>,
    pub checkpoint_id: Option<String>,
    pub before: Option<String>,
    pub limit: Option<usize>,
    /// Metadata fields that must equal these JSON primitives.
    pub filter: serde_json::Map<String, serde_json::Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChannelHistory {
    pub channel: String,
    pub seed: Option<Typed>,
    pub writes: Vec<PendingWrite>,
}

/// A result with the events a read skipped as not its own.
pub struct Read<T> {
    pub value: T,
    pub skipped: Vec<String>,
}

pub struct Saver {
    client: Arc<MemoryClient>,
    default_actor: String,
    tables: Tables,
}

impl Saver {
    pub fn new(options: SaverOptions) -> Result<Self> {
        check_memory_id(&options.client.memory_id)?;
        check_id("actorId", &options.default_actor)?;
        Ok(Self {
            client: Arc::new(MemoryClient::new(options.client)),
            default_actor: options.default_actor,
            tables: Tables::new(options.table_capacity),
        })
    }

    pub fn default_actor(&self) -> &str {
        &self.default_actor
    }

    fn actor<'a>(&'a self, place: &'a Place) -> &'a str {
        place.actor.as_deref().unwrap_or(&self.default_actor)
    }

    fn log_for(&self, place: &Place) -> SessionLog {
        SessionLog::new(
            self.client.clone(),
            ids::actor_id(self.actor(place)),
            ids::session_id(&place.thread_id, &place.checkpoint_ns),
            Some(place.thread_id.clone()),
            Some(place.checkpoint_ns.clone()),
        )
    }

    pub async fn put(&self, req: PutRequest) -> Result<()> {
        check_place(&req.place)?;
        check_id("checkpoint.id", &req.checkpoint_id)?;
        let actor = self.actor(&req.place).to_string();
        let values = self.with_carried_values(&actor, &req);
        let record = CheckpointRecord {
            actor: actor.clone(),
            thread_id: req.place.thread_id.clone(),
            checkpoint_ns: req.place.checkpoint_ns.clone(),
            checkpoint_id: req.checkpoint_id.clone(),
            parent_id: req.parent_id.clone(),
            v: req.v,
            checkpoint: req.checkpoint,
            metadata: req.metadata,
            filterable: req.filterable,
            versions: req.versions,
            values: values.clone(),
        };
        let at = event_time(&req.checkpoint_id);
        self.create(
            &actor,
            &req.place,
            at,
            "checkpoint",
            &[&req.checkpoint_id],
            Record::Checkpoint(record),
        )
        .await?;
        self.tables
            .put(table_key(&actor, &req.place, &req.checkpoint_id), values);
        Ok(())
    }

    /// The new values, plus the parent's values of unchanged channels when
    /// this process knows them.
    fn with_carried_values(&self, actor: &str, req: &PutRequest) -> Vec<ChannelValue> {
        let mut values = req.new_values.clone();
        let parent = req
            .parent_id
            .as_ref()
            .and_then(|p| self.tables.get(&table_key(actor, &req.place, p)));
        if let Some(parent) = parent {
            let changed: HashSet<&str> =
                req.new_values.iter().map(|v| v.channel.as_str()).collect();
            for (channel, version) in &req.versions {
                if changed.contains(channel.as_str()) {
                    continue;
                }
                if let Some(v) = parent
                    .iter()
                    .find(|v| &v.channel == channel && &v.version == version)
                {
                    values.push(v.clone());
                }
            }
        }
        values
    }

    pub async fn put_writes(&self, req: WritesRequest) -> Result<()> {
        check_place(&req.place)?;
        check_id("checkpoint_id", &req.checkpoint_id)?;
        check_id("taskId", &req.task_id)?;
        let actor = self.actor(&req.place).to_string();
        let seq = next_seq();
        let record = WritesRecord {
            actor: actor.clone(),
            thread_id: req.place.thread_id.clone(),
            checkpoint_ns: req.place.checkpoint_ns.clone(),
            checkpoint_id: req.checkpoint_id.clone(),
            task_id: req.task_id.clone(),
            task_path: req.task_path,
            seq,
            writes: req.writes,
        };
        let at = event_time(&req.checkpoint_id);
        let identity = [
            req.checkpoint_id.as_str(),
            req.task_id.as_str(),
            &seq.to_string(),
        ];
        self.create(
            &actor,
            &req.place,
            at,
            "writes",
            &identity,
            Record::Writes(record),
        )
        .await
    }

    async fn create(
        &self,
        actor: &str,
        place: &Place,
        at: i64,
        kind: &str,
        identity: &[&str],
        record: Record,
    ) -> Result<()> {
        let actor_id = ids::actor_id(actor);
        let session = ids::session_id(&place.thread_id, &place.checkpoint_ns);
        // Deterministic for this call, so the SDK's retries of it are
        // idempotent; the event time makes a later, separate call distinct.
        let mut parts = vec![kind, actor_id.as_str(), session.as_str()];
        parts.extend_from_slice(identity);
        let at_text = at.to_string();
        parts.push(&at_text);
        let token = client_token(&parts);
        let payload: Vec<PayloadType> = vec![record::encode(&record)];
        self.client
            .create_event(&actor_id, &session, at, payload, record.kind(), token)
            .await
            .map(|_| ())
    }

    pub async fn get_tuple(
        &self,
        place: Place,
        checkpoint_id: Option<String>,
    ) -> Result<Read<Option<Tuple>>> {
        check_place(&place)?;
        let mut log = self.log_for(&place);
        let found = match &checkpoint_id {
            Some(id) => log.checkpoint(id).await?,
            None => log.latest().await?,
        };
        let value = match found {
            Some(c) => Some(self.assemble(&mut log, c).await?),
            None => None,
        };
        Ok(Read {
            value,
            skipped: log.skipped,
        })
    }

    /// A checkpoint's tuple: values rebuilt from its channel versions,
    /// pending writes, and pending sends to migrate.
    async fn assemble(&self, log: &mut SessionLog, c: Arc<CheckpointRecord>) -> Result<Tuple> {
        let values = rebuild_values(log, &c).await?;
        let pending_writes = writes::resolve(&log.writes(&c.checkpoint_id).await?);
        let pending_sends = match (&c.parent_id, c.v < 4) {
            (Some(parent), true) => Some(
                writes::resolve(&log.writes(parent).await?)
                    .into_iter()
                    .filter(|w| w.channel == TASKS)
                    .map(|w| w.value)
                    .collect(),
            ),
            _ => None,
        };
        let place = Place {
            actor: Some(c.actor.clone()),
            thread_id: c.thread_id.clone(),
            checkpoint_ns: c.checkpoint_ns.clone(),
        };
        self.tables.put(
            table_key(&c.actor, &place, &c.checkpoint_id),
            values.clone(),
        );
        Ok(Tuple {
            actor: c.actor.clone(),
            thread_id: c.thread_id.clone(),
            checkpoint_ns: c.checkpoint_ns.clone(),
            checkpoint_id: c.checkpoint_id.clone(),
            parent_id: c.parent_id.clone(),
            checkpoint: c.checkpoint.clone(),
            metadata: c.metadata.clone(),
            values: values
                .into_iter()
                .filter(|v| !v.value.is_empty_marker())
                .collect(),
            pending_writes,
            pending_sends,
        })
    }

    pub fn list(self: &Arc<Self>, query: ListQuery) -> Result<ListCursor> {
        if let Some(thread) = &query.thread_id {
            check_id("thread_id", thread)?;
        }
        Ok(ListCursor {
            saver: self.clone(),
            query,
            sessions: None,
            log: None,
            below: None,
            yielded: 0,
            skipped: Vec::new(),
        })
    }

    /// Deletes every event this saver wrote for the thread, in every
    /// namespace and under every actor.
    pub async fn delete_thread(&self, thread_id: &str) -> Result<()> {
        check_id("thread_id", thread_id)?;
        let thread_part = ids::thread_part(thread_id);
        for actor_id in self.client.list_actors().await? {
            let sessions = self.client.list_sessions(&actor_id).await?;
            for session in sessions
                .iter()
                .filter(|s| ids::session_of_thread(s, &thread_part))
            {
                self.delete_session(&actor_id, session).await?;
            }
        }
        self.tables.forget_thread(thread_id);
        Ok(())
    }

    async fn delete_session(&self, actor_id: &str, session: &str) -> Result<()> {
        let mut ours = Vec::new();
        let mut token = None;
        loop {
            let (events, next) = self
                .client
                .list_events(actor_id, session, token, false)
                .await?;
            ours.extend(
                events
                    .iter()
                    .filter(|e| record::is_ours(e))
                    .map(|e| e.event_id().to_string()),
            );
            token = next;
            if token.is_none() {
                break;
            }
        }
        futures::stream::iter(ours)
            .map(|id| async move { self.client.delete_event(actor_id, session, &id).await })
            .buffer_unordered(DELETE_CONCURRENCY)
            .try_collect::<Vec<()>>()
            .await
            .map(|_| ())
    }

    /// For each channel, the nearest ancestor's value (the seed) and the
    /// writes to it from there on, oldest first: what a delta channel needs
    /// to rebuild itself, read from one pass over the log.
    pub async fn delta_channel_history(
        &self,
        place: Place,
        checkpoint_id: Option<String>,
        channels: Vec<String>,
    ) -> Result<Read<Vec<ChannelHistory>>> {
        check_place(&place)?;
        let mut log = self.log_for(&place);
        let start = match &checkpoint_id {
            Some(id) => log.checkpoint(id).await?,
            None => log.latest().await?,
        };
        let mut remaining: HashSet<String> = channels.iter().cloned().collect();
        let mut collected: HashMap<String, Vec<PendingWrite>> = HashMap::new();
        let mut seeds: HashMap<String, Typed> = HashMap::new();
        let mut next = start.and_then(|c| c.parent_id.clone());
        while let (Some(id), false) = (next.take(), remaining.is_empty()) {
            let Some(ancestor) = log.checkpoint(&id).await? else {
                break;
            };
            for w in writes::resolve(&log.writes(&id).await?).into_iter().rev() {
                if remaining.contains(&w.channel) {
                    collected.entry(w.channel.clone()).or_default().push(w);
                }
            }
            let values = rebuild_values(&mut log, &ancestor).await?;
            for v in values.into_iter().filter(|v| !v.value.is_empty_marker()) {
                if remaining.remove(&v.channel) {
                    seeds.insert(v.channel, v.value);
                }
            }
            next = ancestor.parent_id.clone();
        }
        let value = channels
            .into_iter()
            .map(|channel| {
                let mut writes = collected.remove(&channel).unwrap_or_default();
                writes.reverse();
                ChannelHistory {
                    seed: seeds.remove(&channel),
                    writes,
                    channel,
                }
            })
            .collect();
        Ok(Read {
            value,
            skipped: log.skipped,
        })
    }
}

/// `list`, one tuple at a time, reading only the pages it needs.
pub struct ListCursor {
    saver: Arc<Saver>,
    query: ListQuery,
    sessions: Option<VecDeque<(String, String)>>,
    log: Option<SessionLog>,
    below: Option<String>,
    yielded: usize,
    pub skipped: Vec<String>,
}

impl ListCursor {
    pub async fn next(&mut self) -> Result<Option<Tuple>> {
        loop {
            if self.query.limit.is_some_and(|limit| self.yielded >= limit) {
                return Ok(None);
            }
            if self.log.is_none() && !self.open_next_session().await? {
                return Ok(None);
            }
            let log = self.log.as_mut().expect("open log");
            let Some(c) = log.next_below(self.below.as_deref()).await? else {
                self.skipped.append(&mut log.skipped);
                self.log = None;
                continue;
            };
            self.below = Some(c.checkpoint_id.clone());
            if !wanted(&self.query, &c) {
                continue;
            }
            let tuple = self.saver.assemble(log, c).await?;
            self.yielded += 1;
            return Ok(Some(tuple));
        }
    }

    async fn open_next_session(&mut self) -> Result<bool> {
        if self.sessions.is_none() {
            self.sessions = Some(self.sessions_to_read().await?);
        }
        let Some((actor_id, session)) = self.sessions.as_mut().and_then(VecDeque::pop_front) else {
            return Ok(false);
        };
        self.log = Some(SessionLog::new(
            self.saver.client.clone(),
            actor_id,
            session,
            self.query.thread_id.clone(),
            self.query.checkpoint_ns.clone(),
        ));
        self.below = self.query.before.clone();
        Ok(true)
    }

    /// (actorId, sessionId) pairs that may hold matching checkpoints.
    async fn sessions_to_read(&self) -> Result<VecDeque<(String, String)>> {
        let client = &self.saver.client;
        let Some(thread) = &self.query.thread_id else {
            let ns = self.query.checkpoint_ns.as_deref();
            let mut all = VecDeque::new();
            for actor_id in client.list_actors().await? {
                let sessions = client.list_sessions(&actor_id).await?;
                let wanted = sessions
                    .into_iter()
                    .filter(|s| ns.is_none_or(|ns| ids::session_in_namespace(s, ns)));
                all.extend(wanted.map(|s| (actor_id.clone(), s)));
            }
            return Ok(all);
        };
        let actor_id = ids::actor_id(
            self.query
                .actor
                .as_deref()
                .unwrap_or(&self.saver.default_actor),
        );
        if let Some(ns) = &self.query.checkpoint_ns {
            return Ok([(actor_id, ids::session_id(thread, ns))].into());
        }
        let thread_part = ids::thread_part(thread);
        let sessions = client.list_sessions(&actor_id).await?;
        Ok(sessions
            .into_iter()
            .filter(|s| ids::session_of_thread(s, &thread_part))
            .map(|s| (actor_id.clone(), s))
            .collect())
    }
}

fn wanted(query: &ListQuery, c: &CheckpointRecord) -> bool {
    query
        .checkpoint_id
        .as_ref()
        .is_none_or(|id| id == &c.checkpoint_id)
        && matches_filter(&c.filterable, &query.filter)
}

async fn rebuild_values(log: &mut SessionLog, c: &CheckpointRecord) -> Result<Vec<ChannelValue>> {
    let mut values = Vec::with_capacity(c.versions.len());
    for (channel, version) in &c.versions {
        let inline = c
            .values
            .iter()
            .find(|v| &v.channel == channel && &v.version == version);
        let value = match inline {
            Some(v) => Some(v.value.clone()),
            None => log.value(channel, version).await?,
        };
        if let Some(value) = value {
            values.push(ChannelValue {
                channel: channel.clone(),
                version: version.clone(),
                value,
            });
        }
    }
    Ok(values)
}

fn matches_filter(filterable: &str, filter: &serde_json::Map<String, serde_json::Value>) -> bool {
    if filter.is_empty() {
        return true;
    }
    let Ok(serde_json::Value::Object(fields)) =
        serde_json::from_str::<serde_json::Value>(filterable)
    else {
        return false;
    };
    filter.iter().all(|(k, v)| fields.get(k) == Some(v))
}

fn table_key(actor: &str, place: &Place, checkpoint_id: &str) -> TableKey {
    TableKey {
        actor: actor.to_string(),
        thread_id: place.thread_id.clone(),
        checkpoint_ns: place.checkpoint_ns.clone(),
        checkpoint_id: checkpoint_id.to_string(),
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// An event's timestamp: now, but never before the time in its checkpoint id.
fn event_time(checkpoint_id: &str) -> i64 {
    now_ms().max(uuid6_millis(checkpoint_id).unwrap_or(0))
}

/// Microseconds, strictly increasing within the process: orders writes to
/// the same task and index.
fn next_seq() -> u64 {
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64);
    let mut last = LAST.load(Ordering::Relaxed);
    loop {
        let next = now.max(last + 1);
        match LAST.compare_exchange_weak(last, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(seen) => last = seen,
        }
    }
}

fn client_token(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part.as_bytes());
    }
    hasher.finalize()[..20]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn check_id(field: &str, value: &str) -> Result<()> {
    if value.is_empty() {
        return Err(Error::invalid(field, "must be a non-empty string"));
    }
    Ok(())
}

fn check_place(place: &Place) -> Result<()> {
    check_id("thread_id", &place.thread_id)?;
    if let Some(actor) = &place.actor {
        check_id("actor_id", actor)?;
    }
    Ok(())
}

/// memoryId: `[a-zA-Z][a-zA-Z0-9-_]{0,99}-[a-zA-Z0-9]{10}`, or its ARN.
pub fn check_memory_id(memory_id: &str) -> Result<()> {
    let id = memory_id
        .rsplit_once(":memory/")
        .map_or(memory_id, |(arn, id)| {
            if arn.starts_with("arn:") {
                id
            } else {
                memory_id
            }
        });
    let valid = id.len() >= 12
        && id.len() <= 111
        && id.starts_with(|c: char| c.is_ascii_alphabetic())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && id.rsplit_once('-').is_some_and(|(head, tail)| {
            !head.is_empty() && tail.len() == 10 && tail.chars().all(|c| c.is_ascii_alphanumeric())
        });
    if valid {
        Ok(())
    } else {
        Err(Error::invalid(
            "memoryId",
            "must look like 'name-0123456789' (a name, a dash and 10 letters or digits) or a memory ARN",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_ids_follow_the_service_pattern() {
        assert!(check_memory_id("local-abcdefghij").is_ok());
        assert!(check_memory_id(
            "arn:aws:bedrock-agentcore:us-east-1:123456789012:memory/mem_1-ABCDEFGHIJ"
        )
        .is_ok());
        assert!(check_memory_id("short").is_err());
        assert!(check_memory_id("1abc-abcdefghij").is_err());
        assert!(check_memory_id("abc-abcdefghi").is_err());
        assert!(check_memory_id("abc:def-abcdefghij")
            .unwrap_err()
            .message
            .starts_with("memoryId"));
    }

    #[test]
    fn sequence_is_strictly_increasing() {
        let a = next_seq();
        let b = next_seq();
        assert!(b > a);
    }

    #[test]
    fn filters_compare_primitives() {
        let filter = serde_json::json!({"source": "loop", "step": 2});
        let filter = filter.as_object().unwrap();
        assert!(matches_filter(
            r#"{"source":"loop","step":2,"x":true}"#,
            filter
        ));
        assert!(!matches_filter(r#"{"source":"input","step":2}"#, filter));
        assert!(matches_filter("{}", &serde_json::Map::new()));
    }
}
