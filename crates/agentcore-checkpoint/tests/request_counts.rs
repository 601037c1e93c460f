//! Requests per operation, counted by the local server.

mod common;

use std::collections::BTreeMap;

use common::*;

fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// A thread of `n` checkpoints, each changing one of four channels and
/// followed by three pending writes, as a LangGraph loop leaves it.
async fn grow_thread(f: &Fixture, thread: &str, n: usize) -> String {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn put_and_put_writes_are_one_create_event_each() {
    let f = fixture().await;
    let p = place("t", "");
    let c = uuid6();
    f.requests();
    f.saver
        .put(put(&p, &c, None, &[("a", "1")], &[("a", "1", "1")]))
        .await
        .unwrap();
    assert_eq!(f.requests(), counts(&[("CreateEvent", 1)]));
    f.saver
        .put_writes(writes(&p, &c, "task", &[(0, "a", "1"), (1, "b", "2")]))
        .await
        .unwrap();
    assert_eq!(f.requests(), counts(&[("CreateEvent", 1)]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_newest_checkpoint_is_one_request_at_any_length() {
    let f = fixture().await;
    for n in [1, 100] {
        let thread = format!("thread-{n}");
        let newest = grow_thread(&f, &thread, n).await;
        // A fresh saver, as a new process would read it.
        let cold = saver_for(&f.server.endpoint(), &f.memory_id);
        f.requests();
        let t = cold
            .get_tuple(place(&thread, ""), None)
            .await
            .unwrap()
            .value
            .unwrap();
        assert_eq!(
            f.requests(),
            counts(&[("ListEvents", 1)]),
            "{n} checkpoints"
        );
        assert_eq!(t.checkpoint_id, newest);
        assert_eq!(
            t.values.len(),
            4,
            "every channel value, carried into the newest event"
        );
        assert_eq!(t.pending_writes.len(), if n == 1 { 0 } else { 3 });
    }
}
