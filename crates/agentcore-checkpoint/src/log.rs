//! A session's events read page by page, newest first, decoded and indexed
//! as they arrive, and fetched no further than a question needs.
//!
//! The saver sets every event's timestamp to at least the time embedded in
//! its checkpoint id (a UUID v6), so every event about checkpoint C is at
//! least as new as C's id. The service returns events newest first (an
//! observation, not a promise); while the pages seen so far are in that
//! order, seeing an event older than C's time proves nothing about C is
//! left unseen. If a page breaks the order, or an id carries no time, the
//! log is read to its end instead: a wrong observation costs requests,
//! never correctness.
//!
//! Events whose metadata names their checkpoint are decoded only when a
//! question needs that checkpoint: reading the newest checkpoint decodes its
//! record and its writes, not the hundred events of the page around them.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Bound;
use std::sync::Arc;

use aws_sdk_bedrockagentcore::types::Event;

use crate::chunks::{Assembler, Joined};
use crate::client::MemoryClient;
use crate::error::Result;
use crate::ids::uuid6_millis;
use crate::record::{
    self, CheckpointRecord, Item, Record, Typed, WritesRecord, CHECKPOINT_KEY, MARKER_KEY,
};

pub struct SessionLog {
    client: Arc<MemoryClient>,
    actor_id: String,
    session_id: String,
    /// Records must belong to this thread (and namespace, when given).
    thread_id: Option<String>,
    checkpoint_ns: Option<String>,
    next_token: Option<String>,
    exhausted: bool,
    newest_first: bool,
    last_ms: Option<i64>,
    oldest_ms: Option<i64>,
    newest_ms: Option<i64>,
    assembler: Assembler,
    /// The events that hold each checkpoint's record, and its writes.
    record_events: HashMap<String, Vec<String>>,
    write_events: HashMap<String, Vec<String>>,
    checkpoints: BTreeMap<String, Arc<CheckpointRecord>>,
    /// Every checkpoint id seen, decoded or not.
    ids: BTreeSet<String>,
    /// Events not decoded yet, by the checkpoint their metadata names.
    deferred: Deferred,
    writes: HashMap<String, Vec<Arc<WritesRecord>>>,
    values: HashMap<(String, String), Typed>,
    /// One line per event that is not a record of this thread.
    pub skipped: Vec<String>,
}

impl SessionLog {
    pub fn new(
        client: Arc<MemoryClient>,
        actor_id: String,
        session_id: String,
        thread_id: Option<String>,
        checkpoint_ns: Option<String>,
    ) -> Self {
        Self {
            client,
            actor_id,
            session_id,
            thread_id,
            checkpoint_ns,
            next_token: None,
            exhausted: false,
            newest_first: true,
            last_ms: None,
            oldest_ms: None,
            newest_ms: None,
            assembler: Assembler::default(),
            record_events: HashMap::new(),
            write_events: HashMap::new(),
            checkpoints: BTreeMap::new(),
            ids: BTreeSet::new(),
            deferred: Deferred::default(),
            writes: HashMap::new(),
            values: HashMap::new(),
            skipped: Vec::new(),
        }
    }

    /// Reads the next page; false once there is none.
    async fn fetch(&mut self) -> Result<bool> {
        if self.exhausted {
            return Ok(false);
        }
        // The token is replaced only once the page is in, so a failed call
        // can be repeated without reading a page twice.
        let (events, token) = self
            .client
            .list_events(
                &self.actor_id,
                &self.session_id,
                self.next_token.clone(),
                true,
            )
            .await?;
        self.exhausted = token.is_none();
        self.next_token = token;
        events.into_iter().for_each(|e| self.ingest(e));
        Ok(true)
    }

    fn ingest(&mut self, event: Event) {
        let ms = event_ms(&event);
        if self.last_ms.is_some_and(|last| ms > last) {
            self.newest_first = false;
        }
        self.last_ms = Some(ms);
        self.oldest_ms = Some(self.oldest_ms.map_or(ms, |o| o.min(ms)));
        self.newest_ms = Some(self.newest_ms.map_or(ms, |n| n.max(ms)));
        match labels(&event) {
            Some(("checkpoint", id)) => {
                self.ids.insert(id.clone());
                self.deferred.records.entry(id).or_default().push(event);
            }
            Some(("writes", id)) => self.deferred.writes.entry(id).or_default().push(event),
            // Parts are joined as they come, so a record split across pages
            // completes whenever its last piece is read.
            _ => self.decode(&event),
        }
    }

    fn decode(&mut self, event: &Event) {
        for item in event.payload() {
            match decode_item(&mut self.assembler, item, event.event_id()) {
                Some((Ok(r), events)) if self.belongs(&r) => self.index(r, events),
                Some((Ok(_), _)) => self.skip(event, "a record of another thread or namespace"),
                Some((Err(why), _)) => self.skip(event, &why.to_string()),
                None => {}
            }
        }
    }

    /// Decodes the deferred record of the checkpoint `id`, in the order its
    /// events were read (newest first, so the newest copy wins).
    fn decode_record(&mut self, id: &str) {
        let events = self.deferred.take(id, false);
        events.iter().for_each(|e| self.decode(e));
    }

    /// Decodes the deferred writes of the checkpoint `id`.
    fn decode_writes(&mut self, id: &str) {
        let events = self.deferred.take(id, true);
        events.iter().for_each(|e| self.decode(e));
    }

    fn belongs(&self, r: &Record) -> bool {
        let (thread, ns) = r.place();
        self.thread_id.as_deref().is_none_or(|t| t == thread)
            && self.checkpoint_ns.as_deref().is_none_or(|n| n == ns)
    }

    fn skip(&mut self, event: &Event, why: &str) {
        self.skipped.push(format!(
            "skipped event {} in session {}: {why}",
            event.event_id(),
            self.session_id
        ));
    }

    fn index(&mut self, record: Record, events: Vec<String>) {
        let by_id = match &record {
            Record::Checkpoint(_) => &mut self.record_events,
            Record::Writes(_) => &mut self.write_events,
        };
        let id = record.checkpoint_id().to_string();
        by_id.entry(id).or_default().extend(events);
        match record {
            Record::Checkpoint(c) => {
                self.ids.insert(c.checkpoint_id.clone());
                for v in &c.values {
                    self.values
                        .entry((v.channel.clone(), v.version.clone()))
                        .or_insert_with(|| v.value.clone());
                }
                self.checkpoints
                    .entry(c.checkpoint_id.clone())
                    .or_insert_with(|| Arc::new(c));
            }
            Record::Writes(w) => self
                .writes
                .entry(w.checkpoint_id.clone())
                .or_default()
                .push(Arc::new(w)),
        }
    }

    /// Whether every event about the checkpoint `id` has been seen.
    fn settled(&self, id: &str) -> bool {
        self.exhausted
            || (self.newest_first
                && uuid6_millis(id)
                    .is_some_and(|floor| self.oldest_ms.is_some_and(|oldest| oldest < floor)))
    }

    /// The (actorId, sessionId) the log reads.
    pub fn key(&self) -> (String, String) {
        (self.actor_id.clone(), self.session_id.clone())
    }

    /// The time of the newest event read so far.
    pub fn newest_ms(&self) -> Option<i64> {
        self.newest_ms
    }

    /// Reads until every event from `since_ms` on has been seen, if the pages
    /// prove it (newest first); false if they cannot.
    pub async fn read_since(&mut self, since_ms: i64) -> Result<bool> {
        loop {
            if !self.newest_first {
                return Ok(false);
            }
            if self.exhausted || self.oldest_ms.is_some_and(|oldest| oldest < since_ms) {
                return Ok(true);
            }
            self.fetch().await?;
        }
    }

    /// The newest checkpoint (by id) of the session.
    pub async fn latest(&mut self) -> Result<Option<Arc<CheckpointRecord>>> {
        self.next_below(None).await
    }

    pub async fn checkpoint(&mut self, id: &str) -> Result<Option<Arc<CheckpointRecord>>> {
        loop {
            self.decode_record(id);
            if let Some(c) = self.checkpoints.get(id) {
                return Ok(Some(c.clone()));
            }
            if self.settled(id) || !self.fetch().await? {
                return Ok(None);
            }
        }
    }

    /// The newest checkpoint with an id below `below` (or the newest of all),
    /// once every newer checkpoint and its writes are known.
    pub async fn next_below(
        &mut self,
        below: Option<&str>,
    ) -> Result<Option<Arc<CheckpointRecord>>> {
        loop {
            if let Some(c) = self.newest_below(below) {
                if self.settled(&c.checkpoint_id) {
                    return Ok(Some(c));
                }
            }
            if !self.fetch().await? {
                return Ok(self.newest_below(below));
            }
        }
    }

    fn newest_below(&mut self, below: Option<&str>) -> Option<Arc<CheckpointRecord>> {
        loop {
            let upper = below.map_or(Bound::Unbounded, Bound::Excluded);
            let id = self
                .ids
                .range::<str, _>((Bound::Unbounded, upper))
                .next_back()?
                .clone();
            self.decode_record(&id);
            if let Some(c) = self.checkpoints.get(&id) {
                return Some(c.clone());
            }
            // Its events held nothing of this thread: not a candidate.
            self.ids.remove(&id);
        }
    }

    /// The events read so far that hold the checkpoint `id`, and its writes.
    pub fn events_of(&self, id: &str) -> (Vec<String>, Vec<String>) {
        let get = |m: &HashMap<String, Vec<String>>| m.get(id).cloned().unwrap_or_default();
        (get(&self.record_events), get(&self.write_events))
    }

    /// The write records of the checkpoint `id` read so far.
    pub fn writes_seen(&mut self, id: &str) -> Vec<Arc<WritesRecord>> {
        self.decode_writes(id);
        self.writes.get(id).cloned().unwrap_or_default()
    }

    /// Every write record of the checkpoint `id`.
    pub async fn writes(&mut self, id: &str) -> Result<Vec<Arc<WritesRecord>>> {
        while !self.settled(id) && self.fetch().await? {}
        Ok(self.writes_seen(id))
    }

    /// The stored value of a channel at a version, wherever it was stored.
    pub async fn value(&mut self, channel: &str, version: &str) -> Result<Option<Typed>> {
        let key = (channel.to_string(), version.to_string());
        loop {
            if let Some(v) = self.values.get(&key) {
                return Ok(Some(v.clone()));
            }
            // Any checkpoint may hold it: decode the deferred ones first.
            if let Some(id) = self.deferred.records.keys().next().cloned() {
                self.decode_record(&id);
                continue;
            }
            if !self.fetch().await? {
                return Ok(None);
            }
        }
    }
}

/// An event's time in milliseconds. The SDK parses it through an f64, so
/// `...600.123` can come back as `...600.122999`: round, not truncate.
pub fn event_ms(event: &Event) -> i64 {
    (event.event_timestamp().as_secs_f64() * 1000.0).round() as i64
}

/// A payload item as a whole record with the events that held it, once it
/// is whole: at once, or when the last piece of a split one arrives.
pub fn decode_item(
    assembler: &mut Assembler,
    item: &aws_sdk_bedrockagentcore::types::PayloadType,
    event_id: &str,
) -> Option<Joined> {
    match record::decode(item) {
        Ok(Item::Record(r)) => Some((Ok(r), vec![event_id.to_string()])),
        Ok(Item::Part { key, index, data }) => assembler.part(key, index, data, event_id),
        Ok(Item::Head {
            key,
            encoding,
            parts,
            sha256,
        }) => assembler.head(key, encoding, parts, sha256, event_id),
        Err(why) => Some((Err(why), vec![event_id.to_string()])),
    }
}

/// Events read but not decoded yet, by the checkpoint their metadata names:
/// its record (whole, or the head of a split one), and its writes.
#[derive(Default)]
struct Deferred {
    records: HashMap<String, Vec<Event>>,
    writes: HashMap<String, Vec<Event>>,
}

impl Deferred {
    fn take(&mut self, id: &str, writes: bool) -> Vec<Event> {
        let kind = if writes {
            &mut self.writes
        } else {
            &mut self.records
        };
        kind.remove(id).unwrap_or_default()
    }
}

/// An event's kind and checkpoint, from the metadata the saver gives it;
/// `None` for events without them (another writer's, or an older version's),
/// which are decoded as they are read.
fn labels(event: &Event) -> Option<(&str, String)> {
    let metadata = event.metadata()?;
    let text = |key| metadata.get(key).and_then(|v| v.as_string_value().ok());
    let kind = text(MARKER_KEY)?;
    Some((kind.as_str(), text(CHECKPOINT_KEY)?.clone()))
}
