//! Webhook signature verification and the typed `requirement.updated` event.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Sha256;

use crate::error::Error;
use crate::types::Requirement;

/// A webhook delivery's body: `{id, type, data, createdAt}`. `id` is the same on every retry of
/// one delivery (and in the `webhook-id` header): de-duplicate on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebhookEvent {
    pub id: String,
    /// One of [`crate::WEBHOOK_EVENT_TYPES`]: `requirement.created`, `requirement.updated`, ….
    #[serde(rename = "type")]
    pub event_type: String,
    pub data: Value,
    #[serde(rename = "createdAt")]
    pub created_at: String,
}

/// The data of `requirement.created` and `requirement.updated`: the requirement as it now is, and
/// for an update the fields that changed and the status before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequirementEvent {
    #[serde(flatten)]
    pub requirement: Requirement,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Vec<String>>,
    #[serde(default, rename = "previousStatus", skip_serializing_if = "Option::is_none")]
    pub previous_status: Option<String>,
}

pub(crate) fn requirement_of(event_type: &str, data: &Value) -> Result<RequirementEvent, Error> {
    if event_type != "requirement.created" && event_type != "requirement.updated" {
        return Err(Error::invalid_argument(format!("a {} event does not carry a requirement", event_type)));
    }
    serde_json::from_value(data.clone()).map_err(|e| Error::invalid_response(200, format!("the data of {} does not match a requirement: {}", event_type, e)))
}

impl WebhookEvent {
    /// The typed data of a `requirement.created` or `requirement.updated` event.
    pub fn requirement(&self) -> Result<RequirementEvent, Error> {
        requirement_of(&self.event_type, &self.data)
    }
}

/// A delivery whose signature is missing, malformed, wrong or stale: answer 401.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookSignatureError(pub String);

impl fmt::Display for WebhookSignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "webhook signature: {}", self.0)
    }
}

impl std::error::Error for WebhookSignatureError {}

/// Tunes [`verify_webhook_with`].
#[derive(Debug, Clone, Copy)]
pub struct VerifyOptions {
    /// The largest accepted age of the signature's timestamp (default 5 minutes): older (replayed)
    /// deliveries fail.
    pub tolerance: Duration,
    /// The current time in unix seconds (default: the clock), for tests.
    pub now: Option<u64>,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions { tolerance: Duration::from_secs(300), now: None }
    }
}

fn mac(secret: &str, timestamp: &str, body: &[u8]) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

fn hex_decode(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

/// Verifies a delivery with the default options; see [`verify_webhook_with`].
pub fn verify_webhook(raw_body: &[u8], signature_header: Option<&str>, secret: &str) -> Result<WebhookEvent, WebhookSignatureError> {
    verify_webhook_with(raw_body, signature_header, secret, VerifyOptions::default())
}

/// Checks a delivery's `x-service-signature` header,
/// `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, in constant time, and the
/// timestamp's age; then returns the event. Give it the raw body exactly as received.
pub fn verify_webhook_with(raw_body: &[u8], signature_header: Option<&str>, secret: &str, options: VerifyOptions) -> Result<WebhookEvent, WebhookSignatureError> {
    let header = signature_header.filter(|h| !h.is_empty()).ok_or_else(|| WebhookSignatureError("missing x-service-signature header".into()))?;
    if secret.is_empty() {
        return Err(WebhookSignatureError("no webhook secret given".into()));
    }
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        if let Some((key, value)) = part.split_once('=') {
            match key.trim() {
                "t" => timestamp = Some(value.trim().to_string()),
                "v1" => signatures.extend(hex_decode(value.trim())),
                _ => {}
            }
        }
    }
    let timestamp =
        timestamp.filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())).ok_or_else(|| WebhookSignatureError("malformed x-service-signature header".into()))?;
    let t: u64 = timestamp.parse().map_err(|_| WebhookSignatureError("malformed x-service-signature header".into()))?;
    if signatures.is_empty() {
        return Err(WebhookSignatureError("malformed x-service-signature header".into()));
    }
    if !signatures.iter().any(|sig| mac(secret, &timestamp, raw_body).verify_slice(sig).is_ok()) {
        return Err(WebhookSignatureError("signature does not match".into()));
    }
    let now = options.now.unwrap_or_else(|| SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0));
    if now.abs_diff(t) > options.tolerance.as_secs() {
        return Err(WebhookSignatureError(format!("signature timestamp is more than {} s away from now", options.tolerance.as_secs())));
    }
    serde_json::from_slice(raw_body).map_err(|_| WebhookSignatureError("body is not a webhook event".into()))
}

/// Signs a body as the gateway does (for a receiver's own tests).
pub fn sign_webhook(raw_body: &[u8], secret: &str, timestamp: u64) -> String {
    let t = timestamp.to_string();
    let digest = mac(secret, &t, raw_body).finalize().into_bytes();
    let hex: String = digest.iter().map(|b| format!("{:02x}", b)).collect();
    format!("t={},v1={}", t, hex)
}
