//! Thread maintenance: copy a thread, prune old checkpoints, delete runs.
//!
//! Each reads whole sessions (one ListEvents per 100 events), then writes
//! or deletes with bounded parallelism and the client's retries. Each is
//! idempotent and ordered so that a crash half-way leaves every thread
//! readable: copies go oldest first under deterministic client tokens, and
//! a pruned or deleted checkpoint's surviving descendants get their values
//! written inline before any event they read values from is deleted.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::chunks::Assembler;
use crate::client::TOKEN_REUSED;
use crate::error::{Error, Result};
use crate::ids::{self, uuid6_millis};
use crate::log::{decode_item, event_ms};
use crate::record::{self, ChannelValue, CheckpointRecord, Record, COPY_KEY};
use crate::saver::{check_id, place_of, Place, Saver};

/// What `prune` does with the checkpoints it does not keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PruneStrategy {
    /// Keep the newest `keep_last` checkpoints of each namespace.
    KeepLatest,
    /// Delete the threads outright.
    Delete,
}

/// A record read back from a session, with the events that hold it.
struct Stored {
    record: Record,
    events: Vec<String>,
    at_ms: i64,
}

/// Every record of a session that belongs to `thread_id`, oldest first.
async fn read_session(
    saver: &Saver,
    actor_id: &str,
    session: &str,
    thread_id: Option<&str>,
) -> Result<Vec<Stored>> {
    let mut assembler = Assembler::default();
    let mut stored = Vec::new();
    for event in saver.client.all_events(actor_id, session, true).await? {
        let at_ms = event_ms(&event);
        for item in event.payload() {
            let Some((Ok(record), events)) = decode_item(&mut assembler, item, event.event_id())
            else {
                continue;
            };
            if thread_id.is_none_or(|t| record.place().0 == t) {
                stored.push(Stored {
                    record,
                    events,
                    at_ms,
                });
            }
        }
    }
    stored.sort_by(|a, b| (a.at_ms, &a.events).cmp(&(b.at_ms, &b.events)));
    Ok(stored)
}

impl Saver {
    /// Copies every checkpoint and write of every namespace of `source`
    /// to `target`, which must have none of its own. Returns how many
    /// records it copied.
    pub async fn copy_thread(
        &self,
        actor: Option<&str>,
        source: &str,
        target: &str,
    ) -> Result<usize> {
        check_id("sourceThreadId", source)?;
        check_id("targetThreadId", target)?;
        if source == target {
            return Err(Error::invalid(
                "targetThreadId",
                "must differ from sourceThreadId",
            ));
        }
        let actor = actor.unwrap_or(&self.default_actor).to_string();
        let actor_id = ids::actor_id(&actor);
        // The source's thread part marks its copies, and finds its sessions.
        let source_part = ids::thread_part(source);
        let sessions = self.client.list_sessions(&actor_id).await?;
        self.refuse_foreign_target(&actor_id, &sessions, target, &source_part)
            .await?;
        let mut copied = 0;
        for session in sessions
            .iter()
            .filter(|s| ids::session_of_thread(s, &source_part))
        {
            for stored in read_session(self, &actor_id, session, Some(source)).await? {
                let mut record = stored.record;
                let ns = match &mut record {
                    Record::Checkpoint(c) => {
                        c.thread_id = target.to_string();
                        c.checkpoint_ns.clone()
                    }
                    Record::Writes(w) => {
                        w.thread_id = target.to_string();
                        w.checkpoint_ns.clone()
                    }
                };
                let place = Place {
                    actor: Some(actor.clone()),
                    thread_id: target.to_string(),
                    checkpoint_ns: ns,
                };
                // The source event's id and time make the copy's client
                // token: running the copy again writes nothing twice.
                let identity = ["copy", stored.events[0].as_str()];
                let copy = self
                    .create(
                        &actor,
                        &place,
                        stored.at_ms,
                        &identity,
                        &record,
                        Some(&source_part),
                    )
                    .await;
                done_before(copy)?;
                copied += 1;
            }
        }
        self.known.forget_thread(target);
        Ok(copied)
    }

    /// Fails if the target thread holds events of this saver that are not
    /// an earlier, interrupted copy of the same source.
    async fn refuse_foreign_target(
        &self,
        actor_id: &str,
        sessions: &[String],
        target: &str,
        mark: &str,
    ) -> Result<()> {
        let target_part = ids::thread_part(target);
        for session in sessions
            .iter()
            .filter(|s| ids::session_of_thread(s, &target_part))
        {
            let events = self.client.all_events(actor_id, session, false).await?;
            let foreign = events.iter().filter(|e| record::is_ours(e)).any(|e| {
                let copy = e.metadata().and_then(|m| m.get(COPY_KEY));
                copy.and_then(|v| v.as_string_value().ok())
                    .map(String::as_str)
                    != Some(mark)
            });
            if foreign {
                return Err(Error::invalid(
                    "targetThreadId",
                    format!("names thread '{target}', which already has checkpoints"),
                ));
            }
        }
        Ok(())
    }

    /// Keeps the newest `keep_last` checkpoints of each namespace of each
    /// thread, with their writes and the values they read; deletes the
    /// rest. Returns how many events it deleted.
    pub async fn prune(
        &self,
        thread_ids: &[String],
        keep_last: usize,
        strategy: PruneStrategy,
    ) -> Result<usize> {
        if strategy == PruneStrategy::KeepLatest && keep_last == 0 {
            return Err(Error::invalid("keepLast", "must be at least 1"));
        }
        let mut deleted = 0;
        for thread in thread_ids {
            check_id("threadIds", thread)?;
            if strategy == PruneStrategy::Delete {
                deleted += self.delete_thread_counted(thread).await?;
                continue;
            }
            for (actor_id, session) in self.thread_sessions(thread).await? {
                let stored = read_session(self, &actor_id, &session, Some(thread)).await?;
                let mut ids: Vec<&str> = stored
                    .iter()
                    .filter_map(|s| match &s.record {
                        Record::Checkpoint(c) => Some(c.checkpoint_id.as_str()),
                        Record::Writes(_) => None,
                    })
                    .collect();
                ids.sort_unstable_by(|a, b| b.cmp(a));
                ids.dedup();
                let doomed: HashSet<String> =
                    ids.iter().skip(keep_last).map(|s| s.to_string()).collect();
                deleted += self.remove(&actor_id, &session, stored, &doomed).await?;
            }
            self.known.forget_thread(thread);
        }
        Ok(deleted)
    }

    /// Deletes the checkpoints whose metadata `run_id` is one of `run_ids`,
    /// with their writes, in every thread. Returns how many events it
    /// deleted.
    pub async fn delete_for_runs(&self, run_ids: &[String]) -> Result<usize> {
        let runs: HashSet<&str> = run_ids.iter().map(String::as_str).collect();
        let mut deleted = 0;
        for (actor_id, session) in self.client.all_sessions().await? {
            let stored = read_session(self, &actor_id, &session, None).await?;
            let doomed: HashSet<String> = stored
                .iter()
                .filter_map(|s| match &s.record {
                    Record::Checkpoint(c) if runs.contains(run_of(c).as_str()) => {
                        Some(c.checkpoint_id.clone())
                    }
                    _ => None,
                })
                .collect();
            if doomed.is_empty() {
                continue;
            }
            let threads: HashSet<&str> = stored.iter().map(|s| s.record.place().0).collect();
            threads.iter().for_each(|t| self.known.forget_thread(t));
            deleted += self.remove(&actor_id, &session, stored, &doomed).await?;
        }
        Ok(deleted)
    }

    /// Deletes the doomed checkpoints of a session and their writes. First,
    /// each survivor that reads a value only a doomed checkpoint holds is
    /// written again with all its values inline; then its old events go too.
    async fn remove(
        &self,
        actor_id: &str,
        session: &str,
        stored: Vec<Stored>,
        doomed: &HashSet<String>,
    ) -> Result<usize> {
        if doomed.is_empty() {
            return Ok(0);
        }
        let mut gone: Vec<String> = Vec::new();
        let holders = value_holders(&stored);
        for s in &stored {
            let id = s.record.checkpoint_id();
            if doomed.contains(id) {
                gone.extend(s.events.iter().cloned());
                continue;
            }
            let Record::Checkpoint(c) = &s.record else {
                continue;
            };
            if let Some(inline) = inlined(c, &holders, doomed) {
                let place = place_of(c);
                let identity = ["inline", s.events[0].as_str()];
                let record = Record::Checkpoint(inline);
                // Its id's time, not now: a second run makes the same token.
                let at = uuid6_millis(&c.checkpoint_id).unwrap_or(s.at_ms);
                done_before(
                    self.create(&c.actor, &place, at, &identity, &record, None)
                        .await,
                )?;
                gone.extend(s.events.iter().cloned());
            }
        }
        self.delete_events(actor_id, session, gone).await
    }
}

/// A write this task made before, when it ran and was interrupted, counts
/// as done: its token is deterministic, so only that can reuse it.
fn done_before(created: Result<Vec<String>>) -> Result<()> {
    match created {
        Err(e) if e.code == TOKEN_REUSED => Ok(()),
        other => other.map(|_| ()),
    }
}

/// For each (channel, version), the checkpoints that hold its value inline.
fn value_holders(stored: &[Stored]) -> HashMap<(String, String), (ChannelValue, Vec<String>)> {
    let mut holders: HashMap<(String, String), (ChannelValue, Vec<String>)> = HashMap::new();
    for s in stored {
        let Record::Checkpoint(c) = &s.record else {
            continue;
        };
        for v in &c.values {
            let key = (v.channel.clone(), v.version.clone());
            let entry = holders
                .entry(key)
                .or_insert_with(|| (v.clone(), Vec::new()));
            entry.1.push(c.checkpoint_id.clone());
        }
    }
    holders
}

/// The checkpoint with every value inline, if it reads one that only doomed
/// checkpoints hold; `None` if it can stay as it is.
fn inlined(
    c: &CheckpointRecord,
    holders: &HashMap<(String, String), (ChannelValue, Vec<String>)>,
    doomed: &HashSet<String>,
) -> Option<CheckpointRecord> {
    let inline: BTreeMap<(&str, &str), ()> = c
        .values
        .iter()
        .map(|v| ((v.channel.as_str(), v.version.as_str()), ()))
        .collect();
    let mut needs = false;
    let mut values = c.values.clone();
    for (channel, version) in &c.versions {
        if inline.contains_key(&(channel.as_str(), version.as_str())) {
            continue;
        }
        let Some((value, by)) = holders.get(&(channel.clone(), version.clone())) else {
            continue;
        };
        needs |= by.iter().all(|h| doomed.contains(h));
        values.push(value.clone());
    }
    needs.then(|| CheckpointRecord {
        values,
        ..c.clone()
    })
}

/// The `run_id` a checkpoint's metadata names, if any.
fn run_of(c: &CheckpointRecord) -> String {
    serde_json::from_str::<serde_json::Value>(&c.filterable)
        .ok()
        .and_then(|f| f.get("run_id").and_then(|r| r.as_str()).map(str::to_string))
        .unwrap_or_default()
}
