//! Where each recent checkpoint's channel values are, kept in process so
//! that a put can carry its parent's unchanged values into its own event
//! and the next read needs no older event. Bounded; values are shared
//! between entries, not copied.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use lru::LruCache;

use crate::record::ChannelValue;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TableKey {
    pub actor: String,
    pub thread_id: String,
    pub checkpoint_ns: String,
    pub checkpoint_id: String,
}

pub type Table = Arc<Vec<ChannelValue>>;

pub struct Tables {
    entries: Mutex<LruCache<TableKey, Table>>,
}

impl Tables {
    pub fn new(capacity: usize) -> Self {
        let capacity = NonZeroUsize::new(capacity.max(1)).expect("non-zero");
        Self {
            entries: Mutex::new(LruCache::new(capacity)),
        }
    }

    pub fn get(&self, key: &TableKey) -> Option<Table> {
        self.entries.lock().expect("tables lock").get(key).cloned()
    }

    pub fn put(&self, key: TableKey, table: Vec<ChannelValue>) {
        self.entries
            .lock()
            .expect("tables lock")
            .put(key, Arc::new(table));
    }

    /// Forgets every checkpoint of a thread.
    pub fn forget_thread(&self, thread_id: &str) {
        let mut entries = self.entries.lock().expect("tables lock");
        let keys: Vec<_> = entries
            .iter()
            .filter(|(k, _)| k.thread_id == thread_id)
            .map(|(k, _)| k.clone())
            .collect();
        keys.iter().for_each(|k| {
            entries.pop(k);
        });
    }
}
