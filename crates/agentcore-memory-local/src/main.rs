//! `agentcore-memory-local`: serve until SIGINT or SIGTERM.

use std::process::ExitCode;

use agentcore_memory_local::{LocalMemory, Options};
use clap::Parser;

#[tokio::main]
async fn main() -> ExitCode {
    let options = Options::parse();
    let server = match LocalMemory::start(options).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("agentcore-memory-local: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!("agentcore-memory-local listening on {}", server.endpoint());
    wait_for_stop_signal().await;
    server.close().await;
    ExitCode::SUCCESS
}

async fn wait_for_stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut terminate = signal(SignalKind::terminate()).expect("SIGTERM handler");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}
