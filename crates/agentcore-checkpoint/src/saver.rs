//! The checkpoint saver: the LangGraph saver contract over AgentCore Memory.
//!
//! Layout: a thread's namespace is one session (see `ids`). A put is one
//! CreateEvent holding the checkpoint record; a putWrites is one CreateEvent
//! holding a writes record; a record too large for one request is split
//! (see `chunks`). Event timestamps are at least the time in the checkpoint
//! id, which lets a reader stop at the first page that proves it has
//! everything (see `log`).

use std::collections::{HashMap, HashSet, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use futures::{FutureExt, StreamExt, TryStreamExt};
use sha2::{Digest, Sha256};
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::chunks;
use crate::client::{ClientOptions, MemoryClient};
use crate::error::{Error, Result};
use crate::ids::{self, uuid6_millis};
use crate::known::{Key, Known, KnownCheckpoints, Scope};
use crate::log::SessionLog;
use crate::queue::WorkQueue;
use crate::record::{
    self, ChannelValue, CheckpointRecord, Record, Typed, WriteEntry, WritesRecord, CHECKPOINT_KEY,
    COPY_KEY,
};
use crate::writes::{self, PendingWrite};

/// The channel of pending sends in checkpoints before v4.
const TASKS: &str = "__pregel_tasks";
/// DeleteEvent calls in flight at once.
const DELETE_CONCURRENCY: usize = 8;
/// CreateEvent calls in flight at once for the parts of one split record.
const PART_CONCURRENCY: usize = 4;
/// The marker of a split record's parts (see `record::MARKER_KEY`).
const PART_MARKER: &str = "part";
/// Unchanged values a put carries from its parent, at most, so that the
/// newest checkpoint of a state this size reads in one request. Larger
/// unchanged values stay in the event that wrote them.
pub const CARRY_BYTES: usize = 256 * 1024;
pub const DEFAULT_MAX_EVENT_BYTES: usize = 1024 * 1024;
/// Counted as `Known::bytes` does; the allocator's own overhead roughly
/// doubles it in resident memory, measured under the bench's scale run.
pub const DEFAULT_KNOWN_BYTES: usize = 4 * 1024 * 1024;
/// Calls under way at once. LangGraph does not wait for writes under its
/// default durability, so a thousand graphs can hand over tens of thousands
/// of calls within a second; those beyond this many wait holding their
/// request alone, not the kilobytes of state of a call under way.
pub const ADMITTED_CALLS: usize = 128;

/// A write handed over with `Saver::submit`.
pub enum Write {
    Put(PutRequest),
    Writes(WritesRequest),
}

/// Called once with a submitted write's result, on a tokio worker thread.
pub type Done = Box<dyn FnOnce(Result<()>) + Send>;

/// A submitted write waiting for a worker. `put_writes` records are
/// numbered on submission, so they keep the order of the caller's calls.
/// Requests are boxed: a queue slot is then 40 bytes, not the 336 of the
/// largest request, and the queue's capacity follows its longest backlog.
struct Job {
    write: Numbered,
    done: Done,
}

enum Numbered {
    Put(Box<PutRequest>),
    Writes(Box<WritesRequest>, u64),
}

#[derive(Debug, Clone)]
pub struct SaverOptions {
    pub client: ClientOptions,
    /// The actor used when a config names none.
    pub default_actor: String,
    /// The largest CreateEvent request to make; larger records are split.
    pub max_event_bytes: usize,
    /// Compress records with zstd when that makes them smaller.
    pub compress: bool,
    /// Serve reads of checkpoints this process knows from memory, trusting
    /// it to be the only writer of its threads.
    pub cache: bool,
    /// Bytes of recent checkpoints kept in process.
    pub known_bytes: usize,
    /// Keep only the newest checkpoint of each namespace: each put deletes
    /// its parent, and each put and putWrites one of the parent's writes.
    pub shallow: bool,
}

impl SaverOptions {
    pub fn new(client: ClientOptions, default_actor: impl Into<String>) -> Self {
        Self {
            client,
            default_actor: default_actor.into(),
            max_event_bytes: DEFAULT_MAX_EVENT_BYTES,
            compress: true,
            cache: false,
            known_bytes: DEFAULT_KNOWN_BYTES,
            shallow: false,
        }
    }
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
    pub(crate) client: Arc<MemoryClient>,
    pub(crate) default_actor: String,
    pub(crate) known: KnownCheckpoints,
    max_event_bytes: usize,
    compress: bool,
    cache: bool,
    shallow: bool,
    /// Shallow mode: events of superseded checkpoints still to delete.
    stale: std::sync::Mutex<HashMap<Scope, VecDeque<String>>>,
    /// Turns for `put`, `put_writes` and `get_tuple` (ADMITTED_CALLS).
    turns: Semaphore,
    /// Submitted writes waiting for a worker (see `submit`).
    queue: WorkQueue<Job>,
}

impl Saver {
    pub fn new(options: SaverOptions) -> Result<Self> {
        check_memory_id(&options.client.memory_id)?;
        check_id("actorId", &options.default_actor)?;
        if options.max_event_bytes < chunks::MIN_EVENT_BYTES {
            return Err(Error::invalid(
                "maxEventBytes",
                format!("must be at least {}", chunks::MIN_EVENT_BYTES),
            ));
        }
        Ok(Self {
            client: Arc::new(MemoryClient::new(options.client)),
            default_actor: options.default_actor,
            known: KnownCheckpoints::new(options.known_bytes),
            max_event_bytes: options.max_event_bytes,
            compress: options.compress,
            cache: options.cache,
            shallow: options.shallow,
            stale: Default::default(),
            turns: Semaphore::new(ADMITTED_CALLS),
            queue: WorkQueue::new(ADMITTED_CALLS),
        })
    }

    /// Waits for a turn to run a call (FIFO). The call's own future is then
    /// boxed by the caller, so that until its turn comes a call costs the
    /// few bytes of this wait.
    async fn turn(&self) -> SemaphorePermit<'_> {
        self.turns.acquire().await.expect("never closed")
    }

    pub fn default_actor(&self) -> &str {
        &self.default_actor
    }

    fn actor<'a>(&'a self, place: &'a Place) -> &'a str {
        place.actor.as_deref().unwrap_or(&self.default_actor)
    }

    fn scope(&self, place: &Place) -> Scope {
        Scope {
            actor: self.actor(place).to_string(),
            thread_id: place.thread_id.clone(),
            checkpoint_ns: place.checkpoint_ns.clone(),
        }
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

    /// Hands over a write without waiting for it: it runs on one of at
    /// most ADMITTED_CALLS worker tasks, in the order of submission, and
    /// `done` gets its result. Until then it costs its request and `done`,
    /// not a task. Must be called within a tokio runtime.
    pub fn submit(self: &Arc<Self>, write: Write, done: Done) {
        let write = match write {
            Write::Put(req) => Numbered::Put(Box::new(req)),
            Write::Writes(req) => Numbered::Writes(Box::new(req), next_seq()),
        };
        if self.queue.push(Job { write, done }) {
            tokio::spawn(Arc::clone(self).work());
        }
    }

    /// A worker: runs submitted writes until none is waiting.
    async fn work(self: Arc<Self>) {
        while let Some(Job { write, done }) = self.queue.next() {
            let run = async {
                match write {
                    Numbered::Put(req) => self.put(*req).await,
                    Numbered::Writes(req, seq) => self.put_writes_numbered(*req, seq).await,
                }
            };
            // A panic fails this write alone; the worker goes on.
            let result = AssertUnwindSafe(run).catch_unwind().await;
            done(result.unwrap_or_else(|_| Err(Error::internal("the write panicked"))));
        }
    }

    pub async fn put(&self, req: PutRequest) -> Result<()> {
        let _turn = self.turn().await;
        Box::pin(self.put_now(req)).await
    }

    async fn put_now(&self, req: PutRequest) -> Result<()> {
        check_place(&req.place)?;
        check_id("checkpoint.id", &req.checkpoint_id)?;
        let scope = self.scope(&req.place);
        let (stored, full) = self.values_to_store(&scope, &req);
        let record = CheckpointRecord {
            actor: scope.actor.clone(),
            thread_id: req.place.thread_id.clone(),
            checkpoint_ns: req.place.checkpoint_ns.clone(),
            checkpoint_id: req.checkpoint_id.clone(),
            parent_id: req.parent_id.clone(),
            v: req.v,
            checkpoint: req.checkpoint,
            metadata: req.metadata,
            filterable: req.filterable,
            versions: req.versions,
            values: stored,
        };
        let at = event_time(&req.checkpoint_id);
        let record = Record::Checkpoint(record);
        let identity = [req.checkpoint_id.as_str()];
        let events = self
            .create(&scope.actor, &req.place, at, &identity, &record, None)
            .await?;
        if self.shallow && full.is_some() {
            self.supersede(&scope, req.parent_id.as_deref()).await?;
        }
        let (Record::Checkpoint(record), Some(values)) = (record, full) else {
            return Ok(());
        };
        // Every event about this checkpoint is at least as new as its id.
        let synced_ms = uuid6_millis(&req.checkpoint_id).unwrap_or(0);
        let key = Key {
            scope,
            checkpoint_id: req.checkpoint_id,
        };
        let known = Known {
            record: Arc::new(record),
            values: Arc::new(values),
            writes: Vec::new(),
            synced_ms,
            record_events: events,
            write_events: Vec::new(),
        };
        self.known.put(key, known);
        Ok(())
    }

    /// Shallow mode, once a child is stored: deletes the parent's record
    /// now, and queues the events of its writes, deleted one per later call.
    async fn supersede(&self, scope: &Scope, parent: Option<&str>) -> Result<()> {
        let Some(parent) = parent else {
            return Ok(());
        };
        let key = Key {
            scope: scope.clone(),
            checkpoint_id: parent.to_string(),
        };
        let Some(known) = self.known.get(&key) else {
            return Ok(());
        };
        self.stale
            .lock()
            .expect("stale lock")
            .entry(scope.clone())
            .or_default()
            .extend(known.write_events.iter().cloned());
        let place = place_of(&known.record);
        for event in &known.record_events {
            self.delete_event(&place, event).await?;
        }
        Ok(())
    }

    /// Shallow mode: deletes one queued event of a superseded checkpoint.
    async fn delete_one_stale(&self, scope: &Scope, place: &Place) -> Result<()> {
        let next = self
            .stale
            .lock()
            .expect("stale lock")
            .get_mut(scope)
            .and_then(VecDeque::pop_front);
        match next {
            Some(event) => self.delete_event(place, &event).await,
            None => Ok(()),
        }
    }

    async fn delete_event(&self, place: &Place, event_id: &str) -> Result<()> {
        let actor_id = ids::actor_id(self.actor(place));
        let session = ids::session_id(&place.thread_id, &place.checkpoint_ns);
        self.client
            .delete_event(&actor_id, &session, event_id)
            .await
    }

    /// The values to store with a checkpoint: the new ones, plus the
    /// parent's unchanged ones up to `CARRY_BYTES`, smallest first. Also
    /// every channel's value, when this process knows them all.
    fn values_to_store(
        &self,
        scope: &Scope,
        req: &PutRequest,
    ) -> (Vec<ChannelValue>, Option<Vec<ChannelValue>>) {
        let mut stored = req.new_values.clone();
        let parent = req.parent_id.as_ref().and_then(|p| {
            self.known.get(&Key {
                scope: scope.clone(),
                checkpoint_id: p.clone(),
            })
        });
        let changed: HashSet<&str> = req.new_values.iter().map(|v| v.channel.as_str()).collect();
        let mut unchanged = Vec::new();
        let mut complete = true;
        for (channel, version) in &req.versions {
            if changed.contains(channel.as_str()) {
                continue;
            }
            let found = parent.as_ref().and_then(|p| {
                p.values
                    .iter()
                    .find(|v| &v.channel == channel && &v.version == version)
            });
            match found {
                Some(v) => unchanged.push(v.clone()),
                None => complete = false,
            }
        }
        // In `versions` order, as a read rebuilds them.
        let full = complete.then(|| {
            req.versions
                .iter()
                .filter_map(|(channel, _)| {
                    let mut all = stored.iter().chain(&unchanged);
                    all.find(|v| &v.channel == channel).cloned()
                })
                .collect()
        });
        unchanged.sort_by_key(|v| v.value.data.len());
        // Shallow mode deletes the parent: every value must come along.
        let mut budget = if self.shallow {
            usize::MAX
        } else {
            CARRY_BYTES
        };
        for v in unchanged {
            let Some(left) = budget.checked_sub(v.value.data.len()) else {
                break;
            };
            budget = left;
            stored.push(v);
        }
        (stored, full)
    }

    pub async fn put_writes(&self, req: WritesRequest) -> Result<()> {
        // Numbered in the order calls arrive, not the order their turns come.
        self.put_writes_numbered(req, next_seq()).await
    }

    async fn put_writes_numbered(&self, req: WritesRequest, seq: u64) -> Result<()> {
        let _turn = self.turn().await;
        Box::pin(self.put_writes_now(req, seq)).await
    }

    async fn put_writes_now(&self, req: WritesRequest, seq: u64) -> Result<()> {
        check_place(&req.place)?;
        check_id("checkpoint_id", &req.checkpoint_id)?;
        check_id("taskId", &req.task_id)?;
        let scope = self.scope(&req.place);
        let record = WritesRecord {
            actor: scope.actor.clone(),
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
        let record = Record::Writes(record);
        let events = self
            .create(&scope.actor, &req.place, at, &identity, &record, None)
            .await?;
        if self.shallow {
            self.delete_one_stale(&scope, &req.place).await?;
        }
        let Record::Writes(record) = record else {
            unreachable!("a writes record")
        };
        let key = Key {
            scope,
            checkpoint_id: req.checkpoint_id,
        };
        self.known.add_writes(&key, record, events);
        Ok(())
    }

    /// Stores a record: one event, or its parts and then its head. Returns
    /// the ids of the events that hold it.
    pub(crate) async fn create(
        &self,
        actor: &str,
        place: &Place,
        at: i64,
        identity: &[&str],
        record: &Record,
        copied_from: Option<&str>,
    ) -> Result<Vec<String>> {
        let actor_id = ids::actor_id(actor);
        let session = ids::session_id(&place.thread_id, &place.checkpoint_ns);
        // Deterministic for this call, so the SDK's retries of it are
        // idempotent; the event time makes a later, separate call distinct.
        let kind = record.kind();
        let mut parts = vec![kind, actor_id.as_str(), session.as_str()];
        parts.extend_from_slice(identity);
        let at_text = at.to_string();
        parts.push(&at_text);
        let token = client_token(&parts);
        let packed = record::pack(record, self.compress);
        let client = &self.client;
        let mut extra = Vec::new();
        if let Some(copy) = copied_from {
            extra.push((COPY_KEY, copy));
        }
        let checkpoint_id = record.checkpoint_id();
        if record::fits_metadata(checkpoint_id) {
            extra.push((CHECKPOINT_KEY, checkpoint_id));
        }
        let extra = extra.as_slice();
        if chunks::fits(&packed, self.max_event_bytes) {
            let payload = vec![record::whole(&packed)];
            let id = client
                .create_event(&actor_id, &session, at, payload, kind, token, extra)
                .await?;
            return Ok(vec![id]);
        }
        let slices = chunks::split(&packed, self.max_event_bytes);
        let count = slices.len();
        let (actor_id, session, token, slices) = (&actor_id, &session, &token, &slices);
        // Indices, not slices, cross into the futures: their payloads are
        // built as each is sent, so at most PART_CONCURRENCY are encoded at once.
        let mut events = futures::stream::iter(0..count)
            .map(|i| async move {
                let part_token = client_token(&[token, PART_MARKER, &i.to_string()]);
                let payload = vec![record::part(token, i, slices[i])];
                client
                    .create_event(
                        actor_id,
                        session,
                        at,
                        payload,
                        PART_MARKER,
                        part_token,
                        extra,
                    )
                    .await
            })
            .buffer_unordered(PART_CONCURRENCY)
            .try_collect::<Vec<_>>()
            .await?;
        // Last: until the head is stored, readers ignore the parts.
        let payload = vec![record::head(token, &packed, count)];
        let head = client
            .create_event(actor_id, session, at, payload, kind, token.clone(), extra)
            .await?;
        events.insert(0, head);
        Ok(events)
    }

    pub async fn get_tuple(
        &self,
        place: Place,
        checkpoint_id: Option<String>,
    ) -> Result<Read<Option<Tuple>>> {
        let _turn = self.turn().await;
        Box::pin(self.get_tuple_now(place, checkpoint_id)).await
    }

    async fn get_tuple_now(
        &self,
        place: Place,
        checkpoint_id: Option<String>,
    ) -> Result<Read<Option<Tuple>>> {
        check_place(&place)?;
        let scope = self.scope(&place);
        let known = match &checkpoint_id {
            Some(id) => self.known.get(&Key {
                scope: scope.clone(),
                checkpoint_id: id.clone(),
            }),
            None if self.cache => self.known.newest(&scope),
            None => None,
        };
        // Checkpoints before v4 need their parent's writes: the full path.
        let known = known.filter(|k| k.record.v >= 4);
        let mut log = self.log_for(&place);
        if let Some(known) = known {
            if self.cache {
                return Ok(Read {
                    value: Some(tuple_of(&known, writes::resolve(&known.writes))),
                    skipped: Vec::new(),
                });
            }
            if let Some(tuple) = self.refresh(&mut log, known).await? {
                return Ok(Read {
                    value: Some(tuple),
                    skipped: log.skipped,
                });
            }
        }
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

    /// A known checkpoint's tuple, reading only the events written since
    /// this process last saw its writes; `None` if the pages cannot prove
    /// they cover that span (they are not newest first).
    async fn refresh(&self, log: &mut SessionLog, known: Known) -> Result<Option<Tuple>> {
        if !log.read_since(known.synced_ms).await? {
            return Ok(None);
        }
        let id = known.record.checkpoint_id.clone();
        let mut all = known.writes.clone();
        all.extend(log.writes_seen(&id));
        let mut write_events = known.write_events.clone();
        write_events.extend(log.events_of(&id).1);
        write_events.sort();
        write_events.dedup();
        let fresh = Known {
            writes: dedup(all),
            synced_ms: log.newest_ms().unwrap_or(known.synced_ms),
            write_events,
            ..known
        };
        let tuple = tuple_of(&fresh, writes::resolve(&fresh.writes));
        self.known.put(
            Key {
                scope: self.scope(&place_of(&fresh.record)),
                checkpoint_id: id,
            },
            fresh,
        );
        Ok(Some(tuple))
    }

    /// A checkpoint's tuple: values rebuilt from its channel versions,
    /// pending writes, and pending sends to migrate.
    async fn assemble(&self, log: &mut SessionLog, c: Arc<CheckpointRecord>) -> Result<Tuple> {
        let place = place_of(&c);
        let parent = c.parent_id.as_ref().and_then(|p| {
            self.known.get(&Key {
                scope: self.scope(&place),
                checkpoint_id: p.clone(),
            })
        });
        let values = rebuild_values(log, &c, parent.as_ref()).await?;
        let recorded = log.writes(&c.checkpoint_id).await?;
        let pending_writes = writes::resolve(&recorded);
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
        let (record_events, write_events) = log.events_of(&c.checkpoint_id);
        let known = Known {
            record: c.clone(),
            values: Arc::new(values),
            writes: recorded,
            synced_ms: log.newest_ms().unwrap_or(0),
            record_events,
            write_events,
        };
        let mut tuple = tuple_of(&known, pending_writes);
        tuple.pending_sends = pending_sends;
        let key = Key {
            scope: self.scope(&place),
            checkpoint_id: c.checkpoint_id.clone(),
        };
        self.known.put(key, known);
        Ok(tuple)
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
        self.delete_thread_counted(thread_id).await.map(|_| ())
    }

    /// `delete_thread`, returning how many events it deleted.
    pub(crate) async fn delete_thread_counted(&self, thread_id: &str) -> Result<usize> {
        check_id("thread_id", thread_id)?;
        let mut deleted = 0;
        for (actor_id, session) in self.thread_sessions(thread_id).await? {
            deleted += self.delete_session(&actor_id, &session).await?;
        }
        self.known.forget_thread(thread_id);
        Ok(deleted)
    }

    /// (actorId, sessionId) of every namespace of a thread, under any actor.
    pub(crate) async fn thread_sessions(&self, thread_id: &str) -> Result<Vec<(String, String)>> {
        let thread_part = ids::thread_part(thread_id);
        let mut all = self.client.all_sessions().await?;
        all.retain(|(_, s)| ids::session_of_thread(s, &thread_part));
        Ok(all)
    }

    /// Deletes the saver's events of a session; returns how many.
    pub(crate) async fn delete_session(&self, actor_id: &str, session: &str) -> Result<usize> {
        let events = self.client.all_events(actor_id, session, false).await?;
        let ours = events
            .iter()
            .filter(|e| record::is_ours(e))
            .map(|e| e.event_id().to_string())
            .collect();
        self.delete_events(actor_id, session, ours).await
    }

    /// Deletes events, a bounded number at once; returns how many.
    pub(crate) async fn delete_events(
        &self,
        actor_id: &str,
        session: &str,
        event_ids: Vec<String>,
    ) -> Result<usize> {
        let count = event_ids.len();
        futures::stream::iter(event_ids)
            .map(|id| async move { self.client.delete_event(actor_id, session, &id).await })
            .buffer_unordered(DELETE_CONCURRENCY)
            .try_collect::<Vec<()>>()
            .await?;
        Ok(count)
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
            let values = rebuild_values(&mut log, &ancestor, None).await?;
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
    sessions: Option<VecDeque<SessionLog>>,
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
            let mut logs: VecDeque<SessionLog> = self
                .sessions_to_read()
                .await?
                .into_iter()
                .map(|(actor_id, session)| {
                    SessionLog::new(
                        self.saver.client.clone(),
                        actor_id,
                        session,
                        self.query.thread_id.clone(),
                        self.query.checkpoint_ns.clone(),
                    )
                })
                .collect();
            self.check_before(&mut logs).await?;
            self.sessions = Some(logs);
        }
        let Some(log) = self.sessions.as_mut().and_then(VecDeque::pop_front) else {
            return Ok(false);
        };
        self.log = Some(log);
        self.below = self.query.before.clone();
        Ok(true)
    }

    /// LangGraph's savers treat `before` as a bound on ids, and its
    /// conformance suite lists one thread before another thread's
    /// checkpoint: an id is accepted if any thread has it. An id no thread
    /// has is the caller's mistake (a stale or foreign config), refused
    /// rather than listed as an empty or a whole history. Looking in the
    /// listed sessions costs nothing the listing would not read anyway; the
    /// rest of the memory is read only for an id found nowhere else.
    async fn check_before(&self, logs: &mut VecDeque<SessionLog>) -> Result<()> {
        let Some(before) = &self.query.before else {
            return Ok(());
        };
        if self.saver.known.contains_id(before) {
            return Ok(());
        }
        for log in logs.iter_mut() {
            if log.checkpoint(before).await?.is_some() {
                return Ok(());
            }
        }
        let client = &self.saver.client;
        let listed: HashSet<(String, String)> = logs.iter().map(SessionLog::key).collect();
        for (actor_id, session) in client.all_sessions().await? {
            if listed.contains(&(actor_id.clone(), session.clone())) {
                continue;
            }
            let mut log = SessionLog::new(client.clone(), actor_id, session, None, None);
            if log.checkpoint(before).await?.is_some() {
                return Ok(());
            }
        }
        Err(Error::invalid(
            "before",
            format!("names checkpoint '{before}', which no thread of this memory has"),
        ))
    }

    /// (actorId, sessionId) pairs that may hold matching checkpoints.
    async fn sessions_to_read(&self) -> Result<VecDeque<(String, String)>> {
        let client = &self.saver.client;
        let Some(thread) = &self.query.thread_id else {
            let ns = self.query.checkpoint_ns.as_deref();
            let mut all = client.all_sessions().await?;
            all.retain(|(_, s)| ns.is_none_or(|ns| ids::session_in_namespace(s, ns)));
            return Ok(all.into());
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

/// Every channel's value at a checkpoint (empty markers included): those
/// stored with it, else its parent's when this process knows them, else
/// from older events of the log.
async fn rebuild_values(
    log: &mut SessionLog,
    c: &CheckpointRecord,
    parent: Option<&Known>,
) -> Result<Vec<ChannelValue>> {
    let mut values = Vec::with_capacity(c.versions.len());
    for (channel, version) in &c.versions {
        let at = |v: &&ChannelValue| &v.channel == channel && &v.version == version;
        let near = c
            .values
            .iter()
            .find(at)
            .or_else(|| parent.and_then(|p| p.values.iter().find(at)));
        let value = match near {
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

/// The tuple of a checkpoint whose values are all known.
fn tuple_of(known: &Known, pending_writes: Vec<PendingWrite>) -> Tuple {
    let c = &known.record;
    Tuple {
        actor: c.actor.clone(),
        thread_id: c.thread_id.clone(),
        checkpoint_ns: c.checkpoint_ns.clone(),
        checkpoint_id: c.checkpoint_id.clone(),
        parent_id: c.parent_id.clone(),
        checkpoint: c.checkpoint.clone(),
        metadata: c.metadata.clone(),
        values: known
            .values
            .iter()
            .filter(|v| !v.value.is_empty_marker())
            .cloned()
            .collect(),
        pending_writes,
        pending_sends: None,
    }
}

pub(crate) fn place_of(c: &CheckpointRecord) -> Place {
    Place {
        actor: Some(c.actor.clone()),
        thread_id: c.thread_id.clone(),
        checkpoint_ns: c.checkpoint_ns.clone(),
    }
}

/// Write records without repeats: the same record may be known from this
/// process and read again from the log.
fn dedup(mut records: Vec<Arc<WritesRecord>>) -> Vec<Arc<WritesRecord>> {
    let mut seen = HashSet::new();
    records.retain(|w| seen.insert((w.task_id.clone(), w.seq)));
    records
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

pub(crate) fn check_id(field: &str, value: &str) -> Result<()> {
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
