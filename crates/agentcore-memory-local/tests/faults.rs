//! Fault injection: error and throttle rates, seeded repeatability, and
//! added latency.

mod common;

use std::time::{Duration, Instant};

use agentcore_memory_local::Options;
use aws_sdk_bedrockagentcore::Client;
use common::*;

/// One request of each of the six operations, as outcome labels.
async fn every_operation(client: &Client) -> Vec<String> {
    let scope = Scope::new(client);
    let id = "0001750000000000#abcdef01";
    vec![
        outcome(&within(scope.create(T0).payload(blob(&serde_json::json!(1))).send()).await),
        outcome(&within(scope.list().send()).await),
        outcome(
            &within(
                client
                    .get_event()
                    .memory_id(&scope.memory)
                    .actor_id(&scope.actor)
                    .session_id(&scope.session)
                    .event_id(id)
                    .send(),
            )
            .await,
        ),
        outcome(
            &within(
                client
                    .delete_event()
                    .memory_id(&scope.memory)
                    .actor_id(&scope.actor)
                    .session_id(&scope.session)
                    .event_id(id)
                    .send(),
            )
            .await,
        ),
        outcome(
            &within(
                client
                    .list_sessions()
                    .memory_id(&scope.memory)
                    .actor_id(&scope.actor)
                    .send(),
            )
            .await,
        ),
        outcome(&within(client.list_actors().memory_id(&scope.memory).send()).await),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_rate_one_fails_every_request_with_500() {
    let server = start_with(Options {
        error_rate: 1.0,
        ..Options::default()
    })
    .await;
    let client = client(&server);
    // Several rounds: the "error after the write" variant must be a 500 too.
    for _ in 0..5 {
        assert_eq!(every_operation(&client).await, vec!["ServiceException"; 6]);
    }
    let scope = Scope::new(&client);
    let err = within(scope.list().send()).await.unwrap_err();
    failure(&err).assert_code(500, "ServiceException");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn throttle_rate_one_throttles_every_request_with_429() {
    let server = start_with(Options {
        throttle_rate: 1.0,
        ..Options::default()
    })
    .await;
    let client = client(&server);
    for _ in 0..5 {
        assert_eq!(
            every_operation(&client).await,
            vec!["ThrottledException"; 6]
        );
    }
    let scope = Scope::new(&client);
    let err = within(scope.create(T0).payload(blob(&serde_json::json!(1))).send())
        .await
        .unwrap_err();
    failure(&err).assert_code(429, "ThrottledException");
}

/// The outcomes of `n` sequential ListEvents on a fresh server.
async fn seeded_run(options: Options, n: usize) -> Vec<String> {
    let server = start_with(options).await;
    let scope = Scope::new(&client(&server));
    let mut outcomes = Vec::new();
    for _ in 0..n {
        outcomes.push(outcome(&within(scope.list().send()).await));
    }
    server.close().await;
    outcomes
}

fn count(outcomes: &[String], label: &str) -> usize {
    outcomes.iter().filter(|o| *o == label).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seeded_throttle_rate_repeats_exactly() {
    let options = || Options {
        throttle_rate: 0.5,
        seed: Some(42),
        ..Options::default()
    };
    let first = seeded_run(options(), 60).await;
    let (ok, throttled) = (count(&first, "ok"), count(&first, "ThrottledException"));
    assert_eq!(
        ok + throttled,
        60,
        "only ok or throttled expected: {first:?}"
    );
    assert!(
        (10..=50).contains(&throttled),
        "about half throttled: {first:?}"
    );
    assert_eq!(
        seeded_run(options(), 60).await,
        first,
        "same seed, same sequence"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seeded_error_rate_repeats_exactly() {
    let options = || Options {
        error_rate: 0.5,
        seed: Some(7),
        ..Options::default()
    };
    let first = seeded_run(options(), 60).await;
    let (ok, errors) = (count(&first, "ok"), count(&first, "ServiceException"));
    assert_eq!(ok + errors, 60, "only ok or errors expected: {first:?}");
    assert!((10..=50).contains(&errors), "about half failed: {first:?}");
    assert_eq!(
        seeded_run(options(), 60).await,
        first,
        "same seed, same sequence"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latency_delays_every_request() {
    let server = start_with(Options {
        latency_ms: 200,
        ..Options::default()
    })
    .await;
    let scope = Scope::new(&client(&server));
    for _ in 0..2 {
        let started = Instant::now();
        scope.put(T0).await;
        assert!(
            started.elapsed() >= Duration::from_millis(200),
            "{:?}",
            started.elapsed()
        );
        let started = Instant::now();
        send_ok(scope.list().send()).await;
        assert!(
            started.elapsed() >= Duration::from_millis(200),
            "{:?}",
            started.elapsed()
        );
    }
}
