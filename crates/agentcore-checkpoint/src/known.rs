//! What this process knows about recent checkpoints, kept so that it need
//! not ask again: each checkpoint's record and full channel values (both
//! immutable once written, so always safe to reuse), its pending writes as
//! of a point in the session's log, and, for the single-writer cache, the
//! newest checkpoint of each namespace. Bounded by bytes, least recently
//! used first out.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use lru::LruCache;

use crate::record::{ChannelValue, CheckpointRecord, Typed, WritesRecord};

/// Where a namespace's checkpoints are: actor, thread, namespace.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Scope {
    pub actor: String,
    pub thread_id: String,
    pub checkpoint_ns: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    pub scope: Scope,
    pub checkpoint_id: String,
}

#[derive(Debug, Clone)]
pub struct Known {
    pub record: Arc<CheckpointRecord>,
    /// Every channel's value at this checkpoint, empty markers included.
    pub values: Arc<Vec<ChannelValue>>,
    /// Its pending writes, complete as of `synced_ms`.
    pub writes: Vec<Arc<WritesRecord>>,
    /// Every event of the session older than this was seen when `writes`
    /// was taken; a later read need only look at events from here on.
    pub synced_ms: i64,
    /// The events holding its record.
    pub record_events: Vec<String>,
    /// The events holding its writes.
    pub write_events: Vec<String>,
}

impl Known {
    /// Memory the entry holds, counted generously: every string and byte
    /// buffer, plus the bookkeeping around them (shared buffers count once
    /// per holder), so that the bound holds for real.
    fn bytes(&self) -> usize {
        /// The LRU node, the key, and the Arcs, Vecs and Strings' headers.
        const ENTRY: usize = 512;
        const ITEM: usize = 64;
        let typed = |t: &Typed| t.kind.len() + t.data.len() + ITEM;
        let value = |v: &ChannelValue| v.channel.len() + v.version.len() + typed(&v.value) + ITEM;
        let r = &self.record;
        let ids =
            r.actor.len() + r.thread_id.len() + r.checkpoint_ns.len() + 2 * r.checkpoint_id.len();
        let versions: usize = r
            .versions
            .iter()
            .map(|(c, v)| c.len() + v.len() + ITEM)
            .sum();
        let record =
            ids + versions + r.filterable.len() + typed(&r.checkpoint) + typed(&r.metadata);
        let values: usize = r.values.iter().chain(self.values.iter()).map(value).sum();
        let writes: usize = self
            .writes
            .iter()
            .flat_map(|w| &w.writes)
            .map(|w| w.channel.len() + typed(&w.value) + ITEM)
            .sum();
        let events: usize = self
            .record_events
            .iter()
            .chain(&self.write_events)
            .map(|e| e.len() + ITEM)
            .sum();
        ENTRY + record + values + writes + events + self.writes.len() * ENTRY
    }
}

struct Entries {
    lru: LruCache<Key, (Known, usize)>,
    bytes: usize,
    /// The newest checkpoint id of each namespace this process wrote or read.
    newest: HashMap<Scope, String>,
}

impl Entries {
    /// Drops the least recently used entries until within `max_bytes`.
    fn trim(&mut self, max_bytes: usize) {
        while self.bytes > max_bytes {
            let Some((gone, (_, size))) = self.lru.pop_lru() else {
                break;
            };
            self.bytes -= size;
            if self.newest.get(&gone.scope) == Some(&gone.checkpoint_id) {
                self.newest.remove(&gone.scope);
            }
        }
    }
}

pub struct KnownCheckpoints {
    entries: Mutex<Entries>,
    max_bytes: usize,
}

impl KnownCheckpoints {
    pub fn new(max_bytes: usize) -> Self {
        Self {
            entries: Mutex::new(Entries {
                lru: LruCache::unbounded(),
                bytes: 0,
                newest: HashMap::new(),
            }),
            max_bytes,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().expect("known checkpoints lock")
    }

    pub fn get(&self, key: &Key) -> Option<Known> {
        self.lock().lru.get(key).map(|(k, _)| k.clone())
    }

    /// Whether this process knows a checkpoint of this id, in any thread.
    pub fn contains_id(&self, checkpoint_id: &str) -> bool {
        self.lock()
            .lru
            .iter()
            .any(|(k, _)| k.checkpoint_id == checkpoint_id)
    }

    /// The newest checkpoint of a namespace, as far as this process knows.
    pub fn newest(&self, scope: &Scope) -> Option<Known> {
        let mut entries = self.lock();
        let id = entries.newest.get(scope)?.clone();
        let key = Key {
            scope: scope.clone(),
            checkpoint_id: id,
        };
        entries.lru.get(&key).map(|(k, _)| k.clone())
    }

    pub fn put(&self, key: Key, known: Known) {
        let size = known.bytes();
        let mut entries = self.lock();
        let newest = entries.newest.entry(key.scope.clone()).or_default();
        if *newest < key.checkpoint_id {
            *newest = key.checkpoint_id.clone();
        }
        if let Some((_, old)) = entries.lru.put(key, (known, size)) {
            entries.bytes -= old;
        }
        entries.bytes += size;
        entries.trim(self.max_bytes);
    }

    /// Adds pending writes this process stored for a known checkpoint.
    pub fn add_writes(&self, key: &Key, writes: WritesRecord, events: Vec<String>) {
        let mut entries = self.lock();
        let Some((known, size)) = entries.lru.get_mut(key) else {
            return;
        };
        known.writes.push(Arc::new(writes));
        known.write_events.extend(events);
        let grown = known.bytes();
        let old = std::mem::replace(size, grown);
        entries.bytes = entries.bytes - old + grown;
        // Writes grow an entry in place: a checkpoint that takes many of them
        // must not carry the cache past its bound.
        entries.trim(self.max_bytes);
    }

    /// Forgets every checkpoint of a thread.
    pub fn forget_thread(&self, thread_id: &str) {
        let mut entries = self.lock();
        let keys: Vec<_> = entries
            .lru
            .iter()
            .filter(|(k, _)| k.scope.thread_id == thread_id)
            .map(|(k, _)| k.clone())
            .collect();
        for key in keys {
            if let Some((_, size)) = entries.lru.pop(&key) {
                entries.bytes -= size;
            }
        }
        entries
            .newest
            .retain(|scope, _| scope.thread_id != thread_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known(id: &str, value_len: usize) -> (Key, Known) {
        let typed = |n: usize| Typed {
            kind: "json".into(),
            data: vec![b'x'; n].into(),
        };
        let record = CheckpointRecord {
            actor: "a".into(),
            thread_id: "t".into(),
            checkpoint_ns: "".into(),
            checkpoint_id: id.into(),
            parent_id: None,
            v: 4,
            checkpoint: typed(10),
            metadata: typed(10),
            filterable: "{}".into(),
            versions: vec![],
            values: vec![],
        };
        let values = vec![ChannelValue {
            channel: "c".into(),
            version: "1".into(),
            value: typed(value_len),
        }];
        let scope = Scope {
            actor: "a".into(),
            thread_id: "t".into(),
            checkpoint_ns: "".into(),
        };
        (
            Key {
                scope,
                checkpoint_id: id.into(),
            },
            Known {
                record: Arc::new(record),
                values: Arc::new(values),
                writes: vec![],
                synced_ms: 0,
                record_events: vec![],
                write_events: vec![],
            },
        )
    }

    #[test]
    fn stays_within_its_byte_bound_dropping_the_least_recent() {
        let cache = KnownCheckpoints::new(10_000);
        for i in 0..10 {
            let (key, k) = known(&format!("c{i}"), 3_000);
            cache.put(key, k);
        }
        assert!(cache.lock().bytes <= 10_000);
        assert!(cache.get(&known("c0", 0).0).is_none());
        assert!(cache.get(&known("c9", 0).0).is_some());
    }

    #[test]
    fn writes_added_to_one_checkpoint_stay_within_the_bound() {
        let cache = KnownCheckpoints::new(50_000);
        let (key, k) = known("c0", 10);
        cache.put(key.clone(), k);
        for i in 0..100 {
            let writes = WritesRecord {
                actor: "a".into(),
                thread_id: "t".into(),
                checkpoint_ns: "".into(),
                checkpoint_id: "c0".into(),
                task_id: format!("task{i}"),
                task_path: "".into(),
                seq: i,
                writes: vec![crate::record::WriteEntry {
                    idx: 0,
                    channel: "c".into(),
                    value: Typed {
                        kind: "json".into(),
                        data: vec![b'x'; 1_000].into(),
                    },
                }],
            };
            cache.add_writes(&key, writes, vec![format!("e{i}")]);
            assert!(cache.lock().bytes <= 50_000, "after {} writes", i + 1);
        }
        // 100 KB of writes cannot fit: the entry itself went.
        assert!(cache.get(&key).is_none());
    }

    #[test]
    fn remembers_the_newest_checkpoint_by_id() {
        let cache = KnownCheckpoints::new(1 << 20);
        for id in ["c2", "c3", "c1"] {
            let (key, k) = known(id, 1);
            cache.put(key, k);
        }
        let scope = known("c0", 0).0.scope;
        assert_eq!(cache.newest(&scope).unwrap().record.checkpoint_id, "c3");
        cache.forget_thread("t");
        assert!(cache.newest(&scope).is_none());
    }
}
