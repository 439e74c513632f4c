//! The operation table's entry type.

use crate::generated::operations::OPERATIONS;

/// How an operation's request body is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    None,
    Json,
    Bytes,
}

/// How an operation's answer is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseKind {
    Json,
    Binary,
    Sse,
    Empty,
    Head,
}

/// One REST operation of the OpenAPI document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operation {
    pub id: &'static str,
    pub method: &'static str,
    pub path: &'static str,
    pub body: BodyKind,
    pub response: ResponseKind,
}

/// The operation of an operationId.
pub fn operation(id: &str) -> Option<&'static Operation> {
    OPERATIONS.iter().find(|op| op.id == id)
}
