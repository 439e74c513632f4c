//! The gateway the suite runs against, and a tiny HTTP server for receivers and fakes.
//!
//! SPEECH_GATEWAY_URL and SPEECH_GATEWAY_ADMIN_KEY name a running gateway (it needs
//! WEBHOOK_ALLOW_PRIVATE_NETWORKS=true for the webhook test, whose receiver listens on loopback).
//! When they are unset, the first test to ask starts the repository's built gateway
//! (dist/gateway/main.js, built with `npm run build` when missing) on a free loopback port with a
//! temporary DATA_DIR. A shell stands guard over it: when this test process exits, for whatever
//! reason, its end of the guard's stdin closes and the guard stops the gateway and removes the
//! directory (Rust's test harness has no hook after the last test).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use speech_gateway::Client;

pub struct Gateway {
    pub url: String,
    pub admin_key: String,
    _guard: Option<Mutex<Child>>,
}

const STARTED_ADMIN_KEY: &str = "rust-client-admin-key-0123456789abcdef";

// The tests run in parallel threads; the first to ask starts the gateway, the others wait for it.
static GATEWAY: Mutex<Option<&'static Gateway>> = Mutex::new(None);

pub fn gateway() -> &'static Gateway {
    let mut slot = GATEWAY.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(g) = *slot {
        return g;
    }
    let g: &'static Gateway = Box::leak(Box::new(match (std::env::var("SPEECH_GATEWAY_URL"), std::env::var("SPEECH_GATEWAY_ADMIN_KEY")) {
        (Ok(url), Ok(key)) if !url.is_empty() && !key.is_empty() => Gateway { url: url.trim_end_matches('/').to_string(), admin_key: key, _guard: None },
        (Ok(url), _) if !url.is_empty() => panic!("SPEECH_GATEWAY_URL is set but SPEECH_GATEWAY_ADMIN_KEY is not: the suite needs the gateway's admin key"),
        _ => start(),
    }));
    *slot = Some(g);
    g
}

pub fn admin() -> Client {
    Client::new(&gateway().url, Some(&gateway().admin_key)).unwrap()
}

pub fn with_key(key: Option<&str>) -> Client {
    Client::new(&gateway().url, key).unwrap()
}

/// Text other runs against the same gateway do not share.
pub fn unique(prefix: &str) -> String {
    format!("{} {}", prefix, SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn start() -> Gateway {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
    let main = root.join("dist/gateway/main.js");
    if !main.exists() {
        let status = Command::new("npm").args(["run", "build"]).current_dir(&root).stdout(Stdio::null()).status().expect("npm run build");
        assert!(status.success(), "npm run build failed");
    }
    let data_dir = std::env::temp_dir().join(format!("gw-rust-{}-{}", std::process::id(), SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos()));
    std::fs::create_dir_all(&data_dir).unwrap();
    let log = data_dir.join("gateway.log");
    // The guard: node in the background; when stdin reaches its end (this process is gone), stop
    // it (SIGTERM, the gateway's orderly shutdown), wait, and remove the data directory.
    let guard = r#"node "$MAIN" >"$DATA_DIR/gateway.log" 2>&1 & pid=$!
trap 'kill -TERM $pid 2>/dev/null' TERM
cat >/dev/null
kill -TERM $pid 2>/dev/null; wait $pid; rm -rf "$DATA_DIR""#;
    for _ in 0..3 {
        let port = free_port();
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(guard).current_dir(&root).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null());
        for name in ["DATABASE_URL", "REDIS_URL", "API_KEY", "NODE_ENV"] {
            cmd.env_remove(name);
        }
        cmd.env("MAIN", &main)
            .env("PORT", port.to_string())
            .env("HOST", "127.0.0.1")
            .env("DATA_DIR", &data_dir)
            .env("ADMIN_API_KEY", STARTED_ADMIN_KEY)
            .env("LOG_LEVEL", "warn")
            .env("API_RATE_LIMIT", "100000")
            .env("WEBHOOK_ALLOW_PRIVATE_NETWORKS", "true");
        let mut child = cmd.spawn().expect("sh");
        let url = format!("http://127.0.0.1:{}", port);
        let probe = Client::builder(&url).timeout(Some(Duration::from_secs(2))).max_retries(0).build().unwrap();
        let deadline = Instant::now() + Duration::from_secs(90);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                break;
            }
            if probe.live().map(|l| l.live).unwrap_or(false) {
                return Gateway { url, admin_key: STARTED_ADMIN_KEY.to_string(), _guard: Some(Mutex::new(child)) };
            }
            thread::sleep(Duration::from_millis(200));
        }
        drop(child.stdin.take()); // the guard stops node
        let _ = child.wait();
        let _ = std::fs::create_dir_all(&data_dir);
    }
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    panic!("the gateway did not start:\n{}", &text[text.len().saturating_sub(4000)..]);
}

/// A request a [`serve`]d handler gets.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Serves HTTP/1.1 on a loopback port (one connection at a time, `Connection: close`) until the
/// process ends; the handler answers (status, headers, body). Returns the base URL.
pub fn serve<F>(handler: F) -> String
where
    F: Fn(Request) -> (u16, Vec<(String, String)>, Vec<u8>) + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            if let Some(request) = read_request(&stream) {
                let (status, headers, body) = handler(request);
                let mut answer = format!("HTTP/1.1 {} X\r\nContent-Length: {}\r\nConnection: close\r\n", status, body.len());
                for (k, v) in headers {
                    answer.push_str(&format!("{}: {}\r\n", k, v));
                }
                answer.push_str("\r\n");
                let mut stream = stream;
                let _ = stream.write_all(answer.as_bytes());
                let _ = stream.write_all(&body);
            }
        }
    });
    url
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let length: usize = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("content-length")).and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).ok()?;
    Some(Request { method, path, headers, body })
}
