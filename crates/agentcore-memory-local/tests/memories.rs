//! Memories need no create call, and never see each other's data.

mod common;

use agentcore_memory_local::new_memory_id;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_well_formed_memory_id_works_on_first_use() {
    let server = start().await;
    let client = client(&server);
    // Ids of the service's shape, not only ones this crate generated.
    for memory in [
        new_memory_id(),
        "myMemory-AbCdE12345".to_string(),
        "m_x-y-0123456789".to_string(),
    ] {
        let scope = Scope::in_memory(&client, &memory, "actor-1", "session-1");
        let first = send_ok(scope.list().send()).await;
        assert!(first.events().is_empty());
        let event = scope.put(T0).await;
        assert_eq!(event.memory_id(), memory);
        assert_eq!(scope.list_ids().await, vec![event.event_id().to_string()]);
    }
}

/// Generated ids must have the service's shape (letter first, then
/// `-` and 10 alphanumerics at the end) and must not repeat.
#[test]
fn generated_memory_ids_are_fresh_and_well_formed() {
    let a = new_memory_id();
    assert_ne!(a, new_memory_id());
    let (head, tail) = a.rsplit_once('-').expect("a '-' before the suffix");
    assert!(head.starts_with(|c: char| c.is_ascii_alphabetic()), "{a}");
    assert_eq!(tail.len(), 10, "{a}");
    assert!(tail.chars().all(|c| c.is_ascii_alphanumeric()), "{a}");
}

/// Same actor and session names in two memories: nothing leaks across.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_memories_are_isolated() {
    let server = start().await;
    let client = client(&server);
    let one = Scope::in_memory(&client, &new_memory_id(), "actor-1", "session-1");
    let two = Scope::in_memory(&client, &new_memory_id(), "actor-1", "session-1");
    let in_one = one.put(T0).await;
    one.with("only-in-one", "s").put(T0).await;
    let in_two = two.put(T0 + 1).await;

    assert_eq!(one.list_ids().await, vec![in_one.event_id().to_string()]);
    assert_eq!(two.list_ids().await, vec![in_two.event_id().to_string()]);
    let cross_get = send_err(
        client
            .get_event()
            .memory_id(&two.memory)
            .actor_id("actor-1")
            .session_id("session-1")
            .event_id(in_one.event_id())
            .send(),
    )
    .await;
    cross_get.assert_code(404, "ResourceNotFoundException");

    let actors_two = send_ok(client.list_actors().memory_id(&two.memory).send()).await;
    let actors: Vec<&str> = actors_two
        .actor_summaries()
        .iter()
        .map(|a| a.actor_id())
        .collect();
    assert_eq!(actors, ["actor-1"]);
    let sessions = send_ok(
        client
            .list_sessions()
            .memory_id(&two.memory)
            .actor_id("only-in-one")
            .send(),
    )
    .await;
    assert!(sessions.session_summaries().is_empty());
}
