//! `agentcore-memory-local`: serve until SIGINT or SIGTERM.

use std::future::Future;
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
    // Listen for signals before announcing the endpoint: whoever reads it
    // may signal at once, and an unhandled signal would kill us uncleanly.
    let stop = stop_signal();
    println!("agentcore-memory-local listening on {}", server.endpoint());
    stop.await;
    server.close().await;
    ExitCode::SUCCESS
}

/// Resolves on the first SIGINT or SIGTERM; the handlers are in place as
/// soon as this returns.
fn stop_signal() -> impl Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut interrupt = signal(SignalKind::interrupt()).expect("SIGINT handler");
        let mut terminate = signal(SignalKind::terminate()).expect("SIGTERM handler");
        async move {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
        }
    }
    #[cfg(not(unix))]
    {
        let ctrl_c = tokio::signal::ctrl_c();
        async move {
            let _ = ctrl_c.await;
        }
    }
}
