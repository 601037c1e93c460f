//! `startLocalMemory()`: the local AgentCore Memory server, in-process.

use std::collections::HashMap;

use agentcore_memory_local::{ListOrder, LocalMemory, Options};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use tokio::sync::Mutex;

/// Options of `startLocalMemory`, the CLI flags in camelCase.
#[napi(object)]
#[derive(Default)]
pub struct LocalMemoryOptions {
    /// Address to bind. Default `127.0.0.1`.
    pub host: Option<String>,
    /// Port to bind; 0 picks a free one. Default 0.
    pub port: Option<f64>,
    /// Keep events on disk in this directory (SQLite). Default: in memory.
    pub data_dir: Option<String>,
    /// Request bodies larger than this get HTTP 413. Default 10,000,000.
    pub max_request_bytes: Option<f64>,
    /// Delay added to every request, in milliseconds. Default 0.
    pub latency_ms: Option<f64>,
    /// Fraction of requests answered with 429 ThrottledException. Default 0.
    pub throttle_rate: Option<f64>,
    /// Fraction of requests answered with 500 ServiceException. Default 0.
    pub error_rate: Option<f64>,
    /// Seed for the fault injection, for repeatable runs.
    pub seed: Option<f64>,
    /// Requests served at once; more are refused with 429. Default 512.
    pub max_in_flight: Option<f64>,
    /// `"newest-first"` (the service's observed order, default) or
    /// `"oldest-first"`, to test that a client does not depend on it.
    pub list_order: Option<String>,
    /// The memoryId handed back as `memoryId`. Default: a fresh random one.
    pub memory_id: Option<String>,
}

/// Request and byte counters of a running server.
#[napi(object)]
pub struct LocalMemoryStats {
    pub requests: HashMap<String, u32>,
    pub bytes_in: f64,
    pub bytes_out: f64,
    /// Requests answered with 429, injected or for overload.
    pub throttled: f64,
    /// Requests answered with an injected 500.
    pub errors: f64,
}

/// A running local AgentCore Memory server.
#[napi]
pub struct LocalMemoryServer {
    endpoint: String,
    memory_id: String,
    server: Mutex<Option<LocalMemory>>,
}

#[napi]
impl LocalMemoryServer {
    /// The base URL to pass as `endpoint`, e.g. `http://127.0.0.1:43117`.
    #[napi(getter)]
    pub fn endpoint(&self) -> String {
        self.endpoint.clone()
    }

    /// A memoryId ready to use; any other well-formed memoryId works too.
    #[napi(getter)]
    pub fn memory_id(&self) -> String {
        self.memory_id.clone()
    }

    /// Requests per operation and bytes in and out since start or the last reset.
    #[napi]
    pub fn stats(&self) -> Result<LocalMemoryStats> {
        let guard = self.server.try_lock().map_err(|_| closing_error())?;
        let stats = guard.as_ref().ok_or_else(closed_error)?.stats();
        Ok(LocalMemoryStats {
            requests: stats
                .requests
                .into_iter()
                .map(|(op, n)| (op, n as u32))
                .collect(),
            bytes_in: stats.bytes_in as f64,
            bytes_out: stats.bytes_out as f64,
            throttled: stats.throttled as f64,
            errors: stats.errors as f64,
        })
    }

    /// Zeroes the counters.
    #[napi]
    pub fn reset_stats(&self) -> Result<()> {
        let guard = self.server.try_lock().map_err(|_| closing_error())?;
        guard.as_ref().ok_or_else(closed_error)?.reset_stats();
        Ok(())
    }

    /// Stops accepting requests, finishes the ones in flight and closes the
    /// store. Calling it again is harmless.
    #[napi]
    pub async fn close(&self) -> Result<()> {
        if let Some(server) = self.server.lock().await.take() {
            server.close().await;
        }
        Ok(())
    }
}

/// Starts a local AgentCore Memory server on loopback.
#[napi]
pub async fn start_local_memory(options: Option<LocalMemoryOptions>) -> Result<LocalMemoryServer> {
    let options = options.unwrap_or_default();
    let memory_id = match options.memory_id.clone() {
        Some(id) => {
            agentcore_checkpoint::check_memory_id(&id).map_err(|e| invalid(&e.message))?;
            id
        }
        None => agentcore_memory_local::new_memory_id(),
    };
    let server = LocalMemory::start(to_core_options(options)?)
        .await
        .map_err(|e| Error::new(Status::GenericFailure, e.to_string()))?;
    Ok(LocalMemoryServer {
        endpoint: server.endpoint(),
        memory_id,
        server: Mutex::new(Some(server)),
    })
}

fn to_core_options(o: LocalMemoryOptions) -> Result<Options> {
    let d = Options::default();
    Ok(Options {
        host: o.host.unwrap_or(d.host),
        port: whole("port", o.port, 0, u16::MAX.into())?.map_or(d.port, |p| p as u16),
        data_dir: o.data_dir.map(Into::into),
        max_request_bytes: whole("maxRequestBytes", o.max_request_bytes, 1, u32::MAX.into())?
            .map_or(d.max_request_bytes, |n| n as usize),
        latency_ms: whole("latencyMs", o.latency_ms, 0, 3_600_000)?.unwrap_or(d.latency_ms),
        throttle_rate: rate("throttleRate", o.throttle_rate)?.unwrap_or(d.throttle_rate),
        error_rate: rate("errorRate", o.error_rate)?.unwrap_or(d.error_rate),
        seed: whole("seed", o.seed, 0, (1u64 << 53) - 1)?,
        max_in_flight: whole("maxInFlight", o.max_in_flight, 1, 1_000_000)?
            .map_or(d.max_in_flight, |n| n as usize),
        list_order: match o.list_order.as_deref() {
            None | Some("newest-first") => ListOrder::NewestFirst,
            Some("oldest-first") => ListOrder::OldestFirst,
            Some(other) => {
                return Err(invalid(&format!(
                    "listOrder must be \"newest-first\" or \"oldest-first\", got {other:?}"
                )))
            }
        },
    })
}

/// A whole number in `min..=max`, or an error naming the option.
fn whole(name: &str, value: Option<f64>, min: u64, max: u64) -> Result<Option<u64>> {
    match value {
        None => Ok(None),
        Some(v) if v.fract() == 0.0 && v >= min as f64 && v <= max as f64 => Ok(Some(v as u64)),
        Some(v) => Err(invalid(&format!(
            "{name} must be a whole number from {min} to {max}, got {v}"
        ))),
    }
}

/// A fraction in `0..=1`, or an error naming the option.
fn rate(name: &str, value: Option<f64>) -> Result<Option<f64>> {
    match value {
        Some(v) if !(0.0..=1.0).contains(&v) => {
            Err(invalid(&format!("{name} must be between 0 and 1, got {v}")))
        }
        v => Ok(v),
    }
}

fn invalid(message: &str) -> Error {
    Error::new(Status::InvalidArg, format!("startLocalMemory: {message}"))
}

fn closed_error() -> Error {
    Error::new(Status::GenericFailure, "the local memory server is closed")
}

fn closing_error() -> Error {
    Error::new(Status::GenericFailure, "the local memory server is closing")
}
