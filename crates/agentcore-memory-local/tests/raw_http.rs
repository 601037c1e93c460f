//! Requests no SDK would send: bad JSON, wrong types, unknown routes and
//! missing credentials. Each gets a proper AWS-style error, and the server
//! keeps serving afterwards.

mod common;

use agentcore_memory_local::{new_memory_id, LocalMemory};
use common::*;

fn create_path() -> String {
    format!("/memories/{}/events", new_memory_id())
}

/// A valid SDK call after the bad requests: nothing hung or crashed.
async fn still_serving(server: &LocalMemory) {
    let scope = Scope::new(&client(server));
    let event = scope.put(T0).await;
    assert_eq!(scope.list_ids().await, vec![event.event_id().to_string()]);
}

fn assert_bad_request(response: &RawResponse) {
    assert_eq!(response.status, 400, "{response:?}");
    let kind = response.error_type();
    assert!(
        matches!(kind, Some("ValidationException" | "SerializationException")),
        "{response:?}"
    );
    response.assert_json_message();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_is_400() {
    let server = start().await;
    let endpoint = server.endpoint();
    for body in [
        &b"{not json"[..],
        b"{\"actorId\": \"a\",",
        b"[1, 2",
        b"\xff\xfe",
    ] {
        let response = raw_request(&endpoint, "POST", &create_path(), Some(RAW_AUTH), body).await;
        assert_bad_request(&response);
    }
    still_serving(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_json_types_are_400() {
    let server = start().await;
    let endpoint = server.endpoint();
    let bodies = [
        r#"{"actorId":"a","sessionId":"s","eventTimestamp":1750000000,"payload":"x"}"#,
        r#"{"actorId":7,"sessionId":"s","eventTimestamp":1750000000,"payload":[]}"#,
        r#"{"actorId":"a","sessionId":"s","eventTimestamp":"yesterday","payload":[]}"#,
        r#"[]"#,
    ];
    for body in bodies {
        let response = raw_request(
            &endpoint,
            "POST",
            &create_path(),
            Some(RAW_AUTH),
            body.as_bytes(),
        )
        .await;
        assert_bad_request(&response);
    }
    let list = format!("/memories/{}/actor/a/sessions/s", new_memory_id());
    let response = raw_request(
        &endpoint,
        "POST",
        &list,
        Some(RAW_AUTH),
        br#"{"maxResults":"ten"}"#,
    )
    .await;
    assert_bad_request(&response);
    still_serving(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_valid_raw_request_is_accepted() {
    // Guards the helper itself: the failures above are about the bodies,
    // not about how the raw requests are written.
    let server = start().await;
    let body = r#"{"actorId":"a","sessionId":"s","eventTimestamp":1750000000.5,"payload":[{"blob":{"x":1}}]}"#;
    let response = raw_request(
        &server.endpoint(),
        "POST",
        &create_path(),
        Some(RAW_AUTH),
        body.as_bytes(),
    )
    .await;
    assert_eq!(response.status, 201, "{response:?}");
    let event = &response.json()["event"];
    assert!(
        event["eventId"]
            .as_str()
            .unwrap()
            .starts_with("0000001750000000500#"),
        "{event}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_routes_are_404_unknown_operation() {
    let server = start().await;
    let endpoint = server.endpoint();
    let routes = [
        ("GET", "/".to_string()),
        ("POST", "/no/such/thing".to_string()),
        ("PUT", create_path()),
        ("GET", format!("/memories/{}/events", new_memory_id())),
    ];
    for (method, path) in routes {
        let response = raw_request(&endpoint, method, &path, Some(RAW_AUTH), b"{}").await;
        assert_eq!(response.status, 404, "{method} {path}: {response:?}");
        assert_eq!(
            response.error_type(),
            Some("UnknownOperationException"),
            "{response:?}"
        );
        response.assert_json_message();
    }
    still_serving(&server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_without_authorization_are_403() {
    let server = start().await;
    let endpoint = server.endpoint();
    let body =
        r#"{"actorId":"a","sessionId":"s","eventTimestamp":1750000000,"payload":[{"blob":1}]}"#;
    let response = raw_request(&endpoint, "POST", &create_path(), None, body.as_bytes()).await;
    assert_eq!(response.status, 403, "{response:?}");
    assert_eq!(
        response.error_type(),
        Some("MissingAuthenticationTokenException")
    );
    response.assert_json_message();
    let list = format!("/memories/{}/actors", new_memory_id());
    let response = raw_request(&endpoint, "POST", &list, None, b"{}").await;
    assert_eq!(response.status, 403, "{response:?}");
    still_serving(&server).await;
}

/// A client that sends half a request and goes away must not wedge the
/// server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandoned_connections_do_not_wedge_the_server() {
    use tokio::io::AsyncWriteExt;
    let server = start().await;
    let host = server.endpoint().trim_start_matches("http://").to_string();
    for partial in [
        "POST /memories/x/events HTTP/1.1\r\nHost: h\r\n".to_string(),
        format!(
            "POST {} HTTP/1.1\r\nHost: h\r\nAuthorization: {RAW_AUTH}\r\nContent-Length: 100\r\n\r\n{{\"actor",
            create_path()
        ),
    ] {
        let mut stream = within(tokio::net::TcpStream::connect(&host)).await.unwrap();
        within(stream.write_all(partial.as_bytes())).await.unwrap();
        drop(stream);
    }
    still_serving(&server).await;
}
