//! `NativeSaver`: the storage half of `AgentCoreSaver`, converted to and
//! from JavaScript values. The JS class owns serde; values cross as the
//! serializer's `[type, bytes]` pairs.

use std::sync::Arc;
use std::time::Duration;

use agentcore_checkpoint as core;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::completions::Completions;

#[napi(object)]
pub struct NativeCredentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

#[napi(object)]
pub struct NativeSaverOptions {
    pub memory_id: String,
    pub actor_id: Option<String>,
    pub region: Option<String>,
    pub endpoint: Option<String>,
    pub credentials: Option<NativeCredentials>,
    pub max_attempts: Option<u32>,
    pub connect_timeout_ms: Option<u32>,
    pub request_timeout_ms: Option<u32>,
    pub operation_timeout_ms: Option<u32>,
    pub max_event_bytes: Option<u32>,
    pub compress: Option<bool>,
    pub cache: Option<bool>,
    pub shallow: Option<bool>,
}

/// A serialized value: the serializer's type tag and bytes.
#[napi(object)]
pub struct TypedValue {
    #[napi(js_name = "type")]
    pub kind: String,
    pub data: Buffer,
}

#[napi(object)]
pub struct NativePlace {
    pub actor_id: Option<String>,
    pub thread_id: String,
    pub checkpoint_ns: String,
}

#[napi(object)]
pub struct ChannelVersion {
    pub channel: String,
    pub version: String,
}

#[napi(object)]
pub struct NativeChannelValue {
    pub channel: String,
    pub version: String,
    pub value: TypedValue,
}

#[napi(object)]
pub struct NativePut {
    pub place: NativePlace,
    pub checkpoint_id: String,
    pub parent_id: Option<String>,
    pub v: i64,
    pub checkpoint: TypedValue,
    pub metadata: TypedValue,
    /// The metadata's primitive fields as JSON, for `list` filters.
    pub filterable: String,
    pub versions: Vec<ChannelVersion>,
    pub new_values: Vec<NativeChannelValue>,
}

#[napi(object)]
pub struct NativeWrite {
    pub idx: i64,
    pub channel: String,
    pub value: TypedValue,
}

#[napi(object)]
pub struct NativePutWrites {
    pub place: NativePlace,
    pub checkpoint_id: String,
    pub task_id: String,
    pub task_path: String,
    pub writes: Vec<NativeWrite>,
}

#[napi(object)]
pub struct NativePendingWrite {
    pub task_id: String,
    pub channel: String,
    pub value: TypedValue,
    pub task_path: String,
}

#[napi(object)]
pub struct NativeTuple {
    pub actor_id: String,
    pub thread_id: String,
    pub checkpoint_ns: String,
    pub checkpoint_id: String,
    pub parent_id: Option<String>,
    pub checkpoint: TypedValue,
    pub metadata: TypedValue,
    pub values: Vec<NativeChannelValue>,
    pub pending_writes: Vec<NativePendingWrite>,
    pub pending_sends: Option<Vec<TypedValue>>,
}

/// A read's result and the events it skipped as not the saver's.
#[napi(object)]
pub struct NativeRead {
    pub tuple: Option<NativeTuple>,
    pub skipped: Vec<String>,
}

#[napi(object)]
pub struct NativeListQuery {
    pub actor_id: Option<String>,
    pub thread_id: Option<String>,
    pub checkpoint_ns: Option<String>,
    pub checkpoint_id: Option<String>,
    pub before: Option<String>,
    pub limit: Option<u32>,
    /// JSON object of metadata fields to match, primitives only.
    pub filter: Option<String>,
}

#[napi(object)]
pub struct NativeChannelHistory {
    pub channel: String,
    pub seed: Option<TypedValue>,
    pub writes: Vec<NativePendingWrite>,
}

#[napi(object)]
pub struct NativeHistoryRead {
    pub channels: Vec<NativeChannelHistory>,
    pub skipped: Vec<String>,
}

#[napi]
pub struct NativeSaver {
    inner: Arc<core::Saver>,
    completions: Completions,
}

#[napi]
impl NativeSaver {
    /// `settle(id, error)` is called on the JS thread when the write that
    /// `put` or `putWrites` started under `id` completes.
    #[napi(constructor)]
    pub fn new(
        options: NativeSaverOptions,
        settle: Function<FnArgs<(u32, Option<String>)>, ()>,
    ) -> Result<Self> {
        let ms = |v: Option<u32>, default: u64| Duration::from_millis(v.map_or(default, u64::from));
        let client = core::ClientOptions {
            memory_id: options.memory_id,
            region: options.region,
            endpoint: options.endpoint,
            credentials: options.credentials.map(|c| core::StaticCredentials {
                access_key_id: c.access_key_id,
                secret_access_key: c.secret_access_key,
                session_token: c.session_token,
            }),
            max_attempts: options.max_attempts.unwrap_or(5),
            connect_timeout: ms(options.connect_timeout_ms, 3_000),
            attempt_timeout: ms(options.request_timeout_ms, 20_000),
            operation_timeout: ms(options.operation_timeout_ms, 60_000),
        };
        let actor = options.actor_id.unwrap_or_else(|| "langgraph".into());
        let mut saver = core::SaverOptions::new(client, actor);
        if let Some(n) = options.max_event_bytes {
            saver.max_event_bytes = n as usize;
        }
        saver.compress = options.compress.unwrap_or(true);
        saver.cache = options.cache.unwrap_or(false);
        saver.shallow = options.shallow.unwrap_or(false);
        let saver = core::Saver::new(saver).map_err(to_js)?;
        Ok(Self {
            inner: Arc::new(saver),
            completions: Completions::new(settle)?,
        })
    }

    /// The actor used when a config names none.
    #[napi(getter)]
    pub fn default_actor_id(&self) -> String {
        self.inner.default_actor().to_string()
    }

    #[napi]
    pub async fn get_tuple(
        &self,
        place: NativePlace,
        checkpoint_id: Option<String>,
    ) -> Result<NativeRead> {
        let read = self
            .inner
            .get_tuple(place.into(), checkpoint_id)
            .await
            .map_err(to_js)?;
        Ok(NativeRead {
            tuple: read.value.map(NativeTuple::from),
            skipped: read.skipped,
        })
    }

    /// Starts a put; its result comes to `settle(id, ...)`. The request is
    /// copied out of its JS buffers here, on this thread, so the caller's
    /// buffers can be collected while the write waits its turn.
    #[napi]
    pub fn put(&self, env: &Env, id: u32, request: NativePut) -> Result<()> {
        let request = core::PutRequest {
            place: request.place.into(),
            checkpoint_id: request.checkpoint_id,
            parent_id: request.parent_id,
            v: request.v,
            checkpoint: request.checkpoint.into(),
            metadata: request.metadata.into(),
            filterable: request.filterable,
            versions: request
                .versions
                .into_iter()
                .map(|v| (v.channel, v.version))
                .collect(),
            new_values: request.new_values.into_iter().map(Into::into).collect(),
        };
        self.submit(env, id, core::Write::Put(request))
    }

    /// Starts a putWrites, as `put` does.
    #[napi]
    pub fn put_writes(&self, env: &Env, id: u32, request: NativePutWrites) -> Result<()> {
        let request = core::WritesRequest {
            place: request.place.into(),
            checkpoint_id: request.checkpoint_id,
            task_id: request.task_id,
            task_path: request.task_path,
            writes: request
                .writes
                .into_iter()
                .map(|w| core::WriteEntry {
                    idx: w.idx,
                    channel: w.channel,
                    value: w.value.into(),
                })
                .collect(),
        };
        self.submit(env, id, core::Write::Writes(request))
    }

    fn submit(&self, env: &Env, id: u32, write: core::Write) -> Result<()> {
        let done = self.completions.start(env, id)?;
        within_runtime_if_available(|| self.inner.submit(write, done));
        Ok(())
    }

    #[napi]
    pub async fn delete_thread(&self, thread_id: String) -> Result<()> {
        self.inner.delete_thread(&thread_id).await.map_err(to_js)
    }

    /// Returns how many records were copied.
    #[napi]
    pub async fn copy_thread(
        &self,
        actor_id: Option<String>,
        source: String,
        target: String,
    ) -> Result<u32> {
        let copied = self
            .inner
            .copy_thread(actor_id.as_deref(), &source, &target);
        copied.await.map(count).map_err(to_js)
    }

    /// Returns how many events were deleted.
    #[napi]
    pub async fn prune(
        &self,
        thread_ids: Vec<String>,
        keep_last: u32,
        delete_all: bool,
    ) -> Result<u32> {
        let strategy = if delete_all {
            core::PruneStrategy::Delete
        } else {
            core::PruneStrategy::KeepLatest
        };
        let pruned = self.inner.prune(&thread_ids, keep_last as usize, strategy);
        pruned.await.map(count).map_err(to_js)
    }

    /// Returns how many events were deleted.
    #[napi]
    pub async fn delete_for_runs(&self, run_ids: Vec<String>) -> Result<u32> {
        let deleted = self.inner.delete_for_runs(&run_ids).await;
        deleted.map(count).map_err(to_js)
    }

    #[napi]
    pub fn list(&self, query: NativeListQuery) -> Result<NativeListCursor> {
        let filter = match query.filter.as_deref() {
            None => Default::default(),
            Some(json) => match serde_json::from_str(json) {
                Ok(serde_json::Value::Object(map)) => map,
                _ => {
                    return Err(to_js(core::Error::invalid(
                        "filter",
                        "must be an object of primitive values",
                    )))
                }
            },
        };
        let query = core::ListQuery {
            actor: query.actor_id,
            thread_id: query.thread_id,
            checkpoint_ns: query.checkpoint_ns,
            checkpoint_id: query.checkpoint_id,
            before: query.before,
            limit: query.limit.map(|l| l as usize),
            filter,
        };
        let cursor = self.inner.list(query).map_err(to_js)?;
        Ok(NativeListCursor {
            inner: tokio::sync::Mutex::new(cursor),
        })
    }

    #[napi]
    pub async fn delta_channel_history(
        &self,
        place: NativePlace,
        checkpoint_id: Option<String>,
        channels: Vec<String>,
    ) -> Result<NativeHistoryRead> {
        let read = self
            .inner
            .delta_channel_history(place.into(), checkpoint_id, channels)
            .await
            .map_err(to_js)?;
        let channels = read
            .value
            .into_iter()
            .map(|h| NativeChannelHistory {
                channel: h.channel,
                seed: h.seed.map(Into::into),
                writes: h.writes.into_iter().map(Into::into).collect(),
            })
            .collect();
        Ok(NativeHistoryRead {
            channels,
            skipped: read.skipped,
        })
    }
}

/// The tuples of a `list` call, one at a time.
#[napi]
pub struct NativeListCursor {
    inner: tokio::sync::Mutex<core::ListCursor>,
}

#[napi]
impl NativeListCursor {
    #[napi]
    pub async fn next(&self) -> Result<Option<NativeTuple>> {
        let mut cursor = self.inner.lock().await;
        Ok(cursor.next().await.map_err(to_js)?.map(Into::into))
    }

    /// Events skipped so far as not the saver's; each is reported once.
    #[napi]
    pub async fn take_skipped(&self) -> Vec<String> {
        std::mem::take(&mut self.inner.lock().await.skipped)
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn to_js(e: core::Error) -> Error {
    Error::new(Status::GenericFailure, tagged(&e))
}

/// `[code status operation] message`: the JS class reads the bracket into
/// the error's `name`, `status` and `operation`.
pub(crate) fn tagged(e: &core::Error) -> String {
    let status = e.status.map_or("-".to_string(), |s| s.to_string());
    let operation = e.operation.unwrap_or("-");
    format!("[{} {status} {operation}] {}", e.code, e.message)
}

impl From<NativePlace> for core::Place {
    fn from(p: NativePlace) -> Self {
        core::Place {
            actor: p.actor_id,
            thread_id: p.thread_id,
            checkpoint_ns: p.checkpoint_ns,
        }
    }
}

impl From<TypedValue> for core::Typed {
    fn from(v: TypedValue) -> Self {
        core::Typed {
            kind: v.kind,
            data: v.data.to_vec().into(),
        }
    }
}

impl From<core::Typed> for TypedValue {
    fn from(v: core::Typed) -> Self {
        TypedValue {
            kind: v.kind,
            data: v.data.to_vec().into(),
        }
    }
}

impl From<NativeChannelValue> for core::ChannelValue {
    fn from(v: NativeChannelValue) -> Self {
        core::ChannelValue {
            channel: v.channel,
            version: v.version,
            value: v.value.into(),
        }
    }
}

impl From<core::ChannelValue> for NativeChannelValue {
    fn from(v: core::ChannelValue) -> Self {
        NativeChannelValue {
            channel: v.channel,
            version: v.version,
            value: v.value.into(),
        }
    }
}

impl From<core::PendingWrite> for NativePendingWrite {
    fn from(w: core::PendingWrite) -> Self {
        NativePendingWrite {
            task_id: w.task_id,
            channel: w.channel,
            value: w.value.into(),
            task_path: w.task_path,
        }
    }
}

impl From<core::Tuple> for NativeTuple {
    fn from(t: core::Tuple) -> Self {
        NativeTuple {
            actor_id: t.actor,
            thread_id: t.thread_id,
            checkpoint_ns: t.checkpoint_ns,
            checkpoint_id: t.checkpoint_id,
            parent_id: t.parent_id,
            checkpoint: t.checkpoint.into(),
            metadata: t.metadata.into(),
            values: t.values.into_iter().map(Into::into).collect(),
            pending_writes: t.pending_writes.into_iter().map(Into::into).collect(),
            pending_sends: t
                .pending_sends
                .map(|s| s.into_iter().map(Into::into).collect()),
        }
    }
}
