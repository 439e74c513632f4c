//! Rust client of the speech & compliance gateway.
//!
//! Every REST operation of the gateway's OpenAPI document is a method of [`Client`] named by its
//! operationId in snake_case, with typed requests, queries and answers generated from the document
//! ([`types`], refreshed by the repository's `npm run codegen`). Failures are one [`Error`] type
//! read from whichever of the three error envelopes answered; 429 and 503 answers are retried as
//! `Retry-After` says. Progressive generation is an iterator of typed [`ProgressEvent`]s, the
//! dashboard WebSocket a [`DashboardStream`] of typed [`DashboardEvent`]s, webhooks are checked by
//! [`verify_webhook`], and [`Client::gate`] asks the release gate (also the `speech-gateway`
//! command).
//!
//! ```no_run
//! use speech_gateway::{Client, types::*};
//!
//! let gw = Client::new("http://localhost:3000", Some("sk_..."))?;
//! let speech = gw.generate_speech(&GenerateSpeechRequest { text: "Hello".into(), ..Default::default() })?;
//! let audio = gw.get_audio(&speech.hash)?;
//! let created = gw.create_requirement(&CreateRequirementRequest {
//!     title: "Audit log".into(),
//!     framework: Some("soc2".into()),
//!     ..Default::default()
//! })?;
//! # Ok::<(), speech_gateway::Error>(())
//! ```

// An Error carries the whole envelope (details, fields, request id): larger than clippy likes in a
// Result, and rare enough that its size costs nothing worth a box.
#![allow(clippy::result_large_err)]

mod client;
mod dashboard;
mod error;
mod gate;
mod generated;
mod operation;
mod progressive;
mod webhooks;
mod websocket;

pub use client::{BinaryResponse, Client, ClientBuilder, Result, StreamResponse};
pub use dashboard::{DashboardEvent, DashboardStream};
pub use error::{Error, ErrorKind, FieldError};
pub use gate::gate_command;
pub use generated::constants::*;
pub use generated::operations::OPERATIONS;
pub use operation::{operation, BodyKind, Operation, ResponseKind};
pub use progressive::{ProgressEvent, ProgressMetadata, ProgressStream};
pub use webhooks::{sign_webhook, verify_webhook, verify_webhook_with, RequirementEvent, VerifyOptions, WebhookEvent, WebhookSignatureError};
pub use websocket::Transport as SocketTransport;

/// The types of every body, query and JSON answer of the OpenAPI document (generated).
pub mod types {
    pub use crate::generated::types::*;
}
