//! How a server is configured. The same struct is the command line of the
//! `agentcore-memory-local` binary, so the flags and their defaults are
//! declared once.

use std::path::PathBuf;

use clap::Parser;

/// A local Amazon Bedrock AgentCore Memory data plane (events, sessions,
/// actors) for development and tests.
#[derive(Debug, Clone, Parser)]
#[command(name = "agentcore-memory-local", version)]
pub struct Options {
    /// Address to bind. Loopback unless told otherwise.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Port to bind; 0 picks a free one.
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Keep events in SQLite under this directory instead of in memory.
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Request bodies larger than this are refused with HTTP 413.
    #[arg(long, value_name = "BYTES", default_value_t = 10_000_000)]
    pub max_request_bytes: usize,
    /// Delay added to every request, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub latency_ms: u64,
    /// Fraction of requests answered with 429 ThrottledException.
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    pub throttle_rate: f64,
    /// Fraction of requests answered with 500 ServiceException; half of those
    /// on writes are answered after the write was applied (a lost response).
    #[arg(long, value_name = "P", default_value_t = 0.0)]
    pub error_rate: f64,
    /// Seed of the fault injection, for repeatable runs.
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Requests served at once; more are refused with 429.
    #[arg(long, value_name = "N", default_value_t = 512)]
    pub max_in_flight: usize,
    /// The order of ListEvents pages. The service returns newest first, an
    /// observed behaviour AWS does not promise; `oldest-first` tests that a
    /// client stays correct without it.
    #[arg(long, value_enum, default_value_t = ListOrder::NewestFirst)]
    pub list_order: ListOrder,
}

/// The order in which ListEvents returns a session's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListOrder {
    NewestFirst,
    OldestFirst,
}

impl Default for Options {
    fn default() -> Self {
        Self::parse_from(["agentcore-memory-local"])
    }
}

impl Options {
    /// Rejects settings that cannot work, naming the option.
    pub fn check(&self) -> Result<(), String> {
        for (name, rate) in [
            ("throttle_rate", self.throttle_rate),
            ("error_rate", self.error_rate),
        ] {
            if !(0.0..=1.0).contains(&rate) {
                return Err(format!("{name} must be between 0 and 1, got {rate}"));
            }
        }
        if self.max_request_bytes == 0 {
            return Err("max_request_bytes must be at least 1".into());
        }
        if self.max_in_flight == 0 {
            return Err("max_in_flight must be at least 1".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_loopback_and_in_memory() {
        let o = Options::default();
        assert_eq!(
            (o.host.as_str(), o.port, o.max_request_bytes),
            ("127.0.0.1", 0, 10_000_000)
        );
        assert!(o.data_dir.is_none() && o.check().is_ok());
    }

    #[test]
    fn bad_rates_name_the_option() {
        let o = Options {
            error_rate: 1.5,
            ..Options::default()
        };
        assert!(o.check().unwrap_err().contains("error_rate"));
    }
}
