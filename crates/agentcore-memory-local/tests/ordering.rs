//! What one ListEvents page contains: newest first, the default page size,
//! and whether payloads are included.

mod common;

use agentcore_memory_local::{ListOrder, Options};
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn newest_first_whatever_the_insertion_order() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    // Timestamps inserted in a scrambled order (7 is coprime with 30), and
    // 1 ms apart so ordering by seconds would not be enough.
    let mut expected = Vec::new();
    for i in 0..30 {
        let ts = T0 + (i * 7 % 30);
        expected.push((ts, scope.put(ts).await.event_id().to_string()));
    }
    expected.sort_by(|a, b| b.cmp(a));
    let listed = scope.list_all(None, 100).await;
    let got: Vec<(i64, String)> = listed
        .iter()
        .map(|e| (to_ms(e.event_timestamp()), e.event_id().to_string()))
        .collect();
    assert_eq!(got, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn equal_timestamps_order_by_event_id_descending() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let mut same_ms = Vec::new();
    for _ in 0..12 {
        same_ms.push(scope.put(T0 + 500).await.event_id().to_string());
    }
    let older = scope.put(T0 + 499).await.event_id().to_string();
    let newer = scope.put(T0 + 501).await.event_id().to_string();
    same_ms.sort_by(|a, b| b.cmp(a));
    let mut expected = vec![newer];
    expected.extend(same_ms);
    expected.push(older);
    // Small pages, so the tie-break must also hold across page boundaries.
    assert_eq!(ids(&scope.list_all(None, 5).await), expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_results_defaults_to_twenty() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    for i in 0..25 {
        scope.put(T0 + i).await;
    }
    let page = send_ok(scope.list().send()).await;
    assert_eq!(page.events().len(), 20);
    assert!(page.next_token().is_some(), "5 events are left");
    // The newest 20 come first.
    assert_eq!(to_ms(page.events()[0].event_timestamp()), T0 + 24);
    assert_eq!(to_ms(page.events()[19].event_timestamp()), T0 + 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn full_pages_hold_exactly_max_results() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    for i in 0..12 {
        scope.put(T0 + i).await;
    }
    for size in [1, 5, 11] {
        let page = send_ok(scope.list().max_results(size).send()).await;
        assert_eq!(page.events().len(), size as usize);
        assert!(page.next_token().is_some());
    }
    let everything = send_ok(scope.list().max_results(100).send()).await;
    assert_eq!(everything.events().len(), 12);
    assert_eq!(everything.next_token(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn payloads_are_included_unless_declined() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let a = scope.put(T0).await;
    let b = scope.put(T0 + 1).await;
    let expected_ids = vec![b.event_id().to_string(), a.event_id().to_string()];

    let default = send_ok(scope.list().send()).await;
    assert_eq!(ids(default.events()), expected_ids);
    assert!(default.events().iter().all(|e| e.payload().len() == 1));
    assert_eq!(
        blobs(&default.events()[0]),
        vec![serde_json::json!({ "ts": T0 + 1 })]
    );

    let explicit = send_ok(scope.list().include_payloads(true).send()).await;
    assert!(explicit.events().iter().all(|e| e.payload().len() == 1));

    // Without payloads the events are the same, only their content is gone.
    let bare = send_ok(scope.list().include_payloads(false).send()).await;
    assert_eq!(ids(bare.events()), expected_ids);
    assert!(bare.events().iter().all(|e| e.payload().is_empty()));
    assert_eq!(to_ms(bare.events()[1].event_timestamp()), T0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_session_lists_as_empty() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    scope.put(T0).await;
    let other = scope.with("actor-1", "never-written");
    let page = send_ok(other.list().send()).await;
    assert!(page.events().is_empty());
    assert_eq!(page.next_token(), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oldest_first_pages_ascend_for_clients_that_must_not_rely_on_order() {
    for data_dir in [None, Some(tempfile::tempdir().unwrap())] {
        let options = Options {
            list_order: ListOrder::OldestFirst,
            data_dir: data_dir.as_ref().map(|d| d.path().to_path_buf()),
            ..Options::default()
        };
        let server = start_with(options).await;
        let scope = Scope::new(&client(&server));
        let mut expected = Vec::new();
        for i in 0..45 {
            expected.push(scope.put(T0 + (i * 7 % 45)).await.event_id().to_string());
        }
        expected.sort();
        assert_eq!(ids(&scope.list_all(None, 10).await), expected);
        server.close().await;
    }
}
