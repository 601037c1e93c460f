//! Requests per operation, counted by the local server.

mod common;

use std::collections::BTreeMap;

use agentcore_checkpoint::{ChannelValue, ListQuery};
use common::*;

fn counts(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
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
        let newest_id = grow_thread(&f, &thread, n).await;
        // A fresh saver, as a new process would read it.
        let cold = f.cold_saver();
        f.requests();
        let t = newest(&cold, &place(&thread, "")).await;
        assert_eq!(
            f.requests(),
            counts(&[("ListEvents", 1)]),
            "{n} checkpoints"
        );
        assert_eq!(t.checkpoint_id, newest_id);
        assert_eq!(
            t.values.len(),
            4,
            "every channel value, carried into the newest event"
        );
        assert_eq!(t.pending_writes.len(), if n == 1 { 0 } else { 3 });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_newest_checkpoint_with_20_writes_is_one_request_at_1000_and_10000() {
    let f = fixture().await;
    for n in [1_000, 10_000] {
        let p = place(&format!("long-{n}"), "");
        let ids = grow(&f.saver, &p, n, 16, 20).await;
        let cold = f.cold_saver();
        f.requests();
        let t = newest(&cold, &p).await;
        assert_eq!(
            f.requests(),
            counts(&[("ListEvents", 1)]),
            "{n} checkpoints"
        );
        assert_eq!(&t.checkpoint_id, ids.last().unwrap());
        assert_eq!(t.values.len(), 4);
        assert_eq!(t.pending_writes.len(), 20);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_256_kib_state_reads_in_one_request_and_unchanged_values_are_carried() {
    let f = fixture().await;
    let p = place("state-256k", "");
    // Four channels of 64 KiB, one changing per step.
    let ids = grow(&f.saver, &p, 30, 64 * 1024, 20).await;
    let cold = f.cold_saver();
    f.requests();
    let t = newest(&cold, &p).await;
    assert_eq!(f.requests(), counts(&[("ListEvents", 1)]));
    assert_eq!(&t.checkpoint_id, ids.last().unwrap());
    assert_eq!(t.values.len(), 4);
    assert!(t.values.iter().all(|v| v.value.data.len() == 64 * 1024));
    assert_eq!(t.pending_writes.len(), 20);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busier_subgraph_namespace_does_not_cost_the_root_a_request() {
    let f = fixture().await;
    let root = place("nested", "");
    let ids = grow(&f.saver, &root, 5, 16, 2).await;
    // After the root's last checkpoint, a subgraph writes far more.
    grow(&f.saver, &place("nested", "child:1f0-task"), 300, 16, 1).await;
    let cold = f.cold_saver();
    f.requests();
    let t = newest(&cold, &root).await;
    assert_eq!(f.requests(), counts(&[("ListEvents", 1)]));
    assert_eq!(&t.checkpoint_id, ids.last().unwrap());
    assert_eq!(t.pending_writes.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unchanged_value_too_large_to_carry_is_not_sent_again() {
    let f = fixture().await;
    let saver = saver_with(&f.server.endpoint(), &f.memory_id, |o| o.compress = false);
    let p = place("no-resend", "");
    let big = 2 * agentcore_checkpoint::CARRY_BYTES;
    let first = uuid6();
    let mut req = put(
        &p,
        &first,
        None,
        &[("big", "1"), ("n", "1")],
        &[("n", "1", "0")],
    );
    req.new_values.push(ChannelValue {
        channel: "big".into(),
        version: "1".into(),
        value: typed_bytes(noise(big, 5)),
    });
    saver.put(req).await.unwrap();
    let mut parent = first;
    for i in 2..5 {
        let id = uuid6();
        let version = i.to_string();
        f.server.reset_stats();
        let versions = [("big", "1"), ("n", version.as_str())];
        saver
            .put(put(
                &p,
                &id,
                Some(&parent),
                &versions,
                &[("n", &version, "1")],
            ))
            .await
            .unwrap();
        let sent = f.server.stats().bytes_in;
        assert!(sent < 8 * 1024, "step {i} sent {sent} bytes");
        parent = id;
    }
    let cold = f.cold_saver();
    let t = newest(&cold, &p).await;
    let big_value = t.values.iter().find(|v| v.channel == "big").unwrap();
    assert!(
        big_value.value.data == noise(big, 5),
        "read from the event that wrote it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkpoint_id_known_in_process_reads_in_at_most_two_requests() {
    let f = fixture().await;
    let p = place("known", "");
    let ids = grow(&f.saver, &p, 1_000, 16, 3).await;

    // From put: a checkpoint 40 steps back, written by this saver.
    f.requests();
    let t = f
        .saver
        .get_tuple(p.clone(), Some(ids[959].clone()))
        .await
        .unwrap()
        .value
        .unwrap();
    assert!(f.requests()["ListEvents"] <= 2);
    assert_eq!(t.checkpoint_id, ids[959]);
    assert_eq!(t.pending_writes.len(), 1);
    assert_eq!(t.values.len(), 4);

    // From list: a reader that listed the history, then picks one far back.
    let reader = std::sync::Arc::new(f.cold_saver());
    listed(&reader, of_thread("known")).await;
    // A write that lands after the listing must still be seen.
    f.saver
        .put_writes(writes(&p, &ids[10], "late", &[(0, "a", "\"late\"")]))
        .await
        .unwrap();
    f.requests();
    let t = reader
        .get_tuple(p.clone(), Some(ids[10].clone()))
        .await
        .unwrap()
        .value
        .unwrap();
    assert_eq!(f.requests(), counts(&[("ListEvents", 1)]));
    assert_eq!(t.checkpoint_id, ids[10]);
    let tasks: Vec<_> = t
        .pending_writes
        .iter()
        .map(|w| w.task_id.as_str())
        .collect();
    assert_eq!(tasks, ["late", "task-0"]);

    // Unknown to a fresh process: the cost follows how far back the id is.
    let cold = f.cold_saver();
    f.requests();
    let recent = cold
        .get_tuple(p.clone(), Some(ids[990].clone()))
        .await
        .unwrap();
    assert_eq!(recent.value.unwrap().checkpoint_id, ids[990]);
    assert_eq!(f.requests(), counts(&[("ListEvents", 1)]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_reads_only_the_pages_it_needs() {
    let f = fixture().await;
    let p = place("paged", "");
    let ids = grow(&f.saver, &p, 1_000, 16, 1).await;
    let cold = std::sync::Arc::new(f.cold_saver());
    f.requests();
    let query = ListQuery {
        checkpoint_ns: Some(String::new()),
        limit: Some(10),
        ..of_thread("paged")
    };
    let listed = listed_ids(&cold, query).await;
    assert_eq!(listed.len(), 10);
    assert_eq!(listed[0], ids[999]);
    // 10 checkpoints and their writes are 20 events: one page.
    assert_eq!(f.requests(), counts(&[("ListEvents", 1)]));

    let query = ListQuery {
        checkpoint_ns: Some(String::new()),
        before: Some(ids[900].clone()),
        limit: Some(5),
        ..of_thread("paged")
    };
    let listed = listed_ids(&cold, query).await;
    assert_eq!(
        listed,
        ids[895..900].iter().rev().cloned().collect::<Vec<_>>()
    );
    // Down to id 895: about 210 events, three pages; never the 2,000.
    assert!(f.requests()["ListEvents"] <= 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_cache_a_warm_get_tuple_makes_no_request() {
    let f = fixture().await;
    let saver = saver_with(&f.server.endpoint(), &f.memory_id, |o| o.cache = true);
    let p = place("cached", "");
    let ids = grow(&saver, &p, 50, 16, 3).await;
    f.requests();
    let warm = newest(&saver, &p).await;
    let older = saver
        .get_tuple(p.clone(), Some(ids[40].clone()))
        .await
        .unwrap()
        .value
        .unwrap();
    assert_eq!(f.requests(), counts(&[]));
    assert_eq!(&warm.checkpoint_id, ids.last().unwrap());
    assert_eq!(warm.pending_writes.len(), 3);
    assert_eq!(older.checkpoint_id, ids[40]);
    assert_eq!(older.pending_writes.len(), 1);
    // And it reads exactly what the server holds.
    let cold = f.cold_saver();
    let stored = newest(&cold, &p).await;
    assert_eq!(stored, warm);
}
