//! Overload: far more concurrent requests than max_in_flight. Each one must
//! either succeed or be throttled (never hang, drop or fail otherwise), and
//! exactly the successful writes must be stored.

mod common;

use std::time::Duration;

use agentcore_memory_local::Options;
use common::*;
use serde_json::json;

const REQUESTS: i64 = 2_000;

/// Counts of (ok, throttled) after firing REQUESTS concurrent CreateEvents
/// at a server with `max_in_flight = 64`; panics on any other outcome and
/// checks that exactly the successful writes were stored.
async fn flood(latency_ms: u64) -> (usize, usize) {
    let server = start_with(Options {
        max_in_flight: 64,
        latency_ms,
        ..Options::default()
    })
    .await;
    // A longer bound than usual: 2,000 connections queue up on two cores.
    let client = client_with_timeout(&server.endpoint(), Duration::from_secs(120));
    let scope = Scope::new(&client);
    let mut tasks = Vec::new();
    for i in 0..REQUESTS {
        let request = scope.create(T0 + i).payload(blob(&json!({ "i": i })));
        tasks.push(tokio::spawn(async move { outcome(&request.send().await) }));
    }
    let mut outcomes = Vec::new();
    for task in tasks {
        let result = tokio::time::timeout(Duration::from_secs(180), task).await;
        outcomes.push(result.expect("request finished").expect("task"));
    }
    let count = |label: &str| outcomes.iter().filter(|o| *o == label).count();
    let (ok, throttled) = (count("ok"), count("ThrottledException"));
    let other: Vec<&String> = outcomes
        .iter()
        .filter(|o| *o != "ok" && *o != "ThrottledException")
        .collect();
    assert!(
        other.is_empty(),
        "{} unexpected outcomes, e.g. {:?}",
        other.len(),
        &other[..other.len().min(5)]
    );
    eprintln!("flood (latency {latency_ms} ms): {ok} ok, {throttled} throttled");
    assert!(ok > 0, "nothing got through");
    // Throttled writes must not be applied; successful ones must be.
    assert_eq!(scope.list_ids().await.len(), ok, "{throttled} throttled");
    (ok, throttled)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writes_succeed_or_are_throttled() {
    let (ok, throttled) = flood(0).await;
    assert_eq!(ok + throttled, REQUESTS as usize);
}

/// With each request held for 200 ms, 2,000 requests cannot all fit in 64
/// slots: some must be refused, which shows max_in_flight is enforced.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_requests_beyond_max_in_flight_are_throttled() {
    let (ok, throttled) = flood(200).await;
    assert_eq!(ok + throttled, REQUESTS as usize);
    assert!(throttled > 0, "no request was refused");
}
