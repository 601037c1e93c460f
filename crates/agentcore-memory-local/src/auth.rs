//! SigV4: every request must be signed for the `bedrock-agentcore` service.
//! The header is parsed so that unsigned or mis-scoped clients fail here as
//! they would against AWS; the signature itself is not verified.

use axum::http::{header, HeaderMap};

use crate::error::ApiError;

const ALGORITHM: &str = "AWS4-HMAC-SHA256";
const SERVICE: &str = "bedrock-agentcore";

pub fn check(headers: &HeaderMap) -> Result<(), ApiError> {
    let value = headers
        .get(header::AUTHORIZATION)
        .ok_or_else(ApiError::missing_authentication)?;
    let value = value
        .to_str()
        .map_err(|_| ApiError::incomplete_signature("Authorization header is not ASCII"))?;
    let rest = value
        .strip_prefix(ALGORITHM)
        .and_then(|r| r.strip_prefix(' '))
        .ok_or_else(|| {
            ApiError::incomplete_signature(format!("Authorization header must use {ALGORITHM}"))
        })?;
    let part = |name: &str| {
        rest.split(',')
            .map(str::trim)
            .find_map(|p| p.strip_prefix(name).and_then(|p| p.strip_prefix('=')))
            .filter(|v| !v.is_empty())
            .ok_or_else(|| {
                ApiError::incomplete_signature(format!("Authorization header requires '{name}'"))
            })
    };
    let credential = part("Credential")?;
    part("SignedHeaders")?;
    part("Signature")?;
    // Credential = access-key/date/region/service/aws4_request
    let scope: Vec<&str> = credential.split('/').collect();
    match scope.as_slice() {
        [key, _date, _region, service, "aws4_request"] if !key.is_empty() => {
            if *service == SERVICE {
                Ok(())
            } else {
                Err(ApiError::incomplete_signature(format!(
                    "Credential should be scoped to the service '{SERVICE}'"
                )))
            }
        }
        _ => Err(ApiError::incomplete_signature(
            "Credential is not a valid SigV4 credential scope",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(auth: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, HeaderValue::from_str(auth).unwrap());
        h
    }

    #[test]
    fn accepts_a_sigv4_header_for_the_service() {
        let ok = "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/bedrock-agentcore/aws4_request, SignedHeaders=host;x-amz-date, Signature=abc123";
        assert!(check(&headers(ok)).is_ok());
    }

    #[test]
    fn refuses_missing_and_malformed_headers() {
        assert_eq!(
            check(&HeaderMap::new()).unwrap_err().kind,
            "MissingAuthenticationTokenException"
        );
        assert_eq!(
            check(&headers("Bearer x")).unwrap_err().kind,
            "IncompleteSignatureException"
        );
        let other = "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=abc";
        assert!(check(&headers(other))
            .unwrap_err()
            .message
            .contains("bedrock-agentcore"));
        let unsigned = "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/bedrock-agentcore/aws4_request, SignedHeaders=host";
        assert!(check(&headers(unsigned))
            .unwrap_err()
            .message
            .contains("Signature"));
    }
}
