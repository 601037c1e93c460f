//! Under LangGraph's default durability a thousand graphs hand over tens of
//! thousands of writes at once. A submitted write waits as its request and
//! a callback, with no task; an awaited call waits for its turn holding its
//! request and little else: its own state is boxed once its turn comes, as
//! are the SDK's configuration and request futures.

mod common;

use agentcore_checkpoint::{Write, ADMITTED_CALLS};
use agentcore_memory_local::Options;
use common::*;

/// Was 13 KB before the SDK's configuration future was boxed, and 2 KB
/// before calls waited for their turn: now the request and a few words.
const MAX_FUTURE_BYTES: usize = 1024;

#[tokio::test]
async fn a_pending_call_holds_a_small_future() {
    let f = fixture().await;
    let p = place("t", "");
    let put = f
        .saver
        .put(put(&p, &uuid6(), None, &[("a", "1")], &[("a", "1", "1")]));
    let writes = f.saver.put_writes(writes(&p, "c", "t", &[(0, "a", "1")]));
    let read = f.saver.get_tuple(p.clone(), None);
    for (name, size) in [
        ("put", std::mem::size_of_val(&put)),
        ("put_writes", std::mem::size_of_val(&writes)),
        ("get_tuple", std::mem::size_of_val(&read)),
    ] {
        assert!(size <= MAX_FUTURE_BYTES, "{name}: {size} bytes");
    }
}

#[tokio::test]
async fn thousands_of_calls_at_once_all_complete() {
    let f = fixture().await;
    let threads: Vec<_> = (0..20).map(|i| place(&format!("t{i}"), "")).collect();
    let mut ids = Vec::new();
    for p in &threads {
        let id = uuid6();
        f.saver
            .put(put(p, &id, None, &[("a", "1")], &[("a", "1", "1")]))
            .await
            .unwrap();
        ids.push(id);
    }
    let saver = &f.saver;
    let calls = threads.iter().zip(&ids).flat_map(|(p, id)| {
        (0..150)
            .map(move |t| saver.put_writes(writes(p, id, &format!("task{t}"), &[(0, "a", "2")])))
    });
    let results = futures::future::join_all(calls).await;
    assert_eq!(results.len(), 3_000);
    assert!(results.iter().all(Result::is_ok));
    for p in &threads {
        let read = f.saver.get_tuple(p.clone(), None).await.unwrap();
        assert_eq!(read.value.unwrap().pending_writes.len(), 150);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submitted_writes_wait_without_a_task_each_and_all_land() {
    const WRITES: usize = 3_000;
    let f = fixture_with(Options {
        latency_ms: 100,
        ..Options::default()
    })
    .await;
    let p = place("t", "");
    let id = uuid6();
    let first = put(&p, &id, None, &[("a", "1")], &[("a", "1", "1")]);
    f.saver.put(first).await.unwrap();
    let tasks = || {
        tokio::runtime::Handle::current()
            .metrics()
            .num_alive_tasks()
    };
    let before = tasks();
    let (landed, mut results) = tokio::sync::mpsc::unbounded_channel();
    for t in 0..WRITES {
        let landed = landed.clone();
        let write = writes(&p, &id, &format!("task{t}"), &[(0, "a", "2")]);
        f.saver.submit(
            Write::Writes(write),
            Box::new(move |result| landed.send(result).unwrap()),
        );
    }
    // Workers, and the server's connections, but not a task per write.
    let spawned = tasks() - before;
    assert!(
        spawned < ADMITTED_CALLS + 200,
        "{spawned} tasks for {WRITES} writes"
    );
    for _ in 0..WRITES {
        results.recv().await.unwrap().unwrap();
    }
    assert_eq!(newest(&f.saver, &p).await.pending_writes.len(), WRITES);
}
