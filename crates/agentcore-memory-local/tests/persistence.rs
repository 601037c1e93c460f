//! With a data directory, everything survives a graceful restart: events,
//! deletions, sessions, actors and clientToken idempotency.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use agentcore_memory_local::{new_memory_id, LocalMemory, Options};
use aws_sdk_bedrockagentcore::types::MetadataValue;
use aws_sdk_bedrockagentcore::Client;
use common::*;
use serde_json::json;

async fn start_in(dir: &Path) -> LocalMemory {
    start_with(Options {
        data_dir: Some(dir.to_path_buf()),
        ..Options::default()
    })
    .await
}

/// Every event of every session of every actor, as (actor, session, one
/// line per event with id, timestamp, blobs and metadata), sorted, so whole
/// states compare with one assert.
async fn snapshot(client: &Client, memory: &str) -> Vec<(String, String, Vec<String>)> {
    let actors = send_ok(
        client
            .list_actors()
            .memory_id(memory)
            .max_results(100)
            .send(),
    )
    .await;
    let mut state = Vec::new();
    for actor in actors.actor_summaries() {
        let sessions = send_ok(
            client
                .list_sessions()
                .memory_id(memory)
                .actor_id(actor.actor_id())
                .max_results(100)
                .send(),
        )
        .await;
        for session in sessions.session_summaries() {
            let scope = Scope::in_memory(client, memory, actor.actor_id(), session.session_id());
            let events = scope.list_all(None, 100).await;
            let described = events
                .iter()
                .map(|e| {
                    format!(
                        "{} {} {:?} {:?}",
                        e.event_id(),
                        to_ms(e.event_timestamp()),
                        blobs(e),
                        metadata_map(e)
                            .into_iter()
                            .collect::<std::collections::BTreeMap<_, _>>()
                    )
                })
                .collect();
            state.push((
                actor.actor_id().to_string(),
                session.session_id().to_string(),
                described,
            ));
        }
    }
    state.sort();
    state
}

/// Writes three actors' sessions with tokens and metadata, then deletes one
/// event. Returns the ids of what was written.
async fn populate(client: &Client, memory: &str) -> Vec<String> {
    let mut made = Vec::new();
    for (a, actor) in ["alice", "bob", "carol"].iter().enumerate() {
        for (s, session) in ["s1", "s2"].iter().enumerate() {
            let scope = Scope::in_memory(client, memory, actor, session);
            for i in 0..5i64 {
                let ts = T0 + (a * 100 + s * 10) as i64 + i;
                let request = scope
                    .create(ts)
                    .payload(blob(&json!({ "actor": actor, "i": i })))
                    .metadata("n", MetadataValue::StringValue(i.to_string()))
                    .client_token(format!("tok-{actor}-{session}-{i}"));
                made.push(
                    send_ok(request.send())
                        .await
                        .event
                        .unwrap()
                        .event_id()
                        .to_string(),
                );
            }
        }
    }
    let scope = Scope::in_memory(client, memory, "alice", "s1");
    send_ok(
        client
            .delete_event()
            .memory_id(memory)
            .actor_id("alice")
            .session_id("s1")
            .event_id(&made[0])
            .send(),
    )
    .await;
    assert_eq!(scope.list_ids().await.len(), 4);
    made
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_keeps_events_sessions_and_actors() {
    let dir = tempfile::tempdir().unwrap();
    let memory = new_memory_id();
    let server = start_in(dir.path()).await;
    let made = populate(&client(&server), &memory).await;
    let before = snapshot(&client(&server), &memory).await;
    server.close().await;

    let server = start_in(dir.path()).await;
    let client = client(&server);
    let after = snapshot(&client, &memory).await;
    assert_eq!(after, before);
    assert_eq!(after.len(), 6, "3 actors x 2 sessions: {after:?}");
    let listed: BTreeSet<String> = after.iter().flat_map(|(_, _, e)| e.clone()).collect();
    assert_eq!(listed.len(), made.len() - 1, "all but the deleted event");
    // The deleted event stays deleted.
    let gone = send_err(
        client
            .get_event()
            .memory_id(&memory)
            .actor_id("alice")
            .session_id("s1")
            .event_id(&made[0])
            .send(),
    )
    .await;
    gone.assert_code(404, "ResourceNotFoundException");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_tokens_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let memory = new_memory_id();
    let server = start_in(dir.path()).await;
    let scope = Scope::in_memory(&client(&server), &memory, "actor-1", "session-1");
    let request = |scope: &Scope, content: &str| {
        scope
            .create(T0)
            .payload(blob(&json!(content)))
            .client_token("stable-token")
    };
    let first = send_ok(request(&scope, "same").send()).await.event.unwrap();
    server.close().await;

    let server = start_in(dir.path()).await;
    let scope = Scope::in_memory(&client(&server), &memory, "actor-1", "session-1");
    let replay = send_ok(request(&scope, "same").send()).await.event.unwrap();
    assert_eq!(replay.event_id(), first.event_id());
    assert_eq!(scope.list_ids().await, vec![first.event_id().to_string()]);
    send_err(request(&scope, "different").send())
        .await
        .assert_code(400, "ValidationException");
}

/// Two separate data directories are two separate stores.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_directories_do_not_share_state() {
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let memory = new_memory_id();
    let server = start_in(one.path()).await;
    Scope::in_memory(&client(&server), &memory, "a", "s")
        .put(T0)
        .await;
    server.close().await;
    let server = start_in(two.path()).await;
    let scope = Scope::in_memory(&client(&server), &memory, "a", "s");
    assert!(scope.list_ids().await.is_empty());
}
