//! The service's error shapes: an `x-amzn-errortype` header naming the
//! exception and a JSON body with `message` (and, for validation errors,
//! `reason` and `fieldList`). Messages never echo payload contents.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: StatusCode,
    pub kind: &'static str,
    pub message: String,
    pub reason: Option<&'static str>,
    pub field: Option<String>,
}

impl ApiError {
    fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            kind,
            message: message.into(),
            reason: None,
            field: None,
        }
    }

    /// A field broke a constraint of the service model.
    pub fn field(field: &str, constraint: impl std::fmt::Display) -> Self {
        let message = format!(
            "1 validation error detected: Value at '{field}' failed to satisfy constraint: {constraint}"
        );
        Self {
            reason: Some("FieldValidationFailed"),
            field: Some(field.to_string()),
            ..Self::new(StatusCode::BAD_REQUEST, "ValidationException", message)
        }
    }

    /// The body is not the JSON the operation takes.
    pub fn cannot_parse(message: impl Into<String>) -> Self {
        Self {
            reason: Some("CannotParse"),
            ..Self::new(StatusCode::BAD_REQUEST, "ValidationException", message)
        }
    }

    pub fn idempotency_mismatch() -> Self {
        Self {
            reason: Some("IdempotentParameterMismatchException"),
            field: Some("clientToken".into()),
            ..Self::new(
                StatusCode::BAD_REQUEST,
                "ValidationException",
                "The clientToken was already used with different parameters",
            )
        }
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "ResourceNotFoundException", message)
    }

    pub fn throttled() -> Self {
        Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "ThrottledException",
            "Rate exceeded",
        )
    }

    pub fn service(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "ServiceException",
            message,
        )
    }

    pub fn too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "RequestEntityTooLargeException",
            format!("Request body exceeds the limit of {limit} bytes"),
        )
    }

    pub fn unknown_operation() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "UnknownOperationException",
            "Unknown operation",
        )
    }

    pub fn missing_authentication() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "MissingAuthenticationTokenException",
            "Missing Authentication Token",
        )
    }

    pub fn incomplete_signature(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "IncompleteSignatureException",
            message,
        )
    }

    pub fn body(&self) -> Vec<u8> {
        #[derive(Serialize)]
        struct Field<'a> {
            name: &'a str,
            message: &'a str,
        }
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Body<'a> {
            message: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            reason: Option<&'a str>,
            #[serde(skip_serializing_if = "Vec::is_empty")]
            field_list: Vec<Field<'a>>,
        }
        let field_list = self
            .field
            .iter()
            .map(|name| Field {
                name,
                message: &self.message,
            })
            .collect();
        serde_json::to_vec(&Body {
            message: &self.message,
            reason: self.reason,
            field_list,
        })
        .expect("error bodies serialise")
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, self.body()).into_response();
        let headers = response.headers_mut();
        headers.insert("x-amzn-errortype", HeaderValue::from_static(self.kind));
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        response
    }
}
