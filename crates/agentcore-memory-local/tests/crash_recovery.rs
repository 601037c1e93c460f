//! Durability of acknowledged writes: a CreateEvent that got its 201 must
//! survive the server process being killed with SIGKILL right after.

mod common;

use agentcore_memory_local::new_memory_id;
use common::*;
use serde_json::json;

const WRITERS: i64 = 8;
const PER_WRITER: i64 = 25;

/// Writes from 8 concurrent tasks, one session each; returns every
/// acknowledged (session, eventId, i).
async fn write_concurrently(endpoint: &str, memory: &str) -> Vec<(String, String, i64)> {
    let client = client_for(endpoint);
    let mut tasks = Vec::new();
    for w in 0..WRITERS {
        let scope = Scope::in_memory(&client, memory, "actor-1", &format!("writer-{w}"));
        tasks.push(tokio::spawn(async move {
            let mut acked = Vec::new();
            for i in 0..PER_WRITER {
                let n = w * PER_WRITER + i;
                let request = scope.create(T0 + n).payload(blob(&json!({ "n": n })));
                let event = send_ok(request.send()).await.event.unwrap();
                acked.push((scope.session.clone(), event.event_id().to_string(), n));
            }
            acked
        }));
    }
    let mut acked = Vec::new();
    for task in tasks {
        acked.extend(within(task).await.unwrap());
    }
    acked
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_events_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().to_str().unwrap().to_string();
    let memory = new_memory_id();

    let mut first = ServerProcess::spawn(&["--data-dir", &data_dir]).await;
    let acked = write_concurrently(&first.endpoint, &memory).await;
    assert_eq!(acked.len(), (WRITERS * PER_WRITER) as usize);
    first.kill9();

    let second = ServerProcess::spawn(&["--data-dir", &data_dir]).await;
    let client = client_for(&second.endpoint);
    for w in 0..WRITERS {
        let scope = Scope::in_memory(&client, &memory, "actor-1", &format!("writer-{w}"));
        let listed = scope.list_all(None, 100).await;
        let mut expected: Vec<&(String, String, i64)> = acked
            .iter()
            .filter(|(s, _, _)| *s == scope.session)
            .collect();
        expected.sort_by(|a, b| b.2.cmp(&a.2));
        let expected_ids: Vec<String> = expected.iter().map(|(_, id, _)| id.clone()).collect();
        assert_eq!(ids(&listed), expected_ids, "session {}", scope.session);
        for (event, (_, _, n)) in listed.iter().zip(&expected) {
            assert_eq!(blobs(event), vec![json!({ "n": n })]);
        }
    }
}
