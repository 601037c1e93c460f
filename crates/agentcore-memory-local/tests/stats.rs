//! Server statistics: requests per operation (faulted ones included), byte
//! counters, and reset.

mod common;

use agentcore_memory_local::{LocalMemory, Options, Stats};
use common::*;
use serde_json::json;

fn requests(stats: &Stats, op: &str) -> u64 {
    stats.requests.get(op).copied().unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counts_each_operation() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let a = scope.put(T0).await;
    scope.put(T0 + 1).await;
    scope.put(T0 + 2).await;
    send_ok(scope.list().send()).await;
    send_ok(scope.list().send()).await;
    send_ok(
        scope
            .client
            .get_event()
            .memory_id(&scope.memory)
            .actor_id(&scope.actor)
            .session_id(&scope.session)
            .event_id(a.event_id())
            .send(),
    )
    .await;
    send_ok(
        scope
            .client
            .delete_event()
            .memory_id(&scope.memory)
            .actor_id(&scope.actor)
            .session_id(&scope.session)
            .event_id(a.event_id())
            .send(),
    )
    .await;
    send_ok(
        scope
            .client
            .list_sessions()
            .memory_id(&scope.memory)
            .actor_id(&scope.actor)
            .send(),
    )
    .await;
    send_ok(scope.client.list_actors().memory_id(&scope.memory).send()).await;

    let stats = server.stats();
    let expected = [
        ("CreateEvent", 3),
        ("ListEvents", 2),
        ("GetEvent", 1),
        ("DeleteEvent", 1),
        ("ListSessions", 1),
        ("ListActors", 1),
    ];
    for (op, n) in expected {
        assert_eq!(requests(&stats, op), n, "{op}: {stats:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bytes_in_and_out_grow_with_traffic() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let before = server.stats();
    let big = "b".repeat(5_000);
    send_ok(scope.create(T0).payload(blob(&json!(big))).send()).await;
    let after_write = server.stats();
    assert!(
        after_write.bytes_in >= before.bytes_in + 5_000,
        "the request body counts: {before:?} -> {after_write:?}"
    );
    send_ok(scope.list().send()).await;
    let after_read = server.stats();
    assert!(
        after_read.bytes_out >= after_write.bytes_out + 5_000,
        "the listed payload counts: {after_write:?} -> {after_read:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reset_zeroes_everything_and_counting_resumes() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    scope.put(T0).await;
    send_ok(scope.list().send()).await;
    server.reset_stats();
    let zero = server.stats();
    assert!(zero.requests.values().all(|n| *n == 0), "{zero:?}");
    assert_eq!((zero.bytes_in, zero.bytes_out), (0, 0), "{zero:?}");
    send_ok(scope.list().send()).await;
    let one = server.stats();
    assert_eq!(requests(&one, "ListEvents"), 1, "{one:?}");
    assert_eq!(requests(&one, "CreateEvent"), 0, "{one:?}");
    assert!(one.bytes_out > 0, "{one:?}");
}

async fn faulty(options: Options) -> LocalMemory {
    start_with(options).await
}

/// Requests answered with an injected fault are still requests.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faulted_requests_are_counted() {
    for options in [
        Options {
            throttle_rate: 1.0,
            ..Options::default()
        },
        Options {
            error_rate: 1.0,
            ..Options::default()
        },
    ] {
        let server = faulty(options).await;
        let scope = Scope::new(&client(&server));
        for i in 0..3 {
            let result = within(scope.create(T0 + i).payload(blob(&json!(i))).send()).await;
            assert!(result.is_err());
        }
        for _ in 0..2 {
            assert!(within(scope.list().send()).await.is_err());
        }
        let stats = server.stats();
        assert_eq!(requests(&stats, "CreateEvent"), 3, "{stats:?}");
        assert_eq!(requests(&stats, "ListEvents"), 2, "{stats:?}");
        server.close().await;
    }
}

/// Requests refused by validation count as well: the counters describe
/// traffic, not successes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_requests_are_counted() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    assert!(within(scope.list().max_results(0).send()).await.is_err());
    assert_eq!(requests(&server.stats(), "ListEvents"), 1);
}
