//! The on-disk store: SQLite in WAL mode with `synchronous = FULL`, so an
//! acknowledged CreateEvent has reached the disk and survives a `kill -9`.
//!
//! One writer thread owns the write connection and commits whatever jobs are
//! queued in one transaction (group commit): concurrent writers share a sync
//! instead of paying one each. Every job runs in its own savepoint, and its
//! caller hears back only after the commit. Reads use a small pool of
//! read-only connections on the blocking thread pool.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::value::RawValue;
use tokio::sync::oneshot;

use super::{session_listed, Created, NewEvent, Page, Result, StoreError, EMPTY_SESSION_TTL_MS};
use crate::ids::new_event_id;
use crate::model::{Branch, SessionKey, SessionSummary, StoredEvent};
use crate::options::ListOrder;

const FILE_NAME: &str = "agentcore-memory-local.sqlite3";
/// Jobs committed together at most.
const MAX_BATCH: usize = 512;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
    memory_id TEXT NOT NULL, actor_id TEXT NOT NULL, session_id TEXT NOT NULL,
    event_id TEXT NOT NULL, timestamp_ms INTEGER NOT NULL, payload TEXT NOT NULL,
    branch_name TEXT, branch_root TEXT, metadata TEXT NOT NULL,
    PRIMARY KEY (memory_id, actor_id, session_id, event_id));
CREATE TABLE IF NOT EXISTS sessions (
    memory_id TEXT NOT NULL, actor_id TEXT NOT NULL, session_id TEXT NOT NULL,
    created_ms INTEGER NOT NULL, event_count INTEGER NOT NULL, emptied_ms INTEGER,
    PRIMARY KEY (memory_id, actor_id, session_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS client_tokens (
    memory_id TEXT NOT NULL, client_token TEXT NOT NULL, actor_id TEXT NOT NULL,
    session_id TEXT NOT NULL, event_id TEXT NOT NULL, fingerprint TEXT NOT NULL,
    PRIMARY KEY (memory_id, client_token)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS branch_roots (
    memory_id TEXT NOT NULL, actor_id TEXT NOT NULL, session_id TEXT NOT NULL,
    name TEXT NOT NULL, root_event_id TEXT NOT NULL,
    PRIMARY KEY (memory_id, actor_id, session_id, name)) WITHOUT ROWID;
";

const EVENT_COLUMNS: &str = "event_id, timestamp_ms, payload, branch_name, branch_root, metadata";

/// Work for the writer thread: runs inside the open transaction and returns
/// what to do once the commit succeeded or failed.
type Job = Box<dyn FnOnce(&Connection) -> Box<dyn FnOnce(Option<String>) + Send> + Send>;

pub struct SqliteStore {
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    writer: Mutex<Option<JoinHandle<()>>>,
    readers: Arc<ReadPool>,
}

struct ReadPool {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl SqliteStore {
    pub fn open(dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|e| {
            StoreError(format!(
                "cannot create data directory {}: {e}",
                dir.display()
            ))
        })?;
        let path = dir.join(FILE_NAME);
        let conn = Connection::open(&path)?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 10000;",
        )?;
        conn.execute_batch(SCHEMA)?;
        let (jobs, queue) = mpsc::channel::<Job>();
        let writer = std::thread::Builder::new()
            .name("agentcore-memory-local-writer".into())
            .spawn(move || write_loop(conn, queue))
            .map_err(|e| StoreError(format!("cannot start the writer thread: {e}")))?;
        Ok(Self {
            jobs: Mutex::new(Some(jobs)),
            writer: Mutex::new(Some(writer)),
            readers: Arc::new(ReadPool {
                path,
                idle: Mutex::new(Vec::new()),
            }),
        })
    }

    /// Runs `f` in the writer's transaction; resolves after the commit.
    async fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T> {
        let (done, result) = oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let outcome = in_savepoint(conn, f);
            Box::new(move |commit_error| {
                let _ = done.send(match commit_error {
                    Some(e) => Err(StoreError(format!("commit failed: {e}"))),
                    None => outcome.map_err(StoreError::from),
                });
            })
        });
        let sent = self
            .jobs
            .lock()
            .expect("jobs lock")
            .as_ref()
            .map(|jobs| jobs.send(job));
        if !matches!(sent, Some(Ok(()))) {
            return Err(StoreError("the store is closed".into()));
        }
        result
            .await
            .map_err(|_| StoreError("the writer stopped".into()))?
    }

    async fn read<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T> {
        let pool = self.readers.clone();
        tokio::task::spawn_blocking(move || pool.with(f))
            .await
            .map_err(|e| StoreError(format!("read task failed: {e}")))?
    }

    pub async fn create(&self, new: NewEvent, now_ms: i64) -> Result<Created> {
        self.write(move |conn| insert_event(conn, new, now_ms))
            .await
    }

    pub async fn get(&self, key: &SessionKey, event_id: &str) -> Result<Option<Arc<StoredEvent>>> {
        let (key, event_id) = (key.clone(), event_id.to_string());
        self.read(move |conn| select_event(conn, &key, &event_id))
            .await
    }

    pub async fn delete(&self, key: &SessionKey, event_id: &str, now_ms: i64) -> Result<bool> {
        let (key, event_id) = (key.clone(), event_id.to_string());
        self.write(move |conn| delete_event(conn, &key, &event_id, now_ms))
            .await
    }

    pub async fn scan(
        &self,
        key: &SessionKey,
        cursor: Option<&str>,
        limit: usize,
        with_payload: bool,
        order: ListOrder,
    ) -> Result<Page<Arc<StoredEvent>>> {
        let (key, cursor) = (key.clone(), cursor.map(str::to_string));
        self.read(move |conn| {
            // Without a cursor: every eventId (digits first) sorts below "A"
            // and above "".
            let (past, direction, start) = match order {
                ListOrder::NewestFirst => ("<", "DESC", "A"),
                ListOrder::OldestFirst => (">", "ASC", ""),
            };
            let from = cursor.as_deref().unwrap_or(start);
            let payload = if with_payload { "payload" } else { "'[]'" };
            let sql = format!(
                "SELECT event_id, timestamp_ms, {payload}, branch_name, branch_root, metadata FROM events
                 WHERE memory_id = ?1 AND actor_id = ?2 AND session_id = ?3 AND event_id {past} ?4
                 ORDER BY event_id {direction} LIMIT ?5"
            );
            let mut stmt = conn.prepare_cached(&sql)?;
            let rows = stmt.query_map(
                params![key.memory, key.actor, key.session, from, (limit + 1) as i64],
                event_from_row,
            )?;
            let items = rows.map(|r| r.map(Arc::new)).collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(Page::cut(items, limit))
        })
        .await
    }

    pub async fn sessions(
        &self,
        memory: &str,
        actor: &str,
        after: Option<&str>,
        limit: usize,
        has_events_only: bool,
        now_ms: i64,
    ) -> Result<Page<SessionSummary>> {
        let (memory, actor, after) = (
            memory.to_string(),
            actor.to_string(),
            after.unwrap_or("").to_string(),
        );
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT session_id, created_ms, event_count, emptied_ms FROM sessions
                 WHERE memory_id = ?1 AND actor_id = ?2 AND session_id > ?3
                 AND (event_count > 0 OR emptied_ms > ?4) ORDER BY session_id",
            )?;
            let rows = stmt.query_map(
                params![memory, actor, after, now_ms - EMPTY_SESSION_TTL_MS],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, Option<i64>>(3)?,
                    ))
                },
            )?;
            let mut items = Vec::new();
            for row in rows {
                let (session_id, created_ms, count, emptied_ms) = row?;
                if session_listed(count as u64, emptied_ms, has_events_only, now_ms) {
                    items.push(SessionSummary {
                        actor_id: actor.clone(),
                        session_id,
                        created_ms,
                    });
                    if items.len() > limit {
                        break;
                    }
                }
            }
            Ok(Page::cut(items, limit))
        })
        .await
    }

    pub async fn actors(
        &self,
        memory: &str,
        after: Option<&str>,
        limit: usize,
        now_ms: i64,
    ) -> Result<Page<String>> {
        let (memory, after) = (memory.to_string(), after.unwrap_or("").to_string());
        self.read(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT DISTINCT actor_id FROM sessions
                 WHERE memory_id = ?1 AND actor_id > ?2 AND (event_count > 0 OR emptied_ms > ?3)
                 ORDER BY actor_id LIMIT ?4",
            )?;
            let rows = stmt.query_map(
                params![
                    memory,
                    after,
                    now_ms - EMPTY_SESSION_TTL_MS,
                    (limit + 1) as i64
                ],
                |r| r.get::<_, String>(0),
            )?;
            Ok(Page::cut(rows.collect::<rusqlite::Result<_>>()?, limit))
        })
        .await
    }

    pub async fn branch_root(&self, key: &SessionKey, name: &str) -> Result<Option<String>> {
        let (key, name) = (key.clone(), name.to_string());
        self.read(move |conn| {
            conn.query_row(
                "SELECT root_event_id FROM branch_roots
                 WHERE memory_id = ?1 AND actor_id = ?2 AND session_id = ?3 AND name = ?4",
                params![key.memory, key.actor, key.session, name],
                |r| r.get(0),
            )
            .optional()
        })
        .await
    }

    /// Lets the writer finish what is queued, then stops it.
    pub async fn close(&self) {
        self.jobs.lock().expect("jobs lock").take();
        let writer = self.writer.lock().expect("writer lock").take();
        if let Some(writer) = writer {
            let _ = tokio::task::spawn_blocking(move || writer.join()).await;
        }
    }
}

impl ReadPool {
    fn with<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T> {
        let idle = self.idle.lock().expect("read pool lock").pop();
        let conn = match idle {
            Some(conn) => conn,
            None => {
                let conn = Connection::open(&self.path)?;
                conn.execute_batch("PRAGMA query_only = 1; PRAGMA busy_timeout = 10000;")?;
                conn
            }
        };
        let result = f(&conn);
        self.idle.lock().expect("read pool lock").push(conn);
        result.map_err(StoreError::from)
    }
}

fn write_loop(conn: Connection, queue: mpsc::Receiver<Job>) {
    while let Ok(first) = queue.recv() {
        let mut jobs = vec![first];
        jobs.extend(queue.try_iter().take(MAX_BATCH - 1));
        let finish: Vec<_> = match conn.execute_batch("BEGIN IMMEDIATE") {
            Ok(()) => jobs.into_iter().map(|job| job(&conn)).collect(),
            Err(e) => {
                let error = e.to_string();
                drop(jobs); // their callers hear "the writer stopped"
                log_write_error(&error);
                continue;
            }
        };
        let commit_error = conn.execute_batch("COMMIT").err().map(|e| e.to_string());
        if commit_error.is_some() {
            let _ = conn.execute_batch("ROLLBACK");
        }
        finish.into_iter().for_each(|f| f(commit_error.clone()));
    }
}

fn log_write_error(error: &str) {
    eprintln!("agentcore-memory-local: cannot begin a write transaction: {error}");
}

fn in_savepoint<T>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.execute_batch("SAVEPOINT job")?;
    match f(conn) {
        Ok(value) => conn.execute_batch("RELEASE job").map(|_| value),
        Err(e) => {
            conn.execute_batch("ROLLBACK TO job; RELEASE job")?;
            Err(e)
        }
    }
}

fn insert_event(conn: &Connection, new: NewEvent, now_ms: i64) -> rusqlite::Result<Created> {
    let key = &new.key;
    if let Some(token) = &new.client_token {
        if let Some(outcome) = replay(conn, key, token, &new.fingerprint)? {
            return Ok(outcome);
        }
    }
    let metadata = serde_json::to_string(&new.metadata).expect("metadata serialises");
    let (branch_name, branch_root) = match &new.branch {
        Some(b) => (Some(b.name.as_str()), b.root_event_id.as_deref()),
        None => (None, None),
    };
    let mut insert = conn.prepare_cached(
        "INSERT OR IGNORE INTO events (memory_id, actor_id, session_id, event_id, timestamp_ms, payload, branch_name, branch_root, metadata)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    let event_id = loop {
        let id = new_event_id(new.timestamp_ms);
        let row = params![
            key.memory,
            key.actor,
            key.session,
            id,
            new.timestamp_ms,
            new.payload.get(),
            branch_name,
            branch_root,
            metadata
        ];
        if insert.execute(row)? == 1 {
            break id;
        }
    };
    conn.prepare_cached(
        "INSERT INTO sessions (memory_id, actor_id, session_id, created_ms, event_count, emptied_ms)
         VALUES (?1, ?2, ?3, ?4, 1, NULL)
         ON CONFLICT DO UPDATE SET event_count = event_count + 1, emptied_ms = NULL",
    )?
    .execute(params![key.memory, key.actor, key.session, now_ms])?;
    if let (Some(name), Some(root)) = (branch_name, branch_root) {
        conn.prepare_cached("INSERT OR IGNORE INTO branch_roots VALUES (?1, ?2, ?3, ?4, ?5)")?
            .execute(params![key.memory, key.actor, key.session, name, root])?;
    }
    if let Some(token) = &new.client_token {
        conn.prepare_cached(
            "INSERT OR REPLACE INTO client_tokens VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![
            key.memory,
            token,
            key.actor,
            key.session,
            event_id,
            new.fingerprint
        ])?;
    }
    Ok(Created::New(Arc::new(new.stored(event_id))))
}

/// The outcome for a clientToken seen before, if its event still exists.
fn replay(
    conn: &Connection,
    key: &SessionKey,
    token: &str,
    fingerprint: &str,
) -> rusqlite::Result<Option<Created>> {
    let seen = conn
        .prepare_cached(
            "SELECT actor_id, session_id, event_id, fingerprint FROM client_tokens WHERE memory_id = ?1 AND client_token = ?2",
        )?
        .query_row(params![key.memory, token], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, String>(3)?))
        })
        .optional()?;
    let Some((actor, session, event_id, seen_fingerprint)) = seen else {
        return Ok(None);
    };
    if seen_fingerprint != fingerprint {
        return Ok(Some(Created::Mismatch));
    }
    let earlier = SessionKey {
        memory: key.memory.clone(),
        actor,
        session,
    };
    Ok(select_event(conn, &earlier, &event_id)?.map(Created::Replayed))
}

fn select_event(
    conn: &Connection,
    key: &SessionKey,
    event_id: &str,
) -> rusqlite::Result<Option<Arc<StoredEvent>>> {
    let sql = format!(
        "SELECT {EVENT_COLUMNS} FROM events WHERE memory_id = ?1 AND actor_id = ?2 AND session_id = ?3 AND event_id = ?4"
    );
    conn.prepare_cached(&sql)?
        .query_row(
            params![key.memory, key.actor, key.session, event_id],
            event_from_row,
        )
        .optional()
        .map(|e| e.map(Arc::new))
}

fn delete_event(
    conn: &Connection,
    key: &SessionKey,
    event_id: &str,
    now_ms: i64,
) -> rusqlite::Result<bool> {
    let deleted = conn
        .prepare_cached("DELETE FROM events WHERE memory_id = ?1 AND actor_id = ?2 AND session_id = ?3 AND event_id = ?4")?
        .execute(params![key.memory, key.actor, key.session, event_id])?;
    if deleted == 1 {
        conn.prepare_cached(
            "UPDATE sessions SET event_count = event_count - 1,
             emptied_ms = CASE WHEN event_count = 1 THEN ?4 ELSE emptied_ms END
             WHERE memory_id = ?1 AND actor_id = ?2 AND session_id = ?3",
        )?
        .execute(params![key.memory, key.actor, key.session, now_ms])?;
    }
    Ok(deleted == 1)
}

fn event_from_row(row: &Row<'_>) -> rusqlite::Result<StoredEvent> {
    let corrupt = |i: usize, e: serde_json::Error| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e))
    };
    let payload: String = row.get(2)?;
    let metadata: String = row.get(5)?;
    let branch = row.get::<_, Option<String>>(3)?.map(|name| Branch {
        name,
        root_event_id: row.get(4).ok().flatten(),
    });
    Ok(StoredEvent {
        event_id: row.get(0)?,
        timestamp_ms: row.get(1)?,
        payload: RawValue::from_string(payload).map_err(|e| corrupt(2, e))?,
        branch,
        metadata: serde_json::from_str::<BTreeMap<String, String>>(&metadata)
            .map_err(|e| corrupt(5, e))?,
    })
}
