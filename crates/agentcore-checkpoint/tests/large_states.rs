//! States larger than one request: split into events under the size limit,
//! visible all at once, and never half-visible after a put dies midway.

mod common;

use std::time::Duration;

use agentcore_checkpoint::ChannelValue;
use agentcore_memory_local::Options;
use common::*;

const MIB: usize = 1024 * 1024;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_50_mib_channel_value_round_trips_in_events_under_the_limit() {
    // The server refuses any request over 1 MiB, the saver's default limit.
    let f = fixture_with(Options {
        max_request_bytes: MIB,
        ..Options::default()
    })
    .await;
    let p = place("big", "");
    let id = uuid6();
    let big = noise(50 * MIB, 7);
    let mut req = put(
        &p,
        &id,
        None,
        &[("blob", "1"), ("small", "1")],
        &[("small", "1", "\"s\"")],
    );
    req.new_values.push(ChannelValue {
        channel: "blob".into(),
        version: "1".into(),
        value: typed_bytes(big.clone()),
    });
    f.requests();
    f.saver.put(req).await.unwrap();
    let creates = f.requests()["CreateEvent"];
    // 50 MiB in base64 is 67 MiB: at least 67 parts, and the head.
    assert!((68..=72).contains(&creates), "{creates} CreateEvent");

    let cold = f.cold_saver();
    let t = newest(&cold, &p).await;
    assert_eq!(t.checkpoint_id, id);
    let blob = t.values.iter().find(|v| v.channel == "blob").unwrap();
    assert!(blob.value.data == big, "the value comes back byte for byte");
    assert_eq!(t.values.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_pending_write_is_split_too() {
    let f = fixture_with(Options {
        max_request_bytes: 64 * 1024,
        ..Options::default()
    })
    .await;
    let saver = saver_with(&f.server.endpoint(), &f.memory_id, |o| {
        o.max_event_bytes = 64 * 1024
    });
    let p = place("w", "");
    let id = uuid6();
    saver
        .put(put(&p, &id, None, &[("a", "1")], &[("a", "1", "1")]))
        .await
        .unwrap();
    let mut w = writes(&p, &id, "task", &[(0, "a", "2")]);
    w.writes[0].value = typed_bytes(noise(MIB, 3));
    saver.put_writes(w).await.unwrap();
    let cold = f.cold_saver();
    let t = newest(&cold, &p).await;
    assert_eq!(t.pending_writes.len(), 1);
    assert!(t.pending_writes[0].value.data == noise(MIB, 3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_put_killed_midway_leaves_the_previous_checkpoint_and_no_visible_garbage() {
    // Latency, so that the put is still sending parts when it is killed.
    let f = fixture_with(Options {
        latency_ms: 30,
        ..Options::default()
    })
    .await;
    let p = place("crash", "");
    let first = uuid6();
    f.saver
        .put(put(
            &p,
            &first,
            None,
            &[("a", "1")],
            &[("a", "1", "\"before\"")],
        ))
        .await
        .unwrap();
    f.requests();

    let second = uuid6();
    let mut req = put(&p, &second, Some(&first), &[("a", "2")], &[]);
    req.new_values.push(ChannelValue {
        channel: "a".into(),
        version: "2".into(),
        value: typed_bytes(noise(20 * MIB, 11)),
    });
    let saver = f.saver.clone();
    let task = tokio::spawn(async move { saver.put(req).await });
    // Kill it once some parts are stored: well before its head could be.
    let stored_parts = || async {
        raw_events(&f, "tester", "crash")
            .await
            .iter()
            .filter(|(_, m)| m.as_deref() == Some("part"))
            .count()
    };
    for _ in 0..500 {
        if stored_parts().await >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());
    tokio::time::sleep(Duration::from_millis(200)).await;

    let parts = stored_parts().await;
    assert!(parts >= 2, "the killed put stored some parts");
    assert!(parts < 27, "but not all of them");

    let cold = std::sync::Arc::new(f.cold_saver());
    let read = cold.get_tuple(p.clone(), None).await.unwrap();
    let t = read.value.unwrap();
    assert_eq!(t.checkpoint_id, first, "still the previous checkpoint");
    assert_eq!(text(&t.values[0].value), "\"before\"");
    assert!(
        read.skipped.is_empty(),
        "orphan parts are not reported as foreign"
    );
    assert!(cold
        .get_tuple(p.clone(), Some(second))
        .await
        .unwrap()
        .value
        .is_none());
    assert_eq!(listed_ids(&cold, of_thread("crash")).await, vec![first]);

    // deleteThread removes the orphans with the rest.
    cold.delete_thread("crash").await.unwrap();
    assert!(raw_events(&f, "tester", "crash").await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_are_compressed_when_it_pays_and_the_option_turns_it_off() {
    let f = fixture().await;
    let chat = "{\"role\":\"user\",\"content\":\"What is the weather like today?\"},".repeat(400);
    let mut sent = Vec::new();
    for compress in [true, false] {
        let saver = saver_with(&f.server.endpoint(), &f.memory_id, |o| {
            o.compress = compress
        });
        let p = place(&format!("chat-{compress}"), "");
        f.requests();
        f.server.reset_stats();
        saver
            .put(put(
                &p,
                &uuid6(),
                None,
                &[("messages", "1")],
                &[("messages", "1", &chat)],
            ))
            .await
            .unwrap();
        sent.push(f.server.stats().bytes_in);
        let t = newest(&f.cold_saver(), &p).await;
        assert_eq!(text(&t.values[0].value), chat);
    }
    assert!(
        sent[0] * 5 < sent[1],
        "compressed {} vs plain {}",
        sent[0],
        sent[1]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_split_across_pages_reads_whole() {
    let f = fixture().await;
    let saver = saver_with(&f.server.endpoint(), &f.memory_id, |o| {
        o.max_event_bytes = 16 * 1024
    });
    let p = place("many-parts", "");
    let first = uuid6();
    saver
        .put(put(
            &p,
            &first,
            None,
            &[("a", "1")],
            &[("a", "1", "\"small\"")],
        ))
        .await
        .unwrap();
    // About 180 parts: the head and its parts span two ListEvents pages.
    let id = uuid6();
    let mut req = put(&p, &id, Some(&first), &[("a", "2")], &[]);
    req.new_values.push(ChannelValue {
        channel: "a".into(),
        version: "2".into(),
        value: typed_bytes(noise(2 * MIB, 13)),
    });
    saver.put(req).await.unwrap();
    assert!(raw_events(&f, "tester", "many-parts").await.len() > 150);
    let cold = f.cold_saver();
    let t = newest(&cold, &p).await;
    assert_eq!(t.checkpoint_id, id);
    assert!(t.values[0].value.data == noise(2 * MIB, 13));
}
