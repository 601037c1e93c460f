//! max_request_bytes: a body over the limit is refused with HTTP 413 and
//! nothing is stored; a body under it is served normally.

mod common;

use agentcore_memory_local::Options;
use common::*;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn small_limit_server() -> agentcore_memory_local::LocalMemory {
    start_with(Options {
        max_request_bytes: 100_000,
        ..Options::default()
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_create_event_is_413_and_not_stored() {
    let server = small_limit_server().await;
    let scope = Scope::new(&client(&server));
    let big = "x".repeat(150_000);
    let request = scope.create(T0).payload(blob(&json!({ "big": big })));
    let failure = send_err(request.send()).await;
    assert_eq!(failure.status, Some(413), "{failure:?}");
    assert!(
        scope.list_ids().await.is_empty(),
        "the oversized event was stored"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_under_the_limit_is_accepted() {
    let server = small_limit_server().await;
    let scope = Scope::new(&client(&server));
    let fits = "y".repeat(60_000);
    let request = scope.create(T0).payload(blob(&json!({ "fits": fits })));
    let event = send_ok(request.send()).await.event.unwrap();
    let listed = scope.list_all(None, 10).await;
    assert_eq!(ids(&listed), vec![event.event_id().to_string()]);
    assert_eq!(
        blobs(&listed[0]),
        vec![json!({ "fits": "y".repeat(60_000) })]
    );
}

/// Many items, each small, adding up to more than the limit: the size check
/// is on the whole body, not per item.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_small_items_over_the_limit_are_413() {
    let server = small_limit_server().await;
    let scope = Scope::new(&client(&server));
    let item = "z".repeat(2_000);
    let request = (0..80).fold(scope.create(T0), |r, i| r.payload(blob(&json!([i, item]))));
    let failure = send_err(request.send()).await;
    assert_eq!(failure.status, Some(413), "{failure:?}");
    assert!(scope.list_ids().await.is_empty());
}

/// Connects to `server` and sends the head of a CreateEvent that declares
/// `content_length` bytes of body, and none of the body.
async fn raw_create_head(
    server: &agentcore_memory_local::LocalMemory,
    content_length: usize,
) -> TcpStream {
    let endpoint = server.endpoint();
    let host = endpoint.trim_start_matches("http://");
    let mut stream = TcpStream::connect(host).await.unwrap();
    let head = format!(
        "POST /memories/{}/events HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Content-Length: {content_length}\r\nAuthorization: {RAW_AUTH}\r\n\r\n",
        agentcore_memory_local::new_memory_id()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream
}

/// The start of the server's answer on `stream`.
async fn raw_answer(stream: &mut TcpStream) -> String {
    let mut buf = vec![0u8; 4096];
    let n = stream.read(&mut buf).await.unwrap();
    String::from_utf8_lossy(&buf[..n]).to_string()
}

/// A raw request that declares a huge body but never sends it must be
/// answered (from Content-Length alone) instead of waiting for the bytes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declared_oversized_body_is_refused_without_reading_it() {
    let server = small_limit_server().await;
    let response = within(async {
        let mut stream = raw_create_head(&server, 50_000_000).await;
        raw_answer(&mut stream).await
    })
    .await;
    assert!(response.starts_with("HTTP/1.1 413"), "{response:?}");
}

/// A client still sending an oversized body when the 413 is decided (as
/// the SDKs do: they write the body after the head) can finish sending and
/// read the answer, rather than fail with a broken pipe.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_still_sending_a_refused_body_reads_the_413() {
    let server = small_limit_server().await;
    let response = within(async {
        let body = vec![b'x'; 2_000_000];
        let mut stream = raw_create_head(&server, body.len()).await;
        // The server has answered by now; the body is still to come.
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        for chunk in body.chunks(64 * 1024) {
            stream.write_all(chunk).await.expect("the body is taken in");
        }
        raw_answer(&mut stream).await
    })
    .await;
    assert!(response.starts_with("HTTP/1.1 413"), "{response:?}");
}
