//! ListEvents' newest-first order is observed, not promised by AWS. Against
//! a server that pages oldest first, the saver must read more, never wrongly.

mod common;

use agentcore_checkpoint::ListQuery;
use agentcore_memory_local::{ListOrder, Options};
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_stay_correct_when_pages_come_oldest_first() {
    let f = fixture_with(Options {
        list_order: ListOrder::OldestFirst,
        ..Options::default()
    })
    .await;
    // 60 checkpoints with 3 writes each: 238 events, three pages.
    let newest_id = grow_thread(&f, "t", 60).await;
    let cold = std::sync::Arc::new(f.cold_saver());
    f.requests();

    let t = newest(&cold, &place("t", "")).await;
    assert_eq!(t.checkpoint_id, newest_id);
    assert_eq!(t.values.len(), 4);
    assert_eq!(t.pending_writes.len(), 3);
    assert_eq!(
        f.requests()["ListEvents"],
        3,
        "the whole session, as the order cannot be trusted"
    );

    let mut cursor = cold
        .list(ListQuery {
            thread_id: Some("t".into()),
            limit: Some(5),
            ..Default::default()
        })
        .unwrap();
    let mut ids = Vec::new();
    while let Some(t) = cursor.next().await.unwrap() {
        ids.push(t.checkpoint_id);
    }
    assert_eq!(ids.len(), 5);
    assert_eq!(ids[0], newest_id);
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "newest first");

    // Known from the listing, and written to since: the shortcut that reads
    // only newer events must notice it cannot trust this order.
    f.saver
        .put_writes(writes(&place("t", ""), &ids[4], "late", &[(0, "a", "1")]))
        .await
        .unwrap();
    let older = cold
        .get_tuple(place("t", ""), Some(ids[4].clone()))
        .await
        .unwrap()
        .value
        .unwrap();
    assert_eq!(older.checkpoint_id, ids[4]);
    assert_eq!(older.pending_writes.len(), 4);
}
