//! The HTTP side: URLs, the key, bodies, retries and answers.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::Read;
use std::thread;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::error::{envelope_of, parse_retry_after, Error};
use crate::operation::{operation, BodyKind, Operation};
use crate::progressive::ProgressStream;

/// The result of every call.
pub type Result<T> = std::result::Result<T, Error>;

/// A binary answer (audio, a report file): its bytes and the headers that describe them.
#[derive(Debug, Clone)]
pub struct BinaryResponse {
    pub status: u16,
    pub body: Vec<u8>,
    pub content_type: String,
    /// Every header, names in lower case.
    pub headers: Vec<(String, String)>,
}

impl BinaryResponse {
    /// The first header of that name (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        header_in(&self.headers, name)
    }
}

fn header_in<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// An answer read as it arrives ([`Client::open`]): the audio stream of progressive generation
/// plays while the rest is made. It is a [`Read`].
pub struct StreamResponse {
    pub status: u16,
    pub content_type: String,
    /// Every header, names in lower case.
    pub headers: Vec<(String, String)>,
    reader: Box<dyn Read + Send + Sync + 'static>,
}

impl StreamResponse {
    /// The first header of that name (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        header_in(&self.headers, name)
    }
}

impl Read for StreamResponse {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.reader.read(buf)
    }
}

impl std::fmt::Debug for StreamResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamResponse").field("status", &self.status).field("content_type", &self.content_type).finish()
    }
}

/// Configures a [`Client`]; [`Client::builder`] makes one.
#[derive(Debug, Clone)]
pub struct ClientBuilder {
    base_url: String,
    api_key: Option<String>,
    headers: Vec<(String, String)>,
    timeout: Option<Duration>,
    max_retries: u32,
    max_retry_wait: Duration,
}

impl ClientBuilder {
    /// An issued key (`sk_…`) or the gateway's ADMIN_API_KEY, sent as `Authorization: Bearer`.
    pub fn api_key(mut self, key: &str) -> Self {
        self.api_key = Some(key.to_string()).filter(|k| !k.is_empty());
        self
    }

    /// A header sent with every request.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Bounds each request/answer call, retries aside (default 60 s; `None`: no bound). Progressive
    /// generation and [`Client::open`] streams are never bounded: they last as long as the audio takes.
    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// How often a 429 or 503 answer is retried (default 2; 0: never).
    pub fn max_retries(mut self, n: u32) -> Self {
        self.max_retries = n;
        self
    }

    /// The longest `Retry-After` honoured (default 30 s); a longer one is returned as the error.
    pub fn max_retry_wait(mut self, wait: Duration) -> Self {
        self.max_retry_wait = wait;
        self
    }

    pub fn build(self) -> Result<Client> {
        let base = self.base_url.trim_end_matches('/').to_string();
        let valid = (base.starts_with("http://") || base.starts_with("https://")) && base.split("://").nth(1).map_or(false, |rest| !rest.is_empty());
        if !valid {
            return Err(Error::invalid_argument(format!("the base URL must be an http(s) URL such as http://localhost:3000, got {:?}", self.base_url)));
        }
        let agent = ureq::AgentBuilder::new().timeout_connect(Duration::from_secs(10)).redirects(0).build();
        Ok(Client {
            agent,
            base_url: base,
            api_key: self.api_key,
            headers: self.headers,
            timeout: self.timeout,
            max_retries: self.max_retries,
            max_retry_wait: self.max_retry_wait,
        })
    }
}

/// The gateway's client. Cheap to clone (connections are pooled and shared); safe to share
/// between threads.
#[derive(Debug, Clone)]
pub struct Client {
    agent: ureq::Agent,
    base_url: String,
    api_key: Option<String>,
    headers: Vec<(String, String)>,
    timeout: Option<Duration>,
    max_retries: u32,
    max_retry_wait: Duration,
}

/// A request body ready to send.
pub(crate) struct Payload {
    bytes: Vec<u8>,
    content_type: &'static str,
}

impl Client {
    /// A client of the gateway at `base_url` (e.g. `http://localhost:3000`) with an optional key.
    pub fn new(base_url: &str, api_key: Option<&str>) -> Result<Client> {
        let builder = Client::builder(base_url);
        match api_key {
            Some(key) => builder.api_key(key).build(),
            None => builder.build(),
        }
    }

    /// A builder, for timeouts, retries and headers.
    pub fn builder(base_url: &str) -> ClientBuilder {
        ClientBuilder {
            base_url: base_url.to_string(),
            api_key: None,
            headers: Vec::new(),
            timeout: Some(Duration::from_secs(60)),
            max_retries: 2,
            max_retry_wait: Duration::from_secs(30),
        }
    }

    /// The gateway's address as the client uses it.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    pub(crate) fn api_key(&self) -> Option<&str> {
        self.api_key.as_deref()
    }

    /// This client with one more header on every call: `gw.with_header("If-None-Match", etag).get_audio(h)`.
    pub fn with_header(&self, name: &str, value: &str) -> Client {
        let mut c = self.clone();
        c.headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
        c.headers.push((name.to_string(), value.to_string()));
        c
    }

    /// This client asking for the bytes `first..=last` (`None`: to the end); the answer is a 206
    /// with Content-Range: `gw.with_range(0, Some(1023)).get_audio(hash)`.
    pub fn with_range(&self, first: u64, last: Option<u64>) -> Client {
        match last {
            Some(last) => self.with_header("Range", &format!("bytes={}-{}", first, last)),
            None => self.with_header("Range", &format!("bytes={}-", first)),
        }
    }

    fn url(&self, template: &str, path: &[(&str, &str)]) -> Result<String> {
        let mut out = String::with_capacity(self.base_url.len() + template.len() + 32);
        out.push_str(&self.base_url);
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            let close = rest[open..].find('}').map(|i| open + i).ok_or_else(|| Error::invalid_argument(format!("bad path template {}", template)))?;
            out.push_str(&rest[..open]);
            let name = &rest[open + 1..close];
            let value = path.iter().find(|(k, _)| *k == name).map(|(_, v)| *v).unwrap_or("");
            if value.is_empty() {
                return Err(Error::invalid_argument(format!("path parameter {:?} is required", name)));
            }
            percent_encode(value, &mut out);
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    pub(crate) fn payload<B: Serialize + ?Sized>(op: &Operation, body: Option<&B>) -> Result<Option<Payload>> {
        match body {
            None => Ok(None),
            Some(b) => {
                let bytes = serde_json::to_vec(b).map_err(|e| Error::invalid_argument(format!("the body of {} does not encode: {}", op.id, e)))?;
                let content_type = if op.body == BodyKind::Bytes { "application/octet-stream" } else { "application/json" };
                Ok(Some(Payload { bytes, content_type }))
            }
        }
    }

    /// One operation's HTTP, retrying 429 and 503 answers as Retry-After says; an answer of 400 or
    /// more is an [`Error`].
    pub(crate) fn send(
        &self,
        op: &Operation,
        path: &[(&str, &str)],
        body: Option<Payload>,
        query: &[(&'static str, String)],
        accept: &str,
        stream: bool,
    ) -> Result<ureq::Response> {
        let url = self.url(op.path, path)?;
        self.send_url(op.method, &url, body, query, accept, stream, envelope_of(op.path))
    }

    #[allow(clippy::too_many_arguments)]
    fn send_url(
        &self,
        method: &str,
        url: &str,
        body: Option<Payload>,
        query: &[(&'static str, String)],
        accept: &str,
        stream: bool,
        envelope: &'static str,
    ) -> Result<ureq::Response> {
        let mut attempt = 0;
        loop {
            let mut req = self.agent.request(method, url);
            for (k, v) in query {
                req = req.query(k, v);
            }
            req = req.set("Accept", accept);
            if let Some(key) = &self.api_key {
                req = req.set("Authorization", &format!("Bearer {}", key));
            }
            if let Some(p) = &body {
                req = req.set("Content-Type", p.content_type);
            }
            for (k, v) in &self.headers {
                req = req.set(k, v);
            }
            if !stream {
                if let Some(t) = self.timeout {
                    req = req.timeout(t);
                }
            }
            let result = match &body {
                Some(p) => req.send_bytes(&p.bytes),
                None => req.call(),
            };
            match result {
                Ok(res) => return Ok(res),
                Err(ureq::Error::Status(status, res)) => {
                    if (status == 429 || status == 503) && attempt < self.max_retries {
                        let wait = res.header("Retry-After").and_then(parse_retry_after).unwrap_or_else(|| backoff(attempt));
                        if wait <= self.max_retry_wait {
                            drop(res);
                            thread::sleep(wait);
                            attempt += 1;
                            continue;
                        }
                    }
                    return Err(error_of(res, method != "HEAD", envelope));
                }
                Err(ureq::Error::Transport(t)) => return Err(Error::unreachable(t)),
            }
        }
    }

    fn find(id: &str) -> Result<&'static Operation> {
        operation(id).ok_or_else(|| Error::invalid_argument(format!("unknown operation {:?}", id)))
    }

    pub(crate) fn call_json<T: DeserializeOwned, B: Serialize + ?Sized>(&self, id: &str, path: &[(&str, &str)], body: Option<&B>, query: Vec<(&'static str, String)>) -> Result<T> {
        let op = Client::find(id)?;
        let res = self.send(op, path, Client::payload(op, body)?, &query, "application/json", false)?;
        let status = res.status();
        let mut raw = Vec::new();
        res.into_reader().take(64 << 20).read_to_end(&mut raw).map_err(Error::unreachable)?;
        let raw = if raw.is_empty() && status == 204 { b"null".to_vec() } else { raw };
        serde_json::from_slice(&raw).map_err(|e| Error::invalid_response(status, format!("the answer of {} does not match the OpenAPI document: {}", id, e)))
    }

    pub(crate) fn call_binary<B: Serialize + ?Sized>(&self, id: &str, path: &[(&str, &str)], body: Option<&B>, query: Vec<(&'static str, String)>) -> Result<BinaryResponse> {
        let op = Client::find(id)?;
        let res = self.send(op, path, Client::payload(op, body)?, &query, "*/*", false)?;
        let status = res.status();
        let content_type = res.header("Content-Type").unwrap_or_default().to_string();
        let headers = headers_of(&res);
        let mut body = Vec::new();
        res.into_reader().read_to_end(&mut body).map_err(Error::unreachable)?;
        Ok(BinaryResponse { status, body, content_type, headers })
    }

    pub(crate) fn call_head(&self, id: &str, path: &[(&str, &str)], query: Vec<(&'static str, String)>) -> Result<Vec<(String, String)>> {
        let op = Client::find(id)?;
        let res = self.send(op, path, None, &query, "*/*", false)?;
        Ok(headers_of(&res))
    }

    pub(crate) fn call_empty<B: Serialize + ?Sized>(&self, id: &str, path: &[(&str, &str)], body: Option<&B>, query: Vec<(&'static str, String)>) -> Result<()> {
        let op = Client::find(id)?;
        let res = self.send(op, path, Client::payload(op, body)?, &query, "application/json", false)?;
        let _ = std::io::copy(&mut res.into_reader().take(1 << 20), &mut std::io::sink());
        Ok(())
    }

    pub(crate) fn call_progressive<B: Serialize + ?Sized>(&self, id: &str, path: &[(&str, &str)], body: Option<&B>, query: Vec<(&'static str, String)>) -> Result<ProgressStream> {
        let op = Client::find(id)?;
        let res = self.send(op, path, Client::payload(op, body)?, &query, "text/event-stream", true)?;
        if !res.content_type().starts_with("text/event-stream") {
            return Err(Error::invalid_response(res.status(), format!("expected an event stream, got {}", res.content_type())).with_envelope(Some("tts")));
        }
        Ok(ProgressStream::new(res.into_reader()))
    }

    /// Calls any operation by operationId with a JSON body of any shape (a map can send explicit
    /// nulls, which the typed requests leave out) and returns the JSON answer.
    pub fn call(&self, operation_id: &str, path: &[(&str, &str)], body: Option<&Value>, query: &[(&'static str, &str)]) -> Result<Value> {
        let query = query.iter().map(|(k, v)| (*k, v.to_string())).collect();
        self.call_json(operation_id, path, body, query)
    }

    /// GETs a URL the gateway handed out (audioUrl, streamUrl, chunkAudioUrl, downloadUrl; relative
    /// or absolute) and returns the answer unread: the streamUrl of progressive generation plays
    /// while the rest is made. An error answer is an [`Error`].
    pub fn open(&self, url: &str) -> Result<StreamResponse> {
        let target = if url.starts_with('/') {
            format!("{}{}", self.base_url, url)
        } else if url.starts_with(&format!("{}/", self.base_url)) {
            url.to_string()
        } else {
            return Err(Error::invalid_argument(format!("{} is not on this gateway ({})", url, self.base_url)));
        };
        let path = target[self.base_url.len()..].split('?').next().unwrap_or("/").to_string();
        let res = self.send_url("GET", &target, None, &[], "*/*", true, envelope_of(&path))?;
        Ok(StreamResponse { status: res.status(), content_type: res.header("Content-Type").unwrap_or_default().to_string(), headers: headers_of(&res), reader: res.into_reader() })
    }

    /// Whether audio exists under a hash (HEAD /api/v1/audio/{hash}).
    pub fn has_audio(&self, hash: &str) -> Result<bool> {
        match self.audio_exists(hash) {
            Ok(_) => Ok(true),
            Err(e) if e.is("NOT_FOUND") => Ok(false),
            Err(e) => Err(e),
        }
    }
}

fn headers_of(res: &ureq::Response) -> Vec<(String, String)> {
    res.headers_names().into_iter().flat_map(|name| res.all(&name).into_iter().map(move |v| (name.to_ascii_lowercase(), v.to_string())).collect::<Vec<_>>()).collect()
}

fn error_of(res: ureq::Response, read_body: bool, envelope: &'static str) -> Error {
    let status = res.status();
    let headers = headers_of(&res);
    let mut raw = Vec::new();
    if read_body {
        let _ = res.into_reader().take(1 << 20).read_to_end(&mut raw);
    }
    Error::from_answer(status, &raw, &|name| header_in(&headers, name).map(str::to_string), envelope)
}

/// 0.5 s, 1 s, 2 s, … with ±25 % jitter, when the gateway gave no Retry-After.
fn backoff(attempt: u32) -> Duration {
    let base = 0.5 * f64::from(1u32 << attempt.min(6));
    Duration::from_secs_f64(base * (0.75 + random_unit() / 2.0))
}

/// A number in [0, 1) from the process's randomly keyed hasher (enough for jitter and masks).
pub(crate) fn random_u64() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0));
    h.finish()
}

fn random_unit() -> f64 {
    (random_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// Percent-encodes a path segment (RFC 3986 unreserved characters stay).
fn percent_encode(value: &str, out: &mut String) {
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{:02X}", b));
        }
    }
}
