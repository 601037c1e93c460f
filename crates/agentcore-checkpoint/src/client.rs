//! The AgentCore Memory calls the saver makes, on the official SDK.
//!
//! Retries are the SDK's standard mode: exponential backoff with full jitter
//! for throttling, 5xx, modelled-retryable errors (RetryableConflictException),
//! timeouts and dropped connections, bounded by attempts and by a total
//! operation timeout; anything else fails at once. The SDK's default retry
//! quota (a process-wide token bucket) is replaced by an unlimited one: under
//! sustained throttling it would stop retrying after a few hundred failures
//! and fail writes the service would have taken a moment later. Every
//! CreateEvent carries a clientToken, so a retry after a lost response cannot
//! create a second event.

use std::time::Duration;

use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use aws_config::{BehaviorVersion, Region};
use aws_credential_types::Credentials;
use aws_sdk_bedrockagentcore::operation::create_event::CreateEventError;
use aws_sdk_bedrockagentcore::primitives::DateTime;
use aws_sdk_bedrockagentcore::types::{
    Event, MetadataValue, PayloadType, ValidationExceptionReason,
};
use aws_sdk_bedrockagentcore::Client;
use aws_smithy_runtime::client::retries::{RetryPartition, TokenBucket};
use tokio::sync::{OnceCell, Semaphore, SemaphorePermit};

use crate::error::{Error, Result};
use crate::record::MARKER_KEY;

/// The error code of a CreateEvent whose clientToken was used before with
/// other bytes: the same event, serialised again (object keys come out in
/// another order), when a maintenance task is run again.
pub const TOKEN_REUSED: &str = "IdempotentParameterMismatch";

/// Requests one client sends at once; more wait their turn.
pub const MAX_IN_FLIGHT: usize = 64;

/// Most events ListEvents returns in one page.
pub const PAGE_SIZE: i32 = 100;
/// The first backoff, before jitter; it doubles with each attempt.
const INITIAL_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

#[derive(Debug, Clone)]
pub struct StaticCredentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub memory_id: String,
    pub region: Option<String>,
    pub endpoint: Option<String>,
    pub credentials: Option<StaticCredentials>,
    pub max_attempts: u32,
    pub connect_timeout: Duration,
    pub attempt_timeout: Duration,
    pub operation_timeout: Duration,
}

/// A connection to one memory. The SDK client is built on first use, as
/// resolving the AWS configuration is asynchronous.
pub struct MemoryClient {
    options: ClientOptions,
    client: OnceCell<Client>,
    in_flight: Semaphore,
}

impl MemoryClient {
    pub fn new(options: ClientOptions) -> Self {
        Self {
            options,
            client: OnceCell::new(),
            in_flight: Semaphore::new(MAX_IN_FLIGHT),
        }
    }

    pub fn memory_id(&self) -> &str {
        &self.options.memory_id
    }

    /// The SDK client, and a permit to send one request with it. Holding
    /// requests beyond MAX_IN_FLIGHT in a queue here bounds the memory of
    /// requests in flight and the connections open, whatever the caller's
    /// concurrency (a thousand graphs at once, say). The configuration
    /// future is boxed, and callers box the SDK's request futures: each is
    /// kilobytes, and every pending call would otherwise hold room for them.
    async fn sdk(&self) -> (&Client, SemaphorePermit<'_>) {
        let permit = self.in_flight.acquire().await.expect("never closed");
        (
            self.client
                .get_or_init(|| Box::pin(connect(&self.options)))
                .await,
            permit,
        )
    }

    pub async fn create_event(
        &self,
        actor: &str,
        session: &str,
        timestamp_ms: i64,
        payload: Vec<PayloadType>,
        marker: &str,
        client_token: String,
        extra: &[(&str, &str)],
    ) -> Result<String> {
        let (sdk, _permit) = self.sdk().await;
        let marker = MetadataValue::StringValue(marker.to_string());
        let mut request = sdk
            .create_event()
            .memory_id(self.memory_id())
            .actor_id(actor)
            .session_id(session)
            .event_timestamp(DateTime::from_millis(timestamp_ms))
            .set_payload(Some(payload))
            .metadata(MARKER_KEY, marker)
            .client_token(client_token);
        for (key, value) in extra {
            request = request.metadata(*key, MetadataValue::StringValue(value.to_string()));
        }
        let out = Box::pin(request.send()).await.map_err(|e| {
            let reused = matches!(
                e.as_service_error(),
                Some(CreateEventError::ValidationException(v))
                    if v.reason() == &ValidationExceptionReason::IdempotentParameterMismatchException
            );
            let mut err = Error::from_sdk("CreateEvent", e);
            if reused {
                err.code = TOKEN_REUSED.into();
            }
            err
        })?;
        Ok(out
            .event()
            .map(|e| e.event_id().to_string())
            .unwrap_or_default())
    }

    /// One page of a session's events, newest first as the service returns
    /// them (an order the readers check rather than trust).
    pub async fn list_events(
        &self,
        actor: &str,
        session: &str,
        next_token: Option<String>,
        include_payloads: bool,
    ) -> Result<(Vec<Event>, Option<String>)> {
        let (sdk, _permit) = self.sdk().await;
        let request = sdk
            .list_events()
            .memory_id(self.memory_id())
            .actor_id(actor)
            .session_id(session)
            .include_payloads(include_payloads)
            .max_results(PAGE_SIZE)
            .set_next_token(next_token);
        let out = Box::pin(request.send())
            .await
            .map_err(|e| Error::from_sdk("ListEvents", e))?;
        let token = out.next_token().map(str::to_string);
        Ok((out.events, token))
    }

    /// Every event of a session, page after page.
    pub async fn all_events(
        &self,
        actor: &str,
        session: &str,
        include_payloads: bool,
    ) -> Result<Vec<Event>> {
        let mut all = Vec::new();
        let mut token = None;
        loop {
            let (events, next) = self
                .list_events(actor, session, token, include_payloads)
                .await?;
            all.extend(events);
            token = next;
            if token.is_none() {
                return Ok(all);
            }
        }
    }

    pub async fn delete_event(&self, actor: &str, session: &str, event_id: &str) -> Result<()> {
        let (sdk, _permit) = self.sdk().await;
        let request = sdk
            .delete_event()
            .memory_id(self.memory_id())
            .actor_id(actor)
            .session_id(session)
            .event_id(event_id);
        let result = Box::pin(request.send()).await;
        match result {
            Ok(_) => Ok(()),
            // Already gone: deleting is idempotent.
            Err(e)
                if e.as_service_error()
                    .is_some_and(|s| s.is_resource_not_found_exception()) =>
            {
                Ok(())
            }
            Err(e) => Err(Error::from_sdk("DeleteEvent", e)),
        }
    }

    /// Every session of an actor.
    pub async fn list_sessions(&self, actor: &str) -> Result<Vec<String>> {
        let (sdk, _permit) = self.sdk().await;
        let request = sdk
            .list_sessions()
            .memory_id(self.memory_id())
            .actor_id(actor);
        let pages = request.max_results(PAGE_SIZE).into_paginator().send();
        let pages = Box::pin(pages.collect::<Vec<_>>()).await;
        let mut sessions = Vec::new();
        for page in pages {
            let page = page.map_err(|e| Error::from_sdk("ListSessions", e))?;
            sessions.extend(
                page.session_summaries()
                    .iter()
                    .map(|s| s.session_id().to_string()),
            );
        }
        Ok(sessions)
    }

    /// (actorId, sessionId) of every session of every actor: what a read
    /// across threads goes through, at one ListActors and one ListSessions
    /// per actor (and per page).
    pub async fn all_sessions(&self) -> Result<Vec<(String, String)>> {
        let mut all = Vec::new();
        for actor_id in self.list_actors().await? {
            let sessions = self.list_sessions(&actor_id).await?;
            all.extend(sessions.into_iter().map(|s| (actor_id.clone(), s)));
        }
        Ok(all)
    }

    /// Every actor of the memory.
    pub async fn list_actors(&self) -> Result<Vec<String>> {
        let (sdk, _permit) = self.sdk().await;
        let request = sdk.list_actors().memory_id(self.memory_id());
        let pages = request.max_results(PAGE_SIZE).into_paginator().send();
        let pages = Box::pin(pages.collect::<Vec<_>>()).await;
        let mut actors = Vec::new();
        for page in pages {
            let page = page.map_err(|e| Error::from_sdk("ListActors", e))?;
            actors.extend(
                page.actor_summaries()
                    .iter()
                    .map(|a| a.actor_id().to_string()),
            );
        }
        Ok(actors)
    }
}

/// The endpoint in force: the option, else the service's endpoint variable,
/// else the general one; `None` means AWS's own endpoint.
pub fn effective_endpoint(option: Option<&str>) -> Option<String> {
    option
        .map(str::to_string)
        .or_else(|| std::env::var("AWS_ENDPOINT_URL_BEDROCK_AGENTCORE").ok())
        .or_else(|| std::env::var("AWS_ENDPOINT_URL").ok())
        .filter(|e| !e.is_empty())
}

pub fn is_loopback(endpoint: &str) -> bool {
    let Ok(uri) = endpoint.parse::<http::Uri>() else {
        return false;
    };
    match uri.host() {
        Some("localhost") => true,
        Some(host) => host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback()),
        None => false,
    }
}

async fn connect(o: &ClientOptions) -> Client {
    let endpoint = effective_endpoint(o.endpoint.as_deref());
    let local = endpoint.as_deref().is_some_and(is_loopback);
    let timeouts = TimeoutConfig::builder()
        .connect_timeout(o.connect_timeout)
        .operation_attempt_timeout(o.attempt_timeout)
        .operation_timeout(o.operation_timeout)
        .build();
    let mut loader = aws_config::defaults(BehaviorVersion::latest())
        .retry_config(
            RetryConfig::standard()
                .with_max_attempts(o.max_attempts)
                .with_initial_backoff(INITIAL_BACKOFF)
                .with_max_backoff(MAX_BACKOFF),
        )
        .timeout_config(timeouts);
    if let Some(region) = o.region.clone().or_else(|| local.then(local_region)) {
        loader = loader.region(Region::new(region));
    }
    if let Some(endpoint) = &endpoint {
        loader = loader.endpoint_url(endpoint);
    }
    if let Some(c) = &o.credentials {
        let creds = Credentials::new(
            &c.access_key_id,
            &c.secret_access_key,
            c.session_token.clone(),
            None,
            "options",
        );
        loader = loader.credentials_provider(creds);
    } else if local {
        // Against a local server, never probe the instance metadata service:
        // environment credentials if set, otherwise placeholders.
        loader = loader.credentials_provider(local_credentials());
    }
    let retry_quota = RetryPartition::custom("langgraph-checkpoint-agentcore")
        .token_bucket(TokenBucket::unlimited())
        .build();
    let config = aws_sdk_bedrockagentcore::config::Builder::from(&loader.load().await)
        .retry_partition(retry_quota)
        .build();
    Client::from_conf(config)
}

fn local_region() -> String {
    std::env::var("AWS_REGION")
        .or_else(|_| std::env::var("AWS_DEFAULT_REGION"))
        .unwrap_or_else(|_| "us-east-1".into())
}

fn local_credentials() -> Credentials {
    match (
        std::env::var("AWS_ACCESS_KEY_ID"),
        std::env::var("AWS_SECRET_ACCESS_KEY"),
    ) {
        (Ok(key), Ok(secret)) => Credentials::new(
            key,
            secret,
            std::env::var("AWS_SESSION_TOKEN").ok(),
            None,
            "env",
        ),
        _ => Credentials::new("local", "local", None, None, "placeholder"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_loopback_endpoints() {
        assert!(is_loopback("http://127.0.0.1:4566"));
        assert!(is_loopback("http://localhost:8000/"));
        assert!(is_loopback("http://[::1]:9000"));
        assert!(is_loopback("http://127.5.5.5"));
        assert!(!is_loopback(
            "https://bedrock-agentcore.us-east-1.amazonaws.com"
        ));
        assert!(!is_loopback("http://10.0.0.1"));
        assert!(!is_loopback("not a url"));
    }
}
