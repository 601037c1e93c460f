//! copyThread, prune, deleteForRuns and shallow mode, against the server.

mod common;

use std::sync::Arc;

use agentcore_checkpoint::{PruneStrategy, Saver, Tuple};
use common::*;

async fn history(saver: &Arc<Saver>, thread: &str) -> Vec<Tuple> {
    listed(saver, of_thread(thread)).await
}

/// Tuples without the thread id, to compare a copy with its source.
fn unthreaded(tuples: Vec<Tuple>) -> Vec<Tuple> {
    tuples
        .into_iter()
        .map(|t| Tuple {
            thread_id: String::new(),
            ..t
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copy_reads_like_its_source_and_is_refused_onto_a_used_thread() {
    let f = fixture().await;
    // Big values, so some records are split and the carry budget is spent.
    grow(&f.saver, &place("src", ""), 12, 100 * 1024, 2).await;
    grow(&f.saver, &place("src", "child:1"), 3, 16, 1).await;
    let copied = f.saver.copy_thread(None, "src", "dst").await.unwrap();
    // 12 checkpoints with 13 writes, and 3 with 3.
    assert_eq!(copied, 12 + 13 + 3 + 3);

    let cold = Arc::new(f.cold_saver());
    let source = history(&cold, "src").await;
    let copy = history(&cold, "dst").await;
    assert_eq!(copy.len(), 15);
    assert!(copy.iter().all(|t| t.thread_id == "dst"));
    assert_eq!(unthreaded(copy), unthreaded(source));

    // Running it again (as after a crash) adds nothing.
    f.requests();
    f.saver.copy_thread(None, "src", "dst").await.unwrap();
    assert_eq!(history(&cold, "dst").await.len(), 15);

    // A thread with checkpoints of its own is not a copy target.
    grow(&f.saver, &place("used", ""), 1, 16, 0).await;
    let err = f.saver.copy_thread(None, "src", "used").await.unwrap_err();
    assert!(
        err.message.contains("already has checkpoints"),
        "{}",
        err.message
    );
    assert_eq!(history(&cold, "used").await.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prune_keeps_the_newest_reading_exactly_as_before() {
    let f = fixture().await;
    // 256 KiB channels: not carried, so the newest reads values from
    // checkpoints that prune deletes.
    let p = place("long", "");
    let ids = grow(&f.saver, &p, 20, 300 * 1024, 3).await;
    grow(&f.saver, &place("long", "child:1"), 5, 16, 1).await;
    let cold = Arc::new(f.cold_saver());
    let before = newest(&cold, &p).await;

    let deleted = f
        .saver
        .prune(&["long".into()], 2, PruneStrategy::KeepLatest)
        .await
        .unwrap();
    assert!(deleted >= 18 * 2 + 3 * 2, "{deleted} events deleted");

    let cold = Arc::new(f.cold_saver());
    let after = newest(&cold, &p).await;
    assert_eq!(after, before);
    let left: Vec<_> = history(&cold, "long").await;
    let root: Vec<_> = left.iter().filter(|t| t.checkpoint_ns.is_empty()).collect();
    assert_eq!(root.len(), 2);
    assert_eq!(root[1].checkpoint_id, ids[18]);
    assert_eq!(left.len(), 4, "two per namespace");

    // Again: nothing left to delete.
    let again = f
        .saver
        .prune(&["long".into()], 2, PruneStrategy::KeepLatest)
        .await
        .unwrap();
    assert_eq!(again, 0);

    let gone = f
        .saver
        .prune(&["long".into()], 1, PruneStrategy::Delete)
        .await
        .unwrap();
    assert!(gone > 0);
    assert!(history(&cold, "long").await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_for_runs_removes_a_run_and_its_children_keep_working() {
    let f = fixture().await;
    let p = place("runs", "");
    let big = "x".repeat(300 * 1024);
    let a = uuid6();
    let mut first = put(
        &p,
        &a,
        None,
        &[("big", "1"), ("n", "1")],
        &[("big", "1", &big), ("n", "1", "1")],
    );
    first.filterable = r#"{"run_id":"run-1"}"#.into();
    f.saver.put(first).await.unwrap();
    f.saver
        .put_writes(writes(&p, &a, "t", &[(0, "n", "2")]))
        .await
        .unwrap();
    let b = uuid6();
    let mut second = put(
        &p,
        &b,
        Some(&a),
        &[("big", "1"), ("n", "2")],
        &[("n", "2", "2")],
    );
    second.filterable = r#"{"run_id":"run-2"}"#.into();
    f.saver.put(second).await.unwrap();

    let deleted = f.saver.delete_for_runs(&["run-1".into()]).await.unwrap();
    assert_eq!(
        deleted, 3,
        "the checkpoint, its writes, and the child's old event"
    );
    let cold = Arc::new(f.cold_saver());
    let all = history(&cold, "runs").await;
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].checkpoint_id, b);
    let big_value = all[0].values.iter().find(|v| v.channel == "big").unwrap();
    assert_eq!(
        text(&big_value.value),
        big,
        "the child still reads the value it shared"
    );
    assert_eq!(f.saver.delete_for_runs(&["run-1".into()]).await.unwrap(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shallow_mode_keeps_one_checkpoint_and_adds_one_request_per_put() {
    let f = fixture().await;
    let saver = Arc::new(saver_with(&f.server.endpoint(), &f.memory_id, |o| {
        o.shallow = true
    }));
    let p = place("shallow", "");
    // 400 KiB of state: more than a put carries, unless shallow.
    let ids = grow(&saver, &p, 10, 100 * 1024, 1).await;
    f.requests();
    let id = uuid6();
    let versions = [("messages", "11"), ("a", "10"), ("b", "7"), ("c", "8")];
    saver
        .put(put(
            &p,
            &id,
            ids.last().map(String::as_str),
            &versions,
            &[("messages", "11", "1")],
        ))
        .await
        .unwrap();
    let counts = f.requests();
    assert_eq!(counts["CreateEvent"], 1);
    assert_eq!(counts["DeleteEvent"], 1, "the parent's checkpoint event");
    saver
        .put_writes(writes(&p, &id, "t", &[(0, "a", "1")]))
        .await
        .unwrap();
    let counts = f.requests();
    assert_eq!((counts["CreateEvent"], counts["DeleteEvent"]), (1, 1));

    let cold = Arc::new(f.cold_saver());
    let all = history(&cold, "shallow").await;
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].checkpoint_id, id);
    assert_eq!(
        all[0].values.len(),
        4,
        "every value inline: the parents are gone"
    );
    f.requests();
    newest(&cold, &p).await;
    assert_eq!(f.requests()["ListEvents"], 1);
    // Only the newest checkpoint, its write and one stale write remain.
    assert!(raw_events(&f, "tester", "shallow").await.len() <= 3);
}
