//! Single events: CreateEvent, GetEvent and DeleteEvent round trips, the
//! shape of event ids, and what "missing" looks like.

mod common;

use aws_sdk_bedrockagentcore::types::{
    Branch, Content, Conversational, MemoryJsonData, MetadataValue, PayloadType, Role,
};
use common::*;
use serde_json::json;

/// A document exercising every JSON kind plus escapes and non-ASCII text, so
/// a server that re-encodes or truncates the blob is caught.
fn rich_document() -> serde_json::Value {
    json!({
        "checkpoint": { "v": 4, "channels": ["messages", "__start__"], "ok": true },
        "negative": -17,
        "float": 1.5,
        "nothing": null,
        "text": "quote \" backslash \\ newline \n tab \t héllo ✓ 😀",
        "nested": [[1, 2], { "deep": [{ "deeper": "x" }] }],
        "empty_object": {},
        "empty_array": []
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blob_payload_metadata_and_branch_round_trip() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let root = scope.put(T0).await;
    let branch = Branch::builder()
        .name("alt-branch")
        .root_event_id(root.event_id())
        .build()
        .unwrap();
    let created = send_ok(
        scope
            .create(T0 + 1_000)
            .payload(blob(&rich_document()))
            .metadata("kind", MetadataValue::StringValue("checkpoint".into()))
            .metadata(
                "ns",
                MetadataValue::StringValue("parent:task/1 a=b+c@d".into()),
            )
            .branch(branch)
            .send(),
    )
    .await
    .event
    .unwrap();
    let got = send_ok(
        scope
            .client
            .get_event()
            .memory_id(&scope.memory)
            .actor_id(&scope.actor)
            .session_id(&scope.session)
            .event_id(created.event_id())
            .send(),
    )
    .await
    .event
    .unwrap();
    // The create response and a later read must both carry everything sent.
    for event in [&created, &got] {
        assert_eq!(
            (event.memory_id(), event.actor_id(), event.session_id()),
            (scope.memory.as_str(), "actor-1", "session-1")
        );
        assert_eq!(blobs(event), vec![rich_document()]);
        let metadata = metadata_map(event);
        assert_eq!(metadata.len(), 2, "{metadata:?}");
        assert_eq!(metadata["kind"], "checkpoint");
        assert_eq!(metadata["ns"], "parent:task/1 a=b+c@d");
        let branch = event.branch().expect("branch kept");
        assert_eq!(branch.name(), "alt-branch");
        assert_eq!(branch.root_event_id(), Some(root.event_id()));
        assert_eq!(to_ms(event.event_timestamp()), T0 + 1_000);
    }
    assert_eq!(got.event_id(), created.event_id());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conversational_json_and_blob_items_keep_their_order() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let conversational = Conversational::builder()
        .content(Content::Text("Hello, how are you? ✓".into()))
        .role(Role::User)
        .build()
        .unwrap();
    let json_item = MemoryJsonData::builder()
        .content(document(&json!({ "k": [1, "two", { "three": 3 }] })))
        .build()
        .unwrap();
    let created = send_ok(
        scope
            .create(T0)
            .payload(PayloadType::Conversational(conversational))
            .payload(PayloadType::Json(json_item))
            .payload(blob(&json!("a bare string is a JSON document too")))
            .send(),
    )
    .await
    .event
    .unwrap();
    let listed = scope.list_all(None, 10).await;
    assert_eq!(ids(&listed), vec![created.event_id().to_string()]);
    let payload = listed[0].payload();
    assert_eq!(payload.len(), 3, "{payload:?}");
    let conv = payload[0]
        .as_conversational()
        .expect("first item conversational");
    assert_eq!(conv.role(), &Role::User);
    assert_eq!(
        conv.content()
            .and_then(|c| c.as_text().ok())
            .map(String::as_str),
        Some("Hello, how are you? ✓")
    );
    let json_content = payload[1].as_json().expect("second item json").content();
    assert_eq!(
        to_json(json_content),
        json!({ "k": [1, "two", { "three": 3 }] })
    );
    let blob_content = payload[2].as_blob().expect("third item blob");
    assert_eq!(
        to_json(blob_content),
        json!("a bare string is a JSON document too")
    );
}

/// `<19-digit zero-padded epoch ms>#<hex>`, the ms prefix being the event's
/// own timestamp: clients rely on ids sorting chronologically as strings.
fn assert_event_id_shape(event_id: &str, ts_ms: i64) {
    let (millis, hex) = event_id.split_once('#').expect("'#' in eventId");
    assert_eq!(millis.len(), 19, "{event_id}");
    assert!(millis.bytes().all(|b| b.is_ascii_digit()), "{event_id}");
    assert!(
        !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()),
        "{event_id}"
    );
    assert_eq!(millis.parse::<i64>().unwrap(), ts_ms, "{event_id}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_ids_encode_the_millisecond_timestamp() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    // Sub-second values that f64 cannot represent exactly.
    for ts in [T0 + 123, T0 + 999, T0 + 1, T0 + 7_654_321, now_ms()] {
        let event = scope.put(ts).await;
        assert_event_id_shape(event.event_id(), ts);
        assert_eq!(to_ms(event.event_timestamp()), ts);
        let listed = scope.list_all(None, 100).await;
        let same = listed
            .iter()
            .find(|e| e.event_id() == event.event_id())
            .unwrap();
        assert_eq!(to_ms(same.event_timestamp()), ts);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_removes_the_event_from_get_and_list() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let keep = scope.put(T0).await;
    let doomed = scope.put(T0 + 1).await;
    let deleted = send_ok(
        scope
            .client
            .delete_event()
            .memory_id(&scope.memory)
            .actor_id(&scope.actor)
            .session_id(&scope.session)
            .event_id(doomed.event_id())
            .send(),
    )
    .await;
    assert_eq!(deleted.event_id(), doomed.event_id());
    get_missing(&scope, doomed.event_id()).await;
    assert_eq!(scope.list_ids().await, vec![keep.event_id().to_string()]);
    // A second delete finds nothing to delete.
    let again = send_err(
        scope
            .client
            .delete_event()
            .memory_id(&scope.memory)
            .actor_id(&scope.actor)
            .session_id(&scope.session)
            .event_id(doomed.event_id())
            .send(),
    )
    .await;
    again.assert_code(404, "ResourceNotFoundException");
}

async fn get_missing(scope: &Scope, event_id: &str) {
    let failure = send_err(
        scope
            .client
            .get_event()
            .memory_id(&scope.memory)
            .actor_id(&scope.actor)
            .session_id(&scope.session)
            .event_id(event_id)
            .send(),
    )
    .await;
    failure.assert_code(404, "ResourceNotFoundException");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_events_are_not_found() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    // Well-formed but never created.
    get_missing(&scope, "0001750000000000#abcdef01").await;
    // An event exists, but only in another session or actor: events are
    // addressed by their full path, not by id alone.
    let event = scope.put(T0).await;
    get_missing(&scope.with("actor-1", "other-session"), event.event_id()).await;
    get_missing(&scope.with("other-actor", "session-1"), event.event_id()).await;
    let delete_elsewhere = send_err(
        scope
            .client
            .delete_event()
            .memory_id(&scope.memory)
            .actor_id(&scope.actor)
            .session_id("other-session")
            .event_id(event.event_id())
            .send(),
    )
    .await;
    delete_elsewhere.assert_code(404, "ResourceNotFoundException");
    // ...and the failed delete elsewhere did not touch the real one.
    assert_eq!(scope.list_ids().await, vec![event.event_id().to_string()]);
}
