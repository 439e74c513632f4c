//! Progressive generation: the SSE answer of POST /api/v1/generate-progressive as typed events.

use std::io::{BufRead, BufReader, Read};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;
use crate::Result;

/// The audio a `complete` event describes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressMetadata {
    pub provider: String,
    pub voice: String,
    pub generated_at: String,
    pub file_size: i64,
}

/// One event of progressive generation. An `error` event is not an event: the stream yields it as
/// an [`Error`] with its code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ProgressEvent {
    /// The generation began: `stream_url` is the audio as one stream that begins at once
    /// ([`crate::Client::open`] it and play while the rest is made).
    #[serde(rename_all = "camelCase")]
    Started { total_chunks: u32, stream_url: String },
    /// A chunk is ready: `chunk_audio_url` plays it alone (absent when the audio came from the cache).
    #[serde(rename_all = "camelCase")]
    Progress {
        completed: u32,
        total: u32,
        progress: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        chunk_index: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        chunk_audio_url: Option<String>,
    },
    /// The audio is complete and cached under `hash`.
    #[serde(rename_all = "camelCase")]
    Complete { hash: String, audio_url: String, duration: f64, chunks: u32, parallel_time: f64, cached: bool, metadata: ProgressMetadata },
}

/// The events of one progressive generation, in order: `Started`, `Progress`…, `Complete`, then
/// `None`. Dropping it early closes the stream (the gateway still finishes and caches the audio).
pub struct ProgressStream {
    reader: Option<BufReader<Box<dyn Read + Send + Sync + 'static>>>,
}

impl std::fmt::Debug for ProgressStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProgressStream").field("open", &self.reader.is_some()).finish()
    }
}

const MAX_EVENT_BYTES: usize = 1 << 20;

impl ProgressStream {
    pub(crate) fn new(reader: Box<dyn Read + Send + Sync + 'static>) -> ProgressStream {
        ProgressStream { reader: Some(BufReader::new(reader)) }
    }

    fn fail(&mut self, e: Error) -> Option<Result<ProgressEvent>> {
        self.reader = None;
        Some(Err(e.with_envelope(Some("tts"))))
    }

    /// The rest of the stream: every event up to and including `Complete`.
    pub fn collect_events(self) -> Result<Vec<ProgressEvent>> {
        self.collect()
    }
}

impl Iterator for ProgressStream {
    type Item = Result<ProgressEvent>;

    fn next(&mut self) -> Option<Self::Item> {
        let reader = self.reader.as_mut()?;
        let mut data = String::new();
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) => return self.fail(Error::new(crate::ErrorKind::Server, "SERVICE_UNAVAILABLE", 503, "event stream ended before the complete event")),
                Ok(_) => {}
                Err(e) => return self.fail(Error::unreachable(e)),
            }
            let text = line.trim_end_matches(&['\r', '\n'][..]);
            if !text.is_empty() {
                if let Some(value) = text.strip_prefix("data:") {
                    if !data.is_empty() {
                        data.push('\n');
                    }
                    data.push_str(value.strip_prefix(' ').unwrap_or(value));
                    if data.len() > MAX_EVENT_BYTES {
                        return self.fail(Error::invalid_response(200, "event larger than 1 MiB"));
                    }
                }
                continue; // comments, event:, id: and retry: carry nothing this stream uses
            }
            if data.is_empty() {
                continue;
            }
            let raw: Value = match serde_json::from_str(&data) {
                Ok(v) => v,
                Err(e) => return self.fail(Error::invalid_response(200, format!("unreadable event: {}", e))),
            };
            if raw.get("type").and_then(Value::as_str) == Some("error") {
                let code = raw.get("code").and_then(Value::as_str).unwrap_or("INTERNAL_ERROR");
                let message = raw.get("message").and_then(Value::as_str).unwrap_or("generation failed");
                let mut e = Error::from_code(code, message, 200);
                e.details.insert("event".to_string(), raw.clone());
                return self.fail(e);
            }
            return match serde_json::from_value::<ProgressEvent>(raw) {
                Ok(event) => {
                    if matches!(event, ProgressEvent::Complete { .. }) {
                        self.reader = None;
                    }
                    Some(Ok(event))
                }
                Err(e) => self.fail(Error::invalid_response(200, format!("event does not match its type: {} ({})", e, data))),
            };
        }
    }
}
