//! Requests per operation, counted by the local server.

mod common;

use std::collections::BTreeMap;

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
