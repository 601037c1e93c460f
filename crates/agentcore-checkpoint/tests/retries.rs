//! Retries under the local server's injected faults: throttling and 500s
//! are retried until they pass, lost responses never duplicate an event,
//! and errors that cannot pass by retrying fail at once.

mod common;

use agentcore_checkpoint::ChannelValue;
use agentcore_memory_local::Options;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sustained_throttling_and_lost_responses_lose_and_duplicate_nothing() {
    let f = fixture_with(Options {
        throttle_rate: 0.3,
        error_rate: 0.05,
        seed: Some(42),
        ..Options::default()
    })
    .await;
    let saver = saver_with(&f.server.endpoint(), &f.memory_id, |o| {
        o.client.max_attempts = 12
    });
    let p = place("faulty", "");
    let ids = grow(&saver, &p, 200, 16, 1).await;
    let stats = f.server.stats();
    assert!(stats.throttled > 100, "throttled {}", stats.throttled);
    assert!(stats.errors > 10, "errors {}", stats.errors);

    let events = raw_events(&f, "tester", "faulty").await;
    assert_eq!(events.len(), 400, "one event per put and per putWrites");
    let clean = f.cold_saver();
    let t = newest(&clean, &p).await;
    assert_eq!(&t.checkpoint_id, ids.last().unwrap());
    assert_eq!(t.pending_writes.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_writers_throttled_at_once_all_get_through() {
    // Hundreds of requests failing at the same moment: more retries in
    // flight than the SDK's default retry quota holds, which would then
    // refuse to retry and fail writes.
    let f = fixture_with(Options {
        throttle_rate: 0.5,
        latency_ms: 20,
        seed: Some(7),
        ..Options::default()
    })
    .await;
    let saver = std::sync::Arc::new(saver_with(&f.server.endpoint(), &f.memory_id, |o| {
        o.client.max_attempts = 15
    }));
    let tasks: Vec<_> = (0..400)
        .map(|i| {
            let saver = saver.clone();
            tokio::spawn(async move {
                let p = place(&format!("writer-{i}"), "");
                let id = uuid6();
                saver
                    .put(put(&p, &id, None, &[("a", "1")], &[("a", "1", "1")]))
                    .await?;
                saver
                    .put_writes(writes(&p, &id, "t", &[(0, "a", "2")]))
                    .await
            })
        })
        .collect();
    let mut failed = 0;
    for task in tasks {
        failed += task.await.unwrap().is_err() as usize;
    }
    assert_eq!(failed, 0, "writers that gave up");
    assert!(f.server.stats().throttled > 300);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_retrying_cannot_cure_fails_at_once() {
    // The server takes 64 KiB requests; the saver was told 1 MiB.
    let f = fixture_with(Options {
        max_request_bytes: 64 * 1024,
        ..Options::default()
    })
    .await;
    let p = place("too-big", "");
    let mut req = put(&p, &uuid6(), None, &[("a", "1")], &[]);
    req.new_values.push(ChannelValue {
        channel: "a".into(),
        version: "1".into(),
        value: typed_bytes(noise(200 * 1024, 9)),
    });
    f.requests();
    let err = f.saver.put(req).await.unwrap_err();
    assert_eq!(err.status, Some(413));
    assert_eq!(err.operation, Some("CreateEvent"));
    assert_eq!(f.requests()["CreateEvent"], 1, "no retry");
    assert!(f.saver.get_tuple(p, None).await.unwrap().value.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicates_written_by_other_clients_read_once() {
    let f = fixture().await;
    let p = place("dup", "");
    let id = uuid6();
    // Another client (or an older version, without deterministic tokens)
    // stores the same checkpoint and the same writes twice.
    for _ in 0..2 {
        let other = f.cold_saver();
        other
            .put(put(&p, &id, None, &[("a", "1")], &[("a", "1", "1")]))
            .await
            .unwrap();
        other
            .put_writes(writes(&p, &id, "task", &[(0, "a", "2"), (1, "b", "3")]))
            .await
            .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    assert_eq!(raw_events(&f, "tester", "dup").await.len(), 4);
    let reader = std::sync::Arc::new(f.cold_saver());
    let t = newest(&reader, &p).await;
    assert_eq!(t.pending_writes.len(), 2, "each (task, index) once");
    assert_eq!(listed_ids(&reader, of_thread("dup")).await.len(), 1);
}
