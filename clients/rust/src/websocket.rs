//! A small RFC 6455 client: what the dashboard socket needs (text messages, ping/pong, close) over
//! any byte stream. Debian packages no WebSocket crate of the versions this client can build with,
//! and the handshake needs only SHA-1 and base64, both a few lines.

use std::io::{self, Read, Write};
use std::time::Duration;

use crate::client::random_u64;
use crate::error::{envelope_of, Error};

const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// A byte stream the socket runs over, with read timeouts (a TcpStream, or a TLS stream over one).
pub trait Transport: Read + Write + Send {
    fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()>;
}

impl Transport for std::net::TcpStream {
    fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        std::net::TcpStream::set_read_timeout(self, timeout)
    }
}

pub(crate) enum Message {
    Text(String),
    Binary,
    /// The peer closed the socket: its code and reason.
    Closed(u16, String),
}

pub(crate) struct WebSocket {
    stream: Box<dyn Transport>,
    /// Bytes read but not yet parsed into frames: a read that times out loses nothing.
    buffer: Vec<u8>,
    fragments: Option<(u8, Vec<u8>)>,
    closed: bool,
}

/// SHA-1 (FIPS 180-4), for Sec-WebSocket-Accept only.
fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0];
    let mut message = data.to_vec();
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in message.chunks(64) {
        let mut w = [0u32; 80];
        for i in 0..16 {
            w[i] = u32::from_be_bytes([block[4 * i], block[4 * i + 1], block[4 * i + 2], block[4 * i + 3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A827999),
                20..=39 => (b ^ c ^ d, 0x6ED9EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1BBCDC),
                _ => (b ^ c ^ d, 0xCA62C1D6),
            };
            let t = a.rotate_left(5).wrapping_add(f).wrapping_add(e).wrapping_add(k).wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (i, x) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}

fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity((data.len() + 2) / 3 * 4);
    for chunk in data.chunks(3) {
        let n = (u32::from(chunk[0]) << 16) | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8) | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Sec-WebSocket-Accept for a key (RFC 6455 §4.2.2).
pub(crate) fn accept_key(key: &str) -> String {
    base64(&sha1(format!("{}258EAFA5-E914-47DA-95CA-C5AB0DC85B11", key).as_bytes()))
}

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    for chunk in out.chunks_mut(8) {
        let r = random_u64().to_le_bytes();
        chunk.copy_from_slice(&r[..chunk.len()]);
    }
    out
}

impl WebSocket {
    /// The opening handshake over `stream` for `path` on `host`. An upgrade answered with an HTTP
    /// error is an [`Error`] read from its JSON envelope.
    pub(crate) fn handshake(mut stream: Box<dyn Transport>, host: &str, path: &str, headers: &[(String, String)]) -> Result<WebSocket, Error> {
        let key = base64(&random_bytes::<16>());
        let mut request =
            format!("GET {} HTTP/1.1\r\nHost: {}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {}\r\nSec-WebSocket-Version: 13\r\n", path, host, key);
        for (k, v) in headers {
            request.push_str(&format!("{}: {}\r\n", k, v));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).map_err(Error::unreachable)?;
        stream.flush().map_err(Error::unreachable)?;
        // The answer's head, byte by byte up to the blank line; what follows stays in the buffer.
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            if head.len() > 64 << 10 {
                return Err(Error::invalid_response(0, "the WebSocket handshake answer is too long"));
            }
            match stream.read(&mut byte) {
                Ok(0) => return Err(Error::unreachable(io::Error::new(io::ErrorKind::UnexpectedEof, "connection closed during the WebSocket handshake"))),
                Ok(_) => head.push(byte[0]),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::unreachable(e)),
            }
        }
        let text = String::from_utf8_lossy(&head).to_string();
        let mut lines = text.split("\r\n");
        let status: u16 = lines.next().and_then(|l| l.split_whitespace().nth(1)).and_then(|s| s.parse().ok()).unwrap_or(0);
        let headers: Vec<(String, String)> = lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string())).collect();
        let header = |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
        if status != 101 {
            let length: usize = header("content-length").and_then(|v| v.parse().ok()).unwrap_or(0).min(1 << 20);
            let mut body = vec![0u8; length];
            let _ = stream.read_exact(&mut body);
            return Err(Error::from_answer(status, &body, &header, envelope_of(path)));
        }
        let upgraded = header("upgrade").map_or(false, |v| v.eq_ignore_ascii_case("websocket"));
        if !upgraded || header("sec-websocket-accept").as_deref() != Some(accept_key(&key).as_str()) {
            return Err(Error::invalid_response(101, "the server did not accept the WebSocket handshake"));
        }
        Ok(WebSocket { stream, buffer: Vec::new(), fragments: None, closed: false })
    }

    fn write_frame(&mut self, opcode: u8, payload: &[u8]) -> io::Result<()> {
        let mut frame = Vec::with_capacity(payload.len() + 14);
        frame.push(0x80 | opcode);
        match payload.len() {
            n if n < 126 => frame.push(0x80 | n as u8),
            n if n <= 0xFFFF => {
                frame.push(0x80 | 126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                frame.push(0x80 | 127);
                frame.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        let mask = random_bytes::<4>();
        frame.extend_from_slice(&mask);
        frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.stream.write_all(&frame)?;
        self.stream.flush()
    }

    pub(crate) fn send_text(&mut self, text: &str) -> io::Result<()> {
        self.write_frame(0x1, text.as_bytes())
    }

    /// One whole frame from the buffer, if it holds one: (fin, opcode, payload).
    fn parse_frame(&mut self) -> io::Result<Option<(bool, u8, Vec<u8>)>> {
        let b = &self.buffer;
        if b.len() < 2 {
            return Ok(None);
        }
        let (fin, opcode, masked) = (b[0] & 0x80 != 0, b[0] & 0x0F, b[1] & 0x80 != 0);
        let (length, mut at) = match b[1] & 0x7F {
            126 if b.len() >= 4 => (u64::from(u16::from_be_bytes([b[2], b[3]])), 4),
            127 if b.len() >= 10 => (u64::from_be_bytes([b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9]]), 10),
            126 | 127 => return Ok(None),
            n => (u64::from(n), 2),
        };
        if length > MAX_MESSAGE_BYTES as u64 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "WebSocket frame larger than 16 MiB"));
        }
        let mask = if masked {
            if b.len() < at + 4 {
                return Ok(None);
            }
            at += 4;
            Some([b[at - 4], b[at - 3], b[at - 2], b[at - 1]])
        } else {
            None
        };
        let end = at + length as usize;
        if b.len() < end {
            return Ok(None);
        }
        let mut payload = b[at..end].to_vec();
        if let Some(m) = mask {
            payload.iter_mut().enumerate().for_each(|(i, x)| *x ^= m[i % 4]);
        }
        self.buffer.drain(..end);
        Ok(Some((fin, opcode, payload)))
    }

    /// The next message, answering pings on the way. `Ok(None)`: the read timed out (nothing is
    /// lost: a frame read in part stays in the buffer).
    pub(crate) fn read_message(&mut self, timeout: Option<Duration>) -> io::Result<Option<Message>> {
        self.stream.set_read_timeout(timeout)?;
        loop {
            while let Some((fin, opcode, payload)) = self.parse_frame()? {
                match opcode {
                    0x9 => self.write_frame(0xA, &payload)?,
                    0xA => {}
                    0x8 => {
                        let code = if payload.len() >= 2 { u16::from_be_bytes([payload[0], payload[1]]) } else { 1005 };
                        let reason = String::from_utf8_lossy(payload.get(2..).unwrap_or_default()).to_string();
                        if !self.closed {
                            let _ = self.write_frame(0x8, &code.to_be_bytes());
                            self.closed = true;
                        }
                        return Ok(Some(Message::Closed(code, reason)));
                    }
                    0x0..=0x2 => {
                        let (kind, mut data) = match (opcode, self.fragments.take()) {
                            (0x0, Some((kind, data))) => (kind, data),
                            (0x0, None) => return Err(io::Error::new(io::ErrorKind::InvalidData, "continuation frame without a message")),
                            (_, Some(_)) => return Err(io::Error::new(io::ErrorKind::InvalidData, "new message inside a fragmented one")),
                            (kind, None) => (kind, Vec::new()),
                        };
                        data.extend_from_slice(&payload);
                        if data.len() > MAX_MESSAGE_BYTES {
                            return Err(io::Error::new(io::ErrorKind::InvalidData, "WebSocket message larger than 16 MiB"));
                        }
                        if !fin {
                            self.fragments = Some((kind, data));
                            continue;
                        }
                        return Ok(Some(if kind == 0x1 {
                            Message::Text(String::from_utf8(data).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "text message is not UTF-8"))?)
                        } else {
                            Message::Binary
                        }));
                    }
                    other => return Err(io::Error::new(io::ErrorKind::InvalidData, format!("unknown opcode {}", other))),
                }
            }
            let mut chunk = [0u8; 16 << 10];
            match self.stream.read(&mut chunk) {
                Ok(0) => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the connection closed without a close frame")),
                Ok(n) => self.buffer.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock || e.kind() == io::ErrorKind::TimedOut => return Ok(None),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Sends a close frame (best effort).
    pub(crate) fn close(&mut self, code: u16, reason: &str) {
        if !self.closed {
            self.closed = true;
            let mut payload = code.to_be_bytes().to_vec();
            payload.extend_from_slice(reason.as_bytes());
            let _ = self.write_frame(0x8, &payload);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_key_of_rfc_6455() {
        // RFC 6455 §1.3's example.
        assert_eq!(accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
    }
}
