package speechgateway

// A small RFC 6455 client over net.Conn: what the dashboard socket needs (text messages, ping/pong,
// close), and nothing more. The standard library has no WebSocket client; Debian's Go packages
// offer golang.org/x/net/websocket, which cannot set the Authorization header on the upgrade.

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xA

	maxMessageBytes = 16 << 20
)

// wsConn is one client WebSocket connection.
type wsConn struct {
	conn    net.Conn
	reader  *bufio.Reader
	writeMu sync.Mutex
	closed  bool
}

// wsCloseError is the peer's close frame.
type wsCloseError struct {
	Code   int
	Reason string
}

func (e *wsCloseError) Error() string {
	return fmt.Sprintf("websocket closed (%d %s)", e.Code, e.Reason)
}

// wsAcceptKey is Sec-WebSocket-Accept for a key (RFC 6455 §4.2.2).
func wsAcceptKey(key string) string {
	h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	return base64.StdEncoding.EncodeToString(h[:])
}

// dialWebSocket opens ws(s)://… with extra upgrade headers. An upgrade answered with an HTTP error
// comes back as *Error from the answer's JSON envelope.
func dialWebSocket(ctx context.Context, rawURL string, header http.Header) (*wsConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	host := u.Host
	if u.Port() == "" {
		if u.Scheme == "wss" {
			host += ":443"
		} else {
			host += ":80"
		}
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, unreachable(err)
	}
	if u.Scheme == "wss" {
		tc := tls.Client(conn, &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12})
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, unreachable(err)
		}
		conn = tc
	}
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		conn.Close()
		return nil, err
	}
	key := base64.StdEncoding.EncodeToString(nonce)
	req := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: u.EscapedPath(), RawQuery: u.RawQuery}, Host: u.Host, Header: http.Header{}, ProtoMajor: 1, ProtoMinor: 1}
	if req.URL.Path == "" {
		req.URL.Path = "/"
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Sec-WebSocket-Key", key)
	req.Header.Set("Sec-WebSocket-Version", "13")
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil, unreachable(err)
	}
	reader := bufio.NewReader(conn)
	res, err := http.ReadResponse(reader, req)
	if err != nil {
		conn.Close()
		return nil, unreachable(err)
	}
	if res.StatusCode != http.StatusSwitchingProtocols {
		defer conn.Close()
		defer res.Body.Close()
		return nil, errorFromResponse(res, true, envelopeOf(u.Path))
	}
	if !strings.EqualFold(res.Header.Get("Upgrade"), "websocket") || res.Header.Get("Sec-WebSocket-Accept") != wsAcceptKey(key) {
		conn.Close()
		return nil, errors.New("speechgateway: the server did not accept the WebSocket handshake")
	}
	_ = conn.SetDeadline(time.Time{})
	return &wsConn{conn: conn, reader: reader}, nil
}

// writeFrame sends one masked frame (clients must mask, RFC 6455 §5.3).
func (c *wsConn) writeFrame(opcode byte, payload []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.closed {
		return net.ErrClosed
	}
	header := []byte{0x80 | opcode}
	switch n := len(payload); {
	case n < 126:
		header = append(header, 0x80|byte(n))
	case n <= 0xFFFF:
		header = append(header, 0x80|126, byte(n>>8), byte(n))
	default:
		header = append(header, 0x80|127)
		header = binary.BigEndian.AppendUint64(header, uint64(n))
	}
	mask := make([]byte, 4)
	if _, err := rand.Read(mask); err != nil {
		return err
	}
	frame := make([]byte, 0, len(header)+4+len(payload))
	frame = append(append(frame, header...), mask...)
	for i, b := range payload {
		frame = append(frame, b^mask[i%4])
	}
	_, err := c.conn.Write(frame)
	return err
}

// WriteText sends a text message.
func (c *wsConn) WriteText(s string) error { return c.writeFrame(opText, []byte(s)) }

// ReadMessage returns the next text or binary message, answering pings on the way. The peer's
// close is a *wsCloseError (after the close is echoed).
func (c *wsConn) ReadMessage() ([]byte, error) {
	var message []byte
	inMessage := false
	for {
		var head [2]byte
		if _, err := io.ReadFull(c.reader, head[:]); err != nil {
			return nil, err
		}
		fin := head[0]&0x80 != 0
		opcode := head[0] & 0x0F
		masked := head[1]&0x80 != 0
		length := uint64(head[1] & 0x7F)
		switch length {
		case 126:
			var ext [2]byte
			if _, err := io.ReadFull(c.reader, ext[:]); err != nil {
				return nil, err
			}
			length = uint64(binary.BigEndian.Uint16(ext[:]))
		case 127:
			var ext [8]byte
			if _, err := io.ReadFull(c.reader, ext[:]); err != nil {
				return nil, err
			}
			length = binary.BigEndian.Uint64(ext[:])
		}
		if length > maxMessageBytes || uint64(len(message))+length > maxMessageBytes {
			c.Close(1009, "message too big")
			return nil, errors.New("speechgateway: WebSocket message larger than 16 MiB")
		}
		var mask [4]byte
		if masked {
			if _, err := io.ReadFull(c.reader, mask[:]); err != nil {
				return nil, err
			}
		}
		payload := make([]byte, length)
		if _, err := io.ReadFull(c.reader, payload); err != nil {
			return nil, err
		}
		if masked {
			for i := range payload {
				payload[i] ^= mask[i%4]
			}
		}
		switch opcode {
		case opPing:
			if err := c.writeFrame(opPong, payload); err != nil {
				return nil, err
			}
		case opPong:
		case opClose:
			code, reason := 1005, ""
			if len(payload) >= 2 {
				code, reason = int(binary.BigEndian.Uint16(payload)), string(payload[2:])
			}
			c.Close(code, "")
			return nil, &wsCloseError{Code: code, Reason: reason}
		case opText, opBinary:
			if inMessage {
				return nil, errors.New("speechgateway: WebSocket protocol error (new message inside a fragmented one)")
			}
			message, inMessage = payload, true
			if fin {
				return message, nil
			}
		case opContinuation:
			if !inMessage {
				return nil, errors.New("speechgateway: WebSocket protocol error (continuation without a message)")
			}
			message = append(message, payload...)
			if fin {
				return message, nil
			}
		default:
			return nil, fmt.Errorf("speechgateway: WebSocket protocol error (opcode %d)", opcode)
		}
	}
}

// Close sends a close frame (best effort) and closes the connection.
func (c *wsConn) Close(code int, reason string) error {
	payload := binary.BigEndian.AppendUint16(nil, uint16(code))
	_ = c.conn.SetWriteDeadline(time.Now().Add(time.Second))
	_ = c.writeFrame(opClose, append(payload, reason...))
	c.writeMu.Lock()
	c.closed = true
	c.writeMu.Unlock()
	return c.conn.Close()
}
