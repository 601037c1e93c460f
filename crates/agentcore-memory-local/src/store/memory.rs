//! The in-memory store: ordered maps under one lock. Each operation holds
//! the lock for a map lookup or a short range scan only.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;
use std::sync::{Arc, Mutex, MutexGuard};

use super::{session_listed, Created, NewEvent, Page};
use crate::ids::new_event_id;
use crate::model::{SessionKey, SessionSummary, StoredEvent};
use crate::options::ListOrder;

#[derive(Default)]
pub struct MemoryStore {
    memories: Mutex<HashMap<String, Memory>>,
}

#[derive(Default)]
struct Memory {
    actors: BTreeMap<String, BTreeMap<String, Session>>,
    tokens: HashMap<String, TokenEntry>,
}

struct Session {
    created_ms: i64,
    emptied_ms: Option<i64>,
    events: BTreeMap<String, Arc<StoredEvent>>,
    branch_roots: HashMap<String, String>,
}

struct TokenEntry {
    key: SessionKey,
    event_id: String,
    fingerprint: String,
}

impl Memory {
    fn session(&self, key: &SessionKey) -> Option<&Session> {
        self.actors.get(&key.actor)?.get(&key.session)
    }

    fn session_mut(&mut self, key: &SessionKey) -> Option<&mut Session> {
        self.actors.get_mut(&key.actor)?.get_mut(&key.session)
    }

    /// The event an earlier request with this token made, if it still exists.
    fn replay(&self, token: &str, fingerprint: &str) -> Option<Created> {
        let entry = self.tokens.get(token)?;
        if entry.fingerprint != fingerprint {
            return Some(Created::Mismatch);
        }
        let event = self.session(&entry.key)?.events.get(&entry.event_id)?;
        Some(Created::Replayed(event.clone()))
    }
}

impl MemoryStore {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Memory>> {
        self.memories.lock().expect("memory store lock")
    }

    pub fn create(&self, new: NewEvent, now_ms: i64) -> Created {
        let mut memories = self.lock();
        let memory = memories.entry(new.key.memory.clone()).or_default();
        if let Some(token) = &new.client_token {
            if let Some(outcome) = memory.replay(token, &new.fingerprint) {
                return outcome;
            }
        }
        let session = memory
            .actors
            .entry(new.key.actor.clone())
            .or_default()
            .entry(new.key.session.clone())
            .or_insert_with(|| Session {
                created_ms: now_ms,
                emptied_ms: None,
                events: BTreeMap::new(),
                branch_roots: HashMap::new(),
            });
        let event_id = loop {
            let id = new_event_id(new.timestamp_ms);
            if !session.events.contains_key(&id) {
                break id;
            }
        };
        let event = Arc::new(new.stored(event_id.clone()));
        session.events.insert(event_id.clone(), event.clone());
        session.emptied_ms = None;
        if let Some(branch) = &new.branch {
            if let Some(root) = &branch.root_event_id {
                session
                    .branch_roots
                    .entry(branch.name.clone())
                    .or_insert_with(|| root.clone());
            }
        }
        if let Some(token) = new.client_token {
            let entry = TokenEntry {
                key: new.key,
                event_id,
                fingerprint: new.fingerprint,
            };
            memory.tokens.insert(token, entry);
        }
        Created::New(event)
    }

    pub fn get(&self, key: &SessionKey, event_id: &str) -> Option<Arc<StoredEvent>> {
        self.lock()
            .get(&key.memory)?
            .session(key)?
            .events
            .get(event_id)
            .cloned()
    }

    pub fn delete(&self, key: &SessionKey, event_id: &str, now_ms: i64) -> bool {
        let mut memories = self.lock();
        let Some(session) = memories
            .get_mut(&key.memory)
            .and_then(|m| m.session_mut(key))
        else {
            return false;
        };
        let removed = session.events.remove(event_id).is_some();
        if removed && session.events.is_empty() {
            session.emptied_ms = Some(now_ms);
        }
        removed
    }

    pub fn scan(
        &self,
        key: &SessionKey,
        cursor: Option<&str>,
        limit: usize,
        order: ListOrder,
    ) -> Page<Arc<StoredEvent>> {
        let memories = self.lock();
        let Some(session) = memories.get(&key.memory).and_then(|m| m.session(key)) else {
            return Page::empty();
        };
        let past = cursor.map_or(Bound::Unbounded, Bound::Excluded);
        let events = &session.events;
        let items = match order {
            ListOrder::NewestFirst => events
                .range::<str, _>((Bound::Unbounded, past))
                .rev()
                .take(limit + 1)
                .map(|(_, e)| e.clone())
                .collect(),
            ListOrder::OldestFirst => events
                .range::<str, _>((past, Bound::Unbounded))
                .take(limit + 1)
                .map(|(_, e)| e.clone())
                .collect(),
        };
        Page::cut(items, limit)
    }

    pub fn sessions(
        &self,
        memory: &str,
        actor: &str,
        after: Option<&str>,
        limit: usize,
        has_events_only: bool,
        now_ms: i64,
    ) -> Page<SessionSummary> {
        let memories = self.lock();
        let Some(sessions) = memories.get(memory).and_then(|m| m.actors.get(actor)) else {
            return Page::empty();
        };
        let lower = after.map_or(Bound::Unbounded, Bound::Excluded);
        let items = sessions
            .range::<str, _>((lower, Bound::Unbounded))
            .filter(|(_, s)| {
                session_listed(s.events.len() as u64, s.emptied_ms, has_events_only, now_ms)
            })
            .take(limit + 1)
            .map(|(id, s)| SessionSummary {
                actor_id: actor.to_string(),
                session_id: id.clone(),
                created_ms: s.created_ms,
            })
            .collect();
        Page::cut(items, limit)
    }

    pub fn actors(
        &self,
        memory: &str,
        after: Option<&str>,
        limit: usize,
        now_ms: i64,
    ) -> Page<String> {
        let memories = self.lock();
        let Some(memory) = memories.get(memory) else {
            return Page::empty();
        };
        let lower = after.map_or(Bound::Unbounded, Bound::Excluded);
        let items = memory
            .actors
            .range::<str, _>((lower, Bound::Unbounded))
            .filter(|(_, sessions)| {
                sessions
                    .values()
                    .any(|s| session_listed(s.events.len() as u64, s.emptied_ms, false, now_ms))
            })
            .take(limit + 1)
            .map(|(actor, _)| actor.clone())
            .collect();
        Page::cut(items, limit)
    }

    pub fn branch_root(&self, key: &SessionKey, name: &str) -> Option<String> {
        self.lock()
            .get(&key.memory)?
            .session(key)?
            .branch_roots
            .get(name)
            .cloned()
    }
}
