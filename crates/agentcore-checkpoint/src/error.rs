//! Errors: bad input named by field, and AgentCore failures carrying the
//! service's error name, the HTTP status and the operation. Messages never
//! include credentials or payload contents.

use aws_sdk_bedrockagentcore::error::{ProvideErrorMetadata, SdkError};

#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    /// The service's error name (`ThrottledException`, ...), or one of
    /// `InvalidArgument`, `TimeoutError`, `NetworkError`, `ResponseError`.
    pub code: String,
    pub status: Option<u16>,
    pub operation: Option<&'static str>,
    pub message: String,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Bad input from the caller; `field` names what is wrong.
    pub fn invalid(field: &str, problem: impl std::fmt::Display) -> Self {
        Self {
            code: "InvalidArgument".into(),
            status: None,
            operation: None,
            message: format!("{field} {problem}"),
        }
    }

    /// A fault of this library, not of the input or the service.
    pub fn internal(problem: impl std::fmt::Display) -> Self {
        Self {
            code: "InternalError".into(),
            status: None,
            operation: None,
            message: problem.to_string(),
        }
    }

    /// A failed AgentCore call.
    pub fn from_sdk<E, R>(operation: &'static str, err: SdkError<E, R>) -> Self
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
        R: std::fmt::Debug + HasStatus,
    {
        let (code, status, detail) = match &err {
            SdkError::ServiceError(e) => (
                e.err().code().unwrap_or("UnknownError").to_string(),
                Some(e.raw().status_code()),
                e.err().message().unwrap_or("no message").to_string(),
            ),
            SdkError::TimeoutError(_) => {
                ("TimeoutError".into(), None, "the request timed out".into())
            }
            SdkError::DispatchFailure(d) => {
                let code = if d.is_timeout() {
                    "TimeoutError"
                } else {
                    "NetworkError"
                };
                (code.into(), None, source_chain(&err))
            }
            SdkError::ResponseError(e) => (
                "ResponseError".into(),
                Some(e.raw().status_code()),
                "the response could not be read".into(),
            ),
            _ => ("RequestError".into(), None, source_chain(&err)),
        };
        let message = match status {
            Some(s) => format!("AgentCore {operation} failed: {code} (HTTP {s}): {detail}"),
            None => format!("AgentCore {operation} failed: {code}: {detail}"),
        };
        Self {
            code,
            status,
            operation: Some(operation),
            message,
        }
    }

    /// Whether another attempt may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self.code.as_str(),
            "ThrottledException"
                | "ThrottlingException"
                | "ServiceException"
                | "RetryableConflictException"
                | "TimeoutError"
                | "NetworkError"
        ) || self.status.is_some_and(|s| s >= 500)
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// The HTTP status of a raw response.
pub trait HasStatus {
    fn status_code(&self) -> u16;
}

impl HasStatus for aws_smithy_runtime_api::http::Response {
    fn status_code(&self) -> u16 {
        self.status().as_u16()
    }
}

fn source_chain(err: &dyn std::error::Error) -> String {
    let mut parts = vec![err.to_string()];
    let mut source = err.source();
    while let Some(s) = source {
        parts.push(s.to_string());
        source = s.source();
    }
    parts.join(": ")
}
