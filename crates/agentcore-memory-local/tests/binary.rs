//! The `agentcore-memory-local` binary: one listening line on stdout, a
//! working endpoint, flags applied, and a clean exit on SIGTERM and SIGINT.

mod common;

use std::time::Duration;

use common::*;

/// Starts the binary, checks it serves, stops it with `signal` and returns
/// what it printed after the listening line.
async fn serve_then_stop(signal: &str, args: &[&str]) -> String {
    let mut server = ServerProcess::spawn(args).await;
    assert!(
        server.endpoint.starts_with("http://127.0.0.1:"),
        "{}",
        server.endpoint
    );
    let scope = Scope::new(&client_for(&server.endpoint));
    let event = scope.put(T0).await;
    assert_eq!(scope.list_ids().await, vec![event.event_id().to_string()]);
    server.signal(signal);
    let status = server.wait(Duration::from_secs(20)).await;
    assert_eq!(
        status.code(),
        Some(0),
        "SIG{signal} should exit 0: {status:?}"
    );
    server.rest_of_stdout().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_stops_cleanly_with_exit_code_zero() {
    let rest = serve_then_stop("TERM", &[]).await;
    assert_eq!(rest, "", "exactly one line on stdout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_stops_cleanly_with_exit_code_zero() {
    let rest = serve_then_stop("INT", &[]).await;
    assert_eq!(rest, "", "exactly one line on stdout");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_with_a_data_dir_keeps_the_data() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().to_str().unwrap().to_string();
    let memory = agentcore_memory_local::new_memory_id();
    let mut server = ServerProcess::spawn(&["--data-dir", &data_dir]).await;
    let scope = Scope::in_memory(&client_for(&server.endpoint), &memory, "a", "s");
    let event = scope.put(T0).await;
    server.signal("TERM");
    assert_eq!(server.wait(Duration::from_secs(20)).await.code(), Some(0));

    let server = ServerProcess::spawn(&["--data-dir", &data_dir]).await;
    let scope = Scope::in_memory(&client_for(&server.endpoint), &memory, "a", "s");
    assert_eq!(scope.list_ids().await, vec![event.event_id().to_string()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fault_flags_are_applied() {
    let server = ServerProcess::spawn(&["--throttle-rate", "1", "--seed", "3"]).await;
    let scope = Scope::new(&client_for(&server.endpoint));
    send_err(scope.list().send())
        .await
        .assert_code(429, "ThrottledException");
    let server = ServerProcess::spawn(&["--error-rate", "1.0"]).await;
    let scope = Scope::new(&client_for(&server.endpoint));
    send_err(scope.list().send())
        .await
        .assert_code(500, "ServiceException");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn size_and_latency_flags_are_applied() {
    let server =
        ServerProcess::spawn(&["--max-request-bytes", "1000", "--latency-ms", "150"]).await;
    let scope = Scope::new(&client_for(&server.endpoint));
    let started = std::time::Instant::now();
    send_ok(scope.list().send()).await;
    assert!(
        started.elapsed() >= Duration::from_millis(150),
        "{:?}",
        started.elapsed()
    );
    let big = scope
        .create(T0)
        .payload(blob(&serde_json::json!("x".repeat(5_000))));
    assert_eq!(send_err(big.send()).await.status, Some(413));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_explicit_port_is_used() {
    // Find a free port, release it, and ask the binary for it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = ServerProcess::spawn(&["--host", "127.0.0.1", "--port", &port.to_string()]).await;
    assert_eq!(server.endpoint, format!("http://127.0.0.1:{port}"));
    send_ok(Scope::new(&client_for(&server.endpoint)).list().send()).await;
}
