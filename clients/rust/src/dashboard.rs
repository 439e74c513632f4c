//! The dashboard WebSocket (`/v1/dashboard/ws`): subscribe to event types, receive typed events.

use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, ErrorKind};
use crate::webhooks::{requirement_of, RequirementEvent};
use crate::websocket::{Message, Transport, WebSocket};
use crate::{Client, Result};

/// One event of the dashboard WebSocket.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DashboardEvent {
    /// One of [`crate::WS_EVENT_TYPES`]: `requirement_updated`, `compliance_changed`, ….
    #[serde(rename = "type")]
    pub event_type: String,
    /// The changed record.
    pub data: Value,
    pub timestamp: String,
    /// The event's id, the same as the `webhook-id` of its webhook delivery.
    pub id: String,
    /// The dotted domain event (`requirement.updated`, …), the webhook's `type`.
    pub event: String,
}

impl DashboardEvent {
    /// The typed data of a `requirement.created` or `requirement.updated` event.
    pub fn requirement(&self) -> Result<RequirementEvent> {
        requirement_of(&self.event, &self.data)
    }
}

/// A subscription on the dashboard WebSocket; an iterator of events (blocking). Events published
/// while it is not connected are not replayed (webhooks are the at-least-once channel); after an
/// error, open a new one. Dropping it closes the socket.
pub struct DashboardStream {
    ws: WebSocket,
    subscribed: Vec<String>,
    ended: bool,
}

impl std::fmt::Debug for DashboardStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DashboardStream").field("subscribed", &self.subscribed).field("ended", &self.ended).finish()
    }
}

/// A message of the socket: its `type` and the whole JSON.
struct Frame {
    frame_type: String,
    data: Value,
    raw: Value,
}

impl Client {
    /// Connects to the dashboard WebSocket with the client's key (it needs `read:dashboard`),
    /// subscribes to the event types (empty: all of [`crate::WS_EVENT_TYPES`]) and returns once the
    /// gateway has confirmed. A refused key is an [`Error`] (401 or 403). For `https://` gateways
    /// give a TLS stream to [`Client::dashboard_events_over`].
    pub fn dashboard_events(&self, event_types: &[&str]) -> Result<DashboardStream> {
        let rest = self
            .base_url()
            .strip_prefix("http://")
            .ok_or_else(|| Error::invalid_argument("dashboard_events opens plain ws:// sockets; for an https:// gateway use dashboard_events_over with a TLS stream"))?;
        let authority = rest.split('/').next().unwrap_or(rest);
        let address = if authority.contains(':') && !authority.ends_with(']') { authority.to_string() } else { format!("{}:80", authority) };
        let addrs: Vec<_> = address.to_socket_addrs().map_err(Error::unreachable)?.collect();
        let mut last = None;
        for addr in addrs {
            match TcpStream::connect_timeout(&addr, Duration::from_secs(10)) {
                Ok(stream) => {
                    let _ = stream.set_nodelay(true);
                    return self.dashboard_events_over(Box::new(stream), event_types);
                }
                Err(e) => last = Some(e),
            }
        }
        Err(Error::unreachable(last.unwrap_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, format!("no address for {}", authority)))))
    }

    /// [`Client::dashboard_events`] over a stream already connected to the gateway (e.g. TLS).
    pub fn dashboard_events_over(&self, stream: Box<dyn Transport>, event_types: &[&str]) -> Result<DashboardStream> {
        let host = self.base_url().split("://").nth(1).unwrap_or_default().split('/').next().unwrap_or_default().to_string();
        let mut headers = Vec::new();
        if let Some(key) = self.api_key() {
            headers.push(("Authorization".to_string(), format!("Bearer {}", key)));
        }
        stream.set_read_timeout(Some(Duration::from_secs(30))).map_err(Error::unreachable)?;
        let ws = WebSocket::handshake(stream, &host, "/v1/dashboard/ws", &headers)?;
        let events: Vec<&str> = if event_types.is_empty() { crate::WS_EVENT_TYPES.to_vec() } else { event_types.to_vec() };
        let mut s = DashboardStream { ws, subscribed: Vec::new(), ended: false };
        let subscribe = serde_json::json!({ "type": "subscribe", "events": events });
        s.ws.send_text(&subscribe.to_string()).map_err(Error::unreachable)?;
        // The confirmation comes before any event of the subscription.
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::new(ErrorKind::Server, "SERVICE_UNAVAILABLE", 503, "the gateway did not confirm the subscription within 30 s"));
            }
            if let Some(frame) = s.frame(Some(left))? {
                if frame.frame_type == "subscribed" {
                    s.subscribed = serde_json::from_value(frame.data.get("events").cloned().unwrap_or_default()).unwrap_or_default();
                    return Ok(s);
                }
            }
        }
    }
}

impl DashboardStream {
    /// The event types the gateway confirmed.
    pub fn subscribed(&self) -> &[String] {
        &self.subscribed
    }

    /// The next frame that is not a pong; `None` when the wait ran out. An error frame is an [`Error`].
    fn frame(&mut self, timeout: Option<Duration>) -> Result<Option<Frame>> {
        if self.ended {
            return Err(Error::new(ErrorKind::Server, "SERVICE_UNAVAILABLE", 503, "dashboard socket closed").with_envelope(Some("dashboard")));
        }
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let left = match deadline {
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Ok(None);
                    }
                    Some(left)
                }
                None => None,
            };
            let message = match self.ws.read_message(left) {
                Ok(Some(m)) => m,
                Ok(None) => return Ok(None),
                Err(e) => {
                    self.ended = true;
                    return Err(Error::unreachable(e).with_envelope(Some("dashboard")));
                }
            };
            let text = match message {
                Message::Text(t) => t,
                Message::Binary => continue,
                Message::Closed(code, reason) => {
                    self.ended = true;
                    return Err(Error::new(ErrorKind::Server, "SERVICE_UNAVAILABLE", 503, format!("dashboard socket closed by the gateway ({} {})", code, reason))
                        .with_envelope(Some("dashboard")));
                }
            };
            let frame = match serde_json::from_str::<Value>(&text) {
                Ok(raw) => match raw.get("type").and_then(Value::as_str) {
                    Some(t) => Frame { frame_type: t.to_string(), data: raw.get("data").cloned().unwrap_or(Value::Null), raw },
                    None => continue,
                },
                Err(_) => continue, // not a JSON frame: nothing of the contract
            };
            match frame.frame_type.as_str() {
                "pong" | "unsubscribed" => continue,
                "error" => {
                    let code = frame.data.get("code").and_then(Value::as_str).unwrap_or("VALIDATION_ERROR");
                    let message = frame.data.get("message").and_then(Value::as_str).unwrap_or("refused by the gateway");
                    let mut e = Error::from_code(code, message, 0).with_envelope(Some("dashboard"));
                    if let Some(details) = frame.data.get("details").and_then(Value::as_object) {
                        e.details = details.clone();
                    }
                    return Err(e);
                }
                _ => return Ok(Some(frame)),
            }
        }
    }

    /// Waits up to `timeout` (`None`: for ever) for the next event; `Ok(None)` when the wait ran out
    /// (the stream stays usable).
    pub fn next_event(&mut self, timeout: Option<Duration>) -> Result<Option<DashboardEvent>> {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if left.map_or(false, |l| l.is_zero()) {
                return Ok(None);
            }
            let frame = match self.frame(left)? {
                Some(f) => f,
                None => return Ok(None),
            };
            if frame.frame_type == "subscribed" {
                continue;
            }
            return serde_json::from_value(frame.raw)
                .map(Some)
                .map_err(|e| Error::invalid_response(101, format!("a dashboard event does not match its layout: {}", e)).with_envelope(Some("dashboard")));
        }
    }

    /// Sends an application ping (the gateway answers pong, which the stream skips).
    pub fn ping(&mut self) -> Result<()> {
        self.ws.send_text(r#"{"type":"ping"}"#).map_err(Error::unreachable)
    }

    /// Leaves the socket.
    pub fn close(mut self) {
        self.shut();
    }

    fn shut(&mut self) {
        if !self.ended {
            self.ended = true;
            self.ws.close(1000, "client done");
        }
    }
}

impl Iterator for DashboardStream {
    type Item = Result<DashboardEvent>;

    /// Blocks until the next event; `None` after the stream failed once (the failure is yielded first).
    fn next(&mut self) -> Option<Self::Item> {
        if self.ended {
            return None;
        }
        match self.next_event(None) {
            Ok(Some(e)) => Some(Ok(e)),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

impl Drop for DashboardStream {
    fn drop(&mut self) {
        self.shut();
    }
}
