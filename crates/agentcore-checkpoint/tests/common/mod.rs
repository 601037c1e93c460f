//! A saver on a fresh in-process local server, and checkpoint builders.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use agentcore_checkpoint::{
    ChannelValue, ClientOptions, Place, PutRequest, Saver, SaverOptions, Tuple, Typed, WriteEntry,
    WritesRequest,
};
use agentcore_memory_local::{LocalMemory, Options};

pub struct Fixture {
    pub server: LocalMemory,
    pub saver: Arc<Saver>,
    pub memory_id: String,
}

pub async fn fixture() -> Fixture {
    fixture_with(Options::default()).await
}

pub async fn fixture_with(options: Options) -> Fixture {
    let server = LocalMemory::start(options).await.expect("server starts");
    let memory_id = agentcore_memory_local::new_memory_id();
    let saver = Arc::new(saver_for(&server.endpoint(), &memory_id));
    Fixture {
        server,
        saver,
        memory_id,
    }
}

pub fn saver_for(endpoint: &str, memory_id: &str) -> Saver {
    saver_with(endpoint, memory_id, |_| {})
}

/// A saver with options changed from the test defaults by `change`.
pub fn saver_with(
    endpoint: &str,
    memory_id: &str,
    change: impl FnOnce(&mut SaverOptions),
) -> Saver {
    let client = ClientOptions {
        memory_id: memory_id.to_string(),
        region: None,
        endpoint: Some(endpoint.to_string()),
        credentials: None,
        max_attempts: 3,
        connect_timeout: Duration::from_secs(2),
        attempt_timeout: Duration::from_secs(10),
        operation_timeout: Duration::from_secs(30),
    };
    let mut options = SaverOptions::new(client, "tester");
    change(&mut options);
    Saver::new(options).expect("valid options")
}

impl Fixture {
    /// A new saver on the fixture's memory: it knows nothing this process did.
    pub fn cold_saver(&self) -> Saver {
        saver_for(&self.server.endpoint(), &self.memory_id)
    }

    /// Requests per operation since the last call.
    pub fn requests(&self) -> std::collections::BTreeMap<String, u64> {
        let stats = self.server.stats();
        self.server.reset_stats();
        stats.requests.into_iter().filter(|(_, n)| *n > 0).collect()
    }
}

/// The newest checkpoint of a namespace, which must have one.
pub async fn newest(saver: &Saver, place: &Place) -> Tuple {
    let read = saver.get_tuple(place.clone(), None).await;
    read.expect("get_tuple").value.expect("a checkpoint")
}

pub fn typed(text: &str) -> Typed {
    Typed {
        kind: "json".into(),
        data: text.as_bytes().to_vec().into(),
    }
}

pub fn place(thread: &str, ns: &str) -> Place {
    Place {
        actor: None,
        thread_id: thread.into(),
        checkpoint_ns: ns.into(),
    }
}

/// A LangGraph-style checkpoint id (UUID v6) for the current time, strictly
/// increasing within the process.
pub fn uuid6() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    let t = now.as_nanos() as u64 / 100 + 0x01B2_1DD2_1381_4000;
    let t = LAST.fetch_max(t, Ordering::SeqCst).max(t - 1) + 1;
    LAST.fetch_max(t, Ordering::SeqCst);
    format!(
        "{:08x}-{:04x}-6{:03x}-8000-{:012x}",
        t >> 28,
        (t >> 12) & 0xffff,
        t & 0xfff,
        t & 0xffff_ffff_ffff
    )
}

/// A put of `values` (channel -> (version, value)) where `changed` channels
/// are the new ones.
pub fn put(
    place: &Place,
    id: &str,
    parent: Option<&str>,
    versions: &[(&str, &str)],
    changed: &[(&str, &str, &str)],
) -> PutRequest {
    PutRequest {
        place: place.clone(),
        checkpoint_id: id.into(),
        parent_id: parent.map(str::to_string),
        v: 4,
        checkpoint: typed(&format!("{{\"id\":\"{id}\"}}")),
        metadata: typed("{\"source\":\"loop\"}"),
        filterable: "{\"source\":\"loop\"}".into(),
        versions: versions
            .iter()
            .map(|(c, v)| (c.to_string(), v.to_string()))
            .collect(),
        new_values: changed
            .iter()
            .map(|(c, v, x)| ChannelValue {
                channel: c.to_string(),
                version: v.to_string(),
                value: typed(x),
            })
            .collect(),
    }
}

pub fn writes(
    place: &Place,
    checkpoint: &str,
    task: &str,
    entries: &[(i64, &str, &str)],
) -> WritesRequest {
    WritesRequest {
        place: place.clone(),
        checkpoint_id: checkpoint.into(),
        task_id: task.into(),
        task_path: String::new(),
        writes: entries
            .iter()
            .map(|(idx, c, v)| WriteEntry {
                idx: *idx,
                channel: c.to_string(),
                value: typed(v),
            })
            .collect(),
    }
}

pub fn text(t: &Typed) -> String {
    String::from_utf8(t.data.to_vec()).unwrap()
}

/// A thread of `n` checkpoints, each changing one of four channels and
/// followed by three pending writes, as a LangGraph loop leaves it.
pub async fn grow_thread(f: &Fixture, thread: &str, n: usize) -> String {
    let p = place(thread, "");
    let channels = ["messages", "a", "b", "c"];
    let mut versions: Vec<(String, String)> = channels
        .iter()
        .map(|c| (c.to_string(), "1".to_string()))
        .collect();
    let first = uuid6();
    let all: Vec<_> = channels.iter().map(|c| (*c, "1", "\"v1\"")).collect();
    let vs: Vec<_> = versions
        .iter()
        .map(|(c, v)| (c.as_str(), v.as_str()))
        .collect();
    f.saver.put(put(&p, &first, None, &vs, &all)).await.unwrap();
    let mut parent = first;
    for i in 1..n {
        let changed = channels[i % channels.len()];
        versions
            .iter_mut()
            .filter(|(c, _)| c == changed)
            .for_each(|(_, v)| *v = (i + 1).to_string());
        let version = (i + 1).to_string();
        let vs: Vec<_> = versions
            .iter()
            .map(|(c, v)| (c.as_str(), v.as_str()))
            .collect();
        let id = uuid6();
        f.saver
            .put(put(
                &p,
                &id,
                Some(&parent),
                &vs,
                &[(changed, &version, "\"new\"")],
            ))
            .await
            .unwrap();
        for task in ["t1", "t2", "t3"] {
            f.saver
                .put_writes(writes(&p, &id, task, &[(0, "messages", "\"w\"")]))
                .await
                .unwrap();
        }
        parent = id;
    }
    parent
}

/// Every event of a session, straight from the server through the SDK,
/// with each event's `langgraph` marker.
pub async fn raw_events(
    f: &Fixture,
    actor_id: &str,
    session: &str,
) -> Vec<(String, Option<String>)> {
    use aws_sdk_bedrockagentcore::config::{BehaviorVersion, Credentials, Region};
    let config = aws_sdk_bedrockagentcore::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url(f.server.endpoint())
        .credentials_provider(Credentials::new("test", "test", None, None, "test"))
        .build();
    let client = aws_sdk_bedrockagentcore::Client::from_conf(config);
    let mut pages = client
        .list_events()
        .memory_id(&f.memory_id)
        .actor_id(actor_id)
        .session_id(session)
        .include_payloads(false)
        .max_results(100)
        .into_paginator()
        .send();
    let mut events = Vec::new();
    while let Some(page) = pages.next().await {
        for e in page.expect("ListEvents").events {
            let marker = e
                .metadata()
                .and_then(|m| m.get("langgraph"))
                .and_then(|v| v.as_string_value().ok())
                .cloned();
            events.push((e.event_id().to_string(), marker));
        }
    }
    events
}

/// `len` bytes that do not compress.
pub fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

pub fn typed_bytes(data: Vec<u8>) -> Typed {
    Typed {
        kind: "bytes".into(),
        data: data.into(),
    }
}

/// A thread namespace of `n` checkpoints over four channels of
/// `channel_bytes` each (incompressible), each step changing one channel and
/// leaving one pending write; the newest checkpoint gets `newest_writes`.
/// Returns every checkpoint id, oldest first.
pub async fn grow(
    saver: &Saver,
    p: &Place,
    n: usize,
    channel_bytes: usize,
    newest_writes: usize,
) -> Vec<String> {
    let channels = ["messages", "a", "b", "c"];
    let value = |i: usize| typed_bytes(noise(channel_bytes, i as u64 + 1));
    let mut versions: Vec<(String, String)> = channels
        .iter()
        .map(|c| (c.to_string(), "1".into()))
        .collect();
    let mut ids: Vec<String> = Vec::new();
    for i in 0..n {
        let changed: Vec<&str> = if i == 0 {
            channels.to_vec()
        } else {
            vec![channels[i % channels.len()]]
        };
        for (c, v) in versions.iter_mut() {
            if changed.contains(&c.as_str()) {
                *v = (i + 1).to_string();
            }
        }
        let id = uuid6();
        let mut req = put(p, &id, ids.last().map(String::as_str), &[], &[]);
        req.versions = versions.clone();
        req.new_values = changed
            .iter()
            .map(|c| ChannelValue {
                channel: c.to_string(),
                version: (i + 1).to_string(),
                value: value(i),
            })
            .collect();
        saver.put(req).await.unwrap();
        let count = if i + 1 == n { newest_writes } else { 1 };
        for w in 0..count {
            let task = format!("task-{w}");
            saver
                .put_writes(writes(p, &id, &task, &[(0, "messages", "\"w\"")]))
                .await
                .unwrap();
        }
        ids.push(id);
    }
    ids
}

/// The ids `list` yields for a query, in order.
pub async fn listed_ids(saver: &Arc<Saver>, query: agentcore_checkpoint::ListQuery) -> Vec<String> {
    listed(saver, query)
        .await
        .into_iter()
        .map(|t| t.checkpoint_id)
        .collect()
}

/// The tuples `list` yields for a query, in order.
pub async fn listed(
    saver: &Arc<Saver>,
    query: agentcore_checkpoint::ListQuery,
) -> Vec<agentcore_checkpoint::Tuple> {
    let mut cursor = saver.list(query).unwrap();
    let mut all = Vec::new();
    while let Some(t) = cursor.next().await.unwrap() {
        all.push(t);
    }
    all
}

/// Every checkpoint of a thread, as `list` gives them.
pub fn of_thread(thread: &str) -> agentcore_checkpoint::ListQuery {
    agentcore_checkpoint::ListQuery {
        thread_id: Some(thread.into()),
        ..Default::default()
    }
}
