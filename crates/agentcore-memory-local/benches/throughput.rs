//! Server throughput with the official SDK on loopback.
//!
//! `cargo bench -p agentcore-memory-local --bench throughput`
//!
//! Runs the release server binary as its own process, drives it with
//! concurrent SDK clients, and reports CreateEvent/s and ListEvents/s (full
//! pages of 100 events with 1 KiB payloads), for the in-memory store and for
//! `--data-dir`. The clients share the machine's cores with the server, so
//! it also reports the server's own CPU time per request (from /proc), the
//! figure that shows whether the server or the clients are the limit.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aws_config::retry::RetryConfig;
use aws_config::{BehaviorVersion, Region};
use aws_credential_types::Credentials;
use aws_sdk_bedrockagentcore::primitives::DateTime;
use aws_sdk_bedrockagentcore::types::PayloadType;
use aws_sdk_bedrockagentcore::Client;
use aws_smithy_types::Document;

const MEMORY: &str = "bench-abcdefghij";
const CONCURRENCY: usize = 32;
const SESSIONS: usize = 64;
const CREATES: usize = 20_000;
const LISTS: usize = 5_000;

struct Server {
    child: Child,
    endpoint: String,
}

impl Server {
    fn start(extra: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_agentcore-memory-local"))
            .args(["--port", "0", "--max-in-flight", "4096"])
            .args(extra)
            .stdout(Stdio::piped())
            .spawn()
            .expect("server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let endpoint = line.trim().rsplit(' ').next().unwrap().to_string();
        Self { child, endpoint }
    }

    /// User plus system CPU time of the server process so far.
    fn cpu(&self) -> Duration {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let ticks: u64 = fields
            .get(11..13)
            .map_or(0, |f| f.iter().map(|t| t.parse::<u64>().unwrap_or(0)).sum());
        Duration::from_millis(ticks * 10) // USER_HZ is 100 on Linux
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn client(endpoint: &str) -> Client {
    let config = aws_sdk_bedrockagentcore::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("AKIDBENCH", "secret", None, None, "bench"))
        .endpoint_url(endpoint)
        .retry_config(RetryConfig::disabled())
        .build();
    Client::from_conf(config)
}

fn kib_payload(i: usize) -> PayloadType {
    let text = "x".repeat(1000);
    PayloadType::Blob(Document::Object(
        [
            ("i".to_string(), Document::from(i as u64)),
            ("data".to_string(), Document::String(text)),
        ]
        .into(),
    ))
}

/// Runs `total` calls of `call` over CONCURRENCY tasks; returns calls/s and
/// server CPU microseconds per call.
async fn measure<F, Fut>(server: &Server, total: usize, call: F) -> (f64, f64)
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let call = Arc::new(call);
    let cpu_before = server.cpu();
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for worker in 0..CONCURRENCY {
        let call = call.clone();
        tasks.spawn(async move {
            for i in (worker..total).step_by(CONCURRENCY) {
                call(i).await;
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.expect("worker");
    }
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = (server.cpu() - cpu_before).as_secs_f64();
    (total as f64 / elapsed, cpu * 1e6 / total as f64)
}

async fn run(label: &str, extra: &[&str]) -> String {
    let server = Server::start(extra);
    let sdk = client(&server.endpoint);
    let c = sdk.clone();
    let (creates, create_cpu) = measure(&server, CREATES, move |i| {
        let c = c.clone();
        async move {
            c.create_event()
                .memory_id(MEMORY)
                .actor_id("bench")
                .session_id(format!("session-{}", i % SESSIONS))
                .event_timestamp(DateTime::from_millis(1_700_000_000_000 + i as i64))
                .payload(kib_payload(i))
                .send()
                .await
                .expect("CreateEvent");
        }
    })
    .await;
    let c = sdk.clone();
    let (lists, list_cpu) = measure(&server, LISTS, move |i| {
        let c = c.clone();
        async move {
            let page = c
                .list_events()
                .memory_id(MEMORY)
                .actor_id("bench")
                .session_id(format!("session-{}", i % SESSIONS))
                .max_results(100)
                .send()
                .await
                .expect("ListEvents");
            assert_eq!(page.events().len(), 100);
        }
    })
    .await;
    format!(
        "| {label} | {creates:.0} | {create_cpu:.0} | {:.0} | {lists:.0} | {list_cpu:.0} | {:.0} |",
        2e6 / create_cpu.max(1.0),
        2e6 / list_cpu.max(1.0)
    )
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().to_str().unwrap().to_string();
    println!(
        "{CONCURRENCY} concurrent SDK clients, {CREATES} CreateEvent (1 KiB blob) over {SESSIONS} sessions, \
         then {LISTS} ListEvents of 100 events; {} cores shared by clients and server.\n",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!("| store | CreateEvent/s | server CPU µs/create | server capacity creates/s (2 cores) | ListEvents/s | server CPU µs/list | server capacity lists/s (2 cores) |");
    println!("|---|---|---|---|---|---|---|");
    println!("{}", run("memory", &[]).await);
    println!(
        "{}",
        run("--data-dir (SQLite)", &["--data-dir", &data_dir]).await
    );
}
