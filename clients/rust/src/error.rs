//! Errors: the gateway's three envelopes read into one type.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The family of an [`Error`]; [`Error::code`] tells the exact case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// 400, 413, 415, 416: the request was refused (VALIDATION_ERROR, INVALID_VOICE, …).
    InvalidRequest,
    /// 401: missing or unknown key.
    Authentication,
    /// 403: the key lacks the permission.
    Authorization,
    /// 404, 410: no such resource, or it expired.
    NotFound,
    /// 409: e.g. a report that is not finished yet.
    Conflict,
    /// 429: wait [`Error::retry_after`].
    RateLimited,
    /// 5xx, or no answer at all (code SERVICE_UNAVAILABLE).
    Server,
    /// The answer does not match the OpenAPI document (code INVALID_RESPONSE).
    InvalidResponse,
    /// A call the client refused to make, e.g. an empty path parameter (code INVALID_ARGUMENT).
    InvalidArgument,
}

/// One field's problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

/// Every failure: the gateway's answer in any of its three error envelopes — TTS
/// `{error: {message, code, provider, details: {…, requestId}}}`, integration
/// `{error: {code, message, details: [{field, message}], requestId}}`, dashboard
/// `{error: {code, message, details: {…}}}` — or a failure to reach it.
#[derive(Debug)]
pub struct Error {
    pub kind: ErrorKind,
    /// The gateway's code (INVALID_VOICE, NOT_FOUND, …; see [`crate::ERROR_STATUS`]).
    pub code: String,
    /// The HTTP status (503 when the gateway could not be reached).
    pub status: u16,
    pub message: String,
    /// The envelope's object details (e.g. `supportedFrameworks` of INVALID_FRAMEWORK).
    pub details: Map<String, Value>,
    /// Per-field problems: the integration envelope's details list, or `details.fields`.
    pub fields: Vec<FieldError>,
    /// The id to quote to support.
    pub request_id: Option<String>,
    /// The speech provider the TTS envelope names, if any.
    pub provider: Option<String>,
    /// The wait the gateway asked for (`Retry-After`), if it did.
    pub retry_after: Option<Duration>,
    /// `"tts"`, `"integration"` or `"dashboard"`: which envelope the path answers errors with.
    pub envelope: Option<&'static str>,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, code: &str, status: u16, message: impl Into<String>) -> Error {
        Error {
            kind,
            code: code.to_string(),
            status,
            message: message.into(),
            details: Map::new(),
            fields: Vec::new(),
            request_id: None,
            provider: None,
            retry_after: None,
            envelope: None,
            source: None,
        }
    }

    pub(crate) fn unreachable(cause: impl std::error::Error + Send + Sync + 'static) -> Error {
        let mut e = Error::new(ErrorKind::Server, "SERVICE_UNAVAILABLE", 503, format!("gateway unreachable: {}", cause));
        e.source = Some(Box::new(cause));
        e
    }

    pub(crate) fn invalid_response(status: u16, message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidResponse, "INVALID_RESPONSE", status, message)
    }

    pub(crate) fn invalid_argument(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidArgument, "INVALID_ARGUMENT", 0, message)
    }

    pub(crate) fn with_envelope(mut self, envelope: Option<&'static str>) -> Error {
        self.envelope = envelope;
        self
    }

    /// The error of a code the gateway sent outside an HTTP answer (an SSE or WebSocket error event).
    pub(crate) fn from_code(code: &str, message: &str, status: u16) -> Error {
        let status = if status == 0 { crate::ERROR_STATUS.iter().find(|(c, _)| *c == code).map(|(_, s)| *s).unwrap_or(500) } else { status };
        Error::new(kind_of(code, status), code, status, message)
    }

    /// Whether this is the gateway's error of that code.
    pub fn is(&self, code: &str) -> bool {
        self.code == code
    }

    /// Reads any of the envelopes (TTS, integration, dashboard, OpenAI's); an answer without one gets the code of its status.
    pub(crate) fn from_answer(status: u16, body: &[u8], header: &dyn Fn(&str) -> Option<String>, envelope: &'static str) -> Error {
        let retry_after = header("Retry-After").and_then(|v| parse_retry_after(&v));
        let parsed: Option<Value> = serde_json::from_slice(body).ok();
        let env = parsed.as_ref().and_then(|v| v.get("error")).and_then(Value::as_object);
        let mut e = match env.and_then(|o| o.get("code")).and_then(Value::as_str) {
            Some(code) if !code.is_empty() => {
                let o = env.unwrap();
                let message = o.get("message").and_then(Value::as_str).unwrap_or_default();
                // OpenAI's envelope (/v1/audio/speech, /v1/models): the code lower-cased, `param` the field at fault.
                let code = if envelope == "openai" { code.to_uppercase() } else { code.to_string() };
                let mut e = Error::new(kind_of(&code, status), &code, status, message);
                if let Some(param) = o.get("param").and_then(Value::as_str).filter(|_| envelope == "openai") {
                    e.fields = vec![FieldError { field: param.to_string(), message: message.to_string() }];
                }
                e.provider = o.get("provider").and_then(Value::as_str).map(str::to_string);
                e.request_id = o.get("requestId").and_then(Value::as_str).map(str::to_string);
                match o.get("details") {
                    Some(Value::Array(list)) => e.fields = serde_json::from_value(Value::Array(list.clone())).unwrap_or_default(),
                    Some(Value::Object(map)) => {
                        e.details = map.clone();
                        if let Some(fields) = map.get("fields") {
                            e.fields = serde_json::from_value(fields.clone()).unwrap_or_default();
                        }
                        if e.request_id.is_none() {
                            e.request_id = map.get("requestId").and_then(Value::as_str).map(str::to_string);
                        }
                    }
                    _ => {}
                }
                e
            }
            _ => {
                let code = match status {
                    400 => "VALIDATION_ERROR",
                    401 => "AUTHENTICATION_ERROR",
                    403 => "AUTHORIZATION_ERROR",
                    404 => "NOT_FOUND",
                    409 => "CONFLICT",
                    410 => "GONE",
                    413 => "PAYLOAD_TOO_LARGE",
                    415 => "UNSUPPORTED_MEDIA_TYPE",
                    416 => "RANGE_NOT_SATISFIABLE",
                    429 => "RATE_LIMIT_EXCEEDED",
                    503 => "SERVICE_UNAVAILABLE",
                    s if s >= 500 => "INTERNAL_ERROR",
                    _ => "VALIDATION_ERROR",
                };
                Error::new(kind_of(code, status), code, status, format!("HTTP {}", status))
            }
        };
        if e.request_id.is_none() {
            e.request_id = header("X-Request-Id");
        }
        e.retry_after = retry_after;
        e.envelope = Some(envelope);
        e
    }
}

pub(crate) fn kind_of(code: &str, status: u16) -> ErrorKind {
    match (code, status) {
        ("AUTHENTICATION_ERROR", _) | (_, 401) => ErrorKind::Authentication,
        ("AUTHORIZATION_ERROR", _) | (_, 403) => ErrorKind::Authorization,
        ("NOT_FOUND", _) | ("GONE", _) | (_, 404) | (_, 410) => ErrorKind::NotFound,
        ("CONFLICT", _) | (_, 409) => ErrorKind::Conflict,
        ("RATE_LIMIT_EXCEEDED", _) | (_, 429) => ErrorKind::RateLimited,
        (_, s) if s >= 500 => ErrorKind::Server,
        _ => ErrorKind::InvalidRequest,
    }
}

/// `Retry-After` as seconds (an HTTP date is not waited for: the gateway sends seconds).
pub(crate) fn parse_retry_after(value: &str) -> Option<Duration> {
    let seconds: f64 = value.trim().parse().ok()?;
    if seconds.is_finite() && seconds >= 0.0 {
        Some(Duration::from_secs_f64(seconds))
    } else {
        None
    }
}

/// Which envelope a path answers errors with (the gateway chooses it by prefix).
pub(crate) fn envelope_of(path: &str) -> &'static str {
    if path.starts_with("/api/v1") {
        "tts"
    } else if path.starts_with("/v1/dashboard") || path.starts_with("/api/dashboard") {
        "dashboard"
    } else if path.starts_with("/v1/audio/") || path == "/v1/models" {
        "openai"
    } else {
        "integration"
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.code, self.status, self.message)?;
        if let Some(id) = &self.request_id {
            write!(f, " [request {}]", id)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_ref().map(|s| s.as_ref() as &(dyn std::error::Error + 'static))
    }
}
