//! Constraints of the service model: each violation is a ValidationException
//! (HTTP 400) naming the field, nothing is stored, and the value just inside
//! each limit is accepted (so a server refusing everything cannot pass).

mod common;

use aws_sdk_bedrockagentcore::operation::create_event::builders::CreateEventFluentBuilder;
use aws_sdk_bedrockagentcore::types::{MetadataValue, OperatorType};
use common::*;
use serde_json::json;

/// A CreateEvent with one small payload item, ready to be spoiled.
fn valid(scope: &Scope) -> CreateEventFluentBuilder {
    scope.create(T0).payload(blob(&json!(1)))
}

async fn refused(request: CreateEventFluentBuilder, field: &str) {
    send_err(request.send()).await.assert_validation(field);
}

async fn accepted(request: CreateEventFluentBuilder) {
    send_ok(request.send()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_id_must_be_well_formed() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    for bad in [
        "abc",
        "1startsdigit-abcdefghij",
        "no_suffix_at_all_here",
        "mem-short",
    ] {
        let bad_scope = Scope::in_memory(&scope.client, bad, "actor-1", "session-1");
        refused(valid(&bad_scope), "memoryId").await;
        send_err(bad_scope.list().send())
            .await
            .assert_validation("memoryId");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn actor_id_pattern_and_length() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    for bad in [
        "-leading-dash".to_string(),
        "has space".to_string(),
        "a::b".to_string(),
        "a".repeat(256),
    ] {
        refused(valid(&scope).actor_id(bad.clone()), "actorId").await;
        send_err(scope.with(&bad, "session-1").list().send())
            .await
            .assert_validation("actorId");
    }
    accepted(valid(&scope).actor_id("a".repeat(255))).await;
    accepted(valid(&scope).actor_id("user/7:role_x")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_id_pattern_and_length() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    for bad in [
        "thread:1".to_string(),
        "_leading".to_string(),
        "s".repeat(101),
    ] {
        refused(valid(&scope).session_id(bad.clone()), "sessionId").await;
        send_err(scope.with("actor-1", &bad).list().send())
            .await
            .assert_validation("sessionId");
    }
    accepted(valid(&scope).session_id("s".repeat(100))).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_one_hundred_payload_items() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let with_items = |n: usize| (0..n).fold(scope.create(T0), |r, i| r.payload(blob(&json!(i))));
    refused(with_items(101), "payload").await;
    assert!(
        scope.list_ids().await.is_empty(),
        "a refused event was stored"
    );
    accepted(with_items(100)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_fifteen_metadata_entries() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let with_entries = |n: usize| {
        (0..n).fold(valid(&scope), |r, i| {
            r.metadata(format!("key{i}"), MetadataValue::StringValue("v".into()))
        })
    };
    refused(with_entries(16), "metadata").await;
    assert!(
        scope.list_ids().await.is_empty(),
        "a refused event was stored"
    );
    accepted(with_entries(15)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_keys_and_values_are_constrained() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let entry = |k: &str, v: &str| valid(&scope).metadata(k, MetadataValue::StringValue(v.into()));
    refused(entry("bad|key", "v"), "metadata").await;
    refused(entry("bad#key", "v"), "metadata").await;
    refused(entry(&"k".repeat(129), "v"), "metadata").await;
    refused(entry("key", &"v".repeat(257)), "metadata").await;
    refused(entry("key", "pipe|value"), "metadata").await;
    refused(entry("key", "quote\"value"), "metadata").await;
    assert!(
        scope.list_ids().await.is_empty(),
        "a refused event was stored"
    );
    accepted(entry(&"k".repeat(128), &"v".repeat(256))).await;
    accepted(entry("a.b_c:d/e=f+g@h-i j", "")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_results_is_one_to_one_hundred() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    for bad in [0, 101, -1] {
        send_err(scope.list().max_results(bad).send())
            .await
            .assert_validation("maxResults");
    }
    send_ok(scope.list().max_results(1).send()).await;
    send_ok(scope.list().max_results(100).send()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_id_must_be_well_formed() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    for bad in ["not-an-event", "12345", "123#xyz", "#abc"] {
        let get = scope
            .client
            .get_event()
            .memory_id(&scope.memory)
            .actor_id(&scope.actor)
            .session_id(&scope.session)
            .event_id(bad);
        send_err(get.send()).await.assert_validation("eventId");
        let delete = scope
            .client
            .delete_event()
            .memory_id(&scope.memory)
            .actor_id(&scope.actor)
            .session_id(&scope.session)
            .event_id(bad);
        send_err(delete.send()).await.assert_validation("eventId");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_most_five_metadata_filter_expressions() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let expressions = |n: usize| {
        (0..n)
            .map(|i| metadata_filter(&format!("k{i}"), OperatorType::NotExists, None))
            .collect::<Vec<_>>()
    };
    let six = filter_of(expressions(6));
    send_err(scope.list().filter(six).send())
        .await
        .assert_validation("eventMetadata");
    send_ok(scope.list().filter(filter_of(expressions(5))).send()).await;
}
