//! clientToken: a retried CreateEvent must not duplicate the event, and a
//! token reused for different content must be refused.

mod common;

use aws_sdk_bedrockagentcore::operation::create_event::CreateEventError;
use aws_sdk_bedrockagentcore::types::{MetadataValue, ValidationExceptionReason};
use common::*;
use serde_json::json;

fn request(
    scope: &Scope,
    token: &str,
    content: &str,
) -> aws_sdk_bedrockagentcore::operation::create_event::builders::CreateEventFluentBuilder {
    scope
        .create(T0)
        .payload(blob(&json!({ "content": content })))
        .metadata("k", MetadataValue::StringValue("v".into()))
        .client_token(token)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_token_returns_the_first_event() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let first = send_ok(request(&scope, "token-1", "same").send())
        .await
        .event
        .unwrap();
    let second = send_ok(request(&scope, "token-1", "same").send())
        .await
        .event
        .unwrap();
    assert_eq!(first.event_id(), second.event_id());
    assert_eq!(blobs(&second), vec![json!({ "content": "same" })]);
    assert_eq!(scope.list_ids().await, vec![first.event_id().to_string()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn distinct_tokens_make_distinct_events() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let a = send_ok(request(&scope, "token-a", "same").send())
        .await
        .event
        .unwrap();
    let b = send_ok(request(&scope, "token-b", "same").send())
        .await
        .event
        .unwrap();
    assert_ne!(a.event_id(), b.event_id());
    assert_eq!(scope.list_ids().await.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_reused_with_other_content_is_refused() {
    let server = start().await;
    let scope = Scope::new(&client(&server));
    let first = send_ok(request(&scope, "token-x", "original").send())
        .await
        .event
        .unwrap();
    let err = within(request(&scope, "token-x", "changed").send())
        .await
        .expect_err("a mismatched replay must fail");
    failure(&err).assert_code(400, "ValidationException");
    match err.as_service_error() {
        Some(CreateEventError::ValidationException(v)) => assert_eq!(
            v.reason(),
            &ValidationExceptionReason::IdempotentParameterMismatchException
        ),
        other => panic!("expected a ValidationException, got {other:?}"),
    }
    // The original stands, and nothing was added.
    assert_eq!(scope.list_ids().await, vec![first.event_id().to_string()]);
    let listed = scope.list_all(None, 10).await;
    assert_eq!(blobs(&listed[0]), vec![json!({ "content": "original" })]);
}
