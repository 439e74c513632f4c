// Package speechgateway is the Go client of the speech & compliance gateway: every REST operation of
// its OpenAPI document as a typed method (generated: operations_gen.go, types_gen.go), the three
// error envelopes as *Error, retries that honour Retry-After, progressive generation over SSE, the
// dashboard WebSocket, webhook verification and the release gate. Standard library only.
//
//	gw, err := speechgateway.New(speechgateway.Options{BaseURL: "http://localhost:3000", APIKey: key})
//	speech, err := gw.GenerateSpeech(ctx, speechgateway.GenerateSpeechRequest{Text: "Hello"})
package speechgateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Options configure a Client. Only BaseURL is required.
type Options struct {
	// BaseURL is where the gateway answers, e.g. "http://localhost:3000" (no trailing path).
	BaseURL string
	// APIKey is an issued key (sk_…) or the gateway's ADMIN_API_KEY, sent as "Authorization: Bearer".
	APIKey string
	// Header is sent with every request.
	Header http.Header
	// HTTPClient does the HTTP (default: a client of its own). Its Timeout should stay 0: progressive
	// generation and audio streams last as long as the audio takes; Timeout below bounds the others.
	HTTPClient *http.Client
	// Timeout bounds each request/answer call, retries included (default 60 s; negative: none).
	Timeout time.Duration
	// MaxRetries is how often a 429 or 503 answer is retried (default 2; negative: never).
	MaxRetries int
	// MaxRetryWait is the longest wait honoured: a Retry-After beyond it is returned as the error
	// instead (default 30 s).
	MaxRetryWait time.Duration
}

// Client calls the gateway. It is safe for concurrent use.
type Client struct {
	baseURL      string
	apiKey       string
	header       http.Header
	http         *http.Client
	timeout      time.Duration
	maxRetries   int
	maxRetryWait time.Duration
}

// New makes a Client.
func New(opts Options) (*Client, error) {
	base := strings.TrimRight(opts.BaseURL, "/")
	u, err := url.Parse(base)
	if base == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("speechgateway: BaseURL must be an http(s) URL such as http://localhost:3000, got %q", opts.BaseURL)
	}
	c := &Client{baseURL: base, apiKey: opts.APIKey, header: opts.Header.Clone(), http: opts.HTTPClient, timeout: opts.Timeout, maxRetries: opts.MaxRetries, maxRetryWait: opts.MaxRetryWait}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.timeout == 0 {
		c.timeout = 60 * time.Second
	}
	if c.maxRetries == 0 {
		c.maxRetries = 2
	}
	if c.maxRetryWait == 0 {
		c.maxRetryWait = 30 * time.Second
	}
	return c, nil
}

// BaseURL is the gateway's address as the client uses it.
func (c *Client) BaseURL() string { return c.baseURL }

// Operation describes one REST operation of the OpenAPI document.
type Operation struct {
	ID       string
	Method   string
	Path     string
	Body     string
	Response string
}

// Operations indexes OperationList by operationId.
var Operations = func() map[string]Operation {
	m := make(map[string]Operation, len(OperationList))
	for _, op := range OperationList {
		m[op.ID] = op
	}
	return m
}()

// ErrorStatus maps every error code of the gateway's catalogue to its HTTP status.
var ErrorStatus = func() map[string]int {
	m := make(map[string]int, len(errorCatalogue))
	for _, e := range errorCatalogue {
		m[e.code] = e.status
	}
	return m
}()

// BinaryResponse is a binary answer (audio, a report file): its bytes and the headers that describe them.
type BinaryResponse struct {
	Status      int
	Body        []byte
	ContentType string
	Header      http.Header
}

// CallOption changes one call.
type CallOption func(*callSettings)

type callSettings struct {
	header http.Header
}

// WithHeader sends a header with this call (e.g. "If-None-Match").
func WithHeader(name, value string) CallOption {
	return func(s *callSettings) { s.header.Set(name, value) }
}

// WithRange asks for the bytes from first to last inclusive (last < 0: to the end); the answer is a
// 206 with Content-Range.
func WithRange(first, last int64) CallOption {
	if last < 0 {
		return WithHeader("Range", fmt.Sprintf("bytes=%d-", first))
	}
	return WithHeader("Range", fmt.Sprintf("bytes=%d-%d", first, last))
}

// Ptr returns a pointer to v, for the optional fields of requests and queries:
// Priority: speechgateway.Ptr("high").
func Ptr[T any](v T) *T { return &v }

var pathParam = regexp.MustCompile(`\{(\w+)\}`)

func (c *Client) url(template string, path map[string]string, query url.Values) (string, error) {
	var missing string
	p := pathParam.ReplaceAllStringFunc(template, func(m string) string {
		name := m[1 : len(m)-1]
		v := path[name]
		if v == "" && missing == "" {
			missing = name
		}
		return url.PathEscape(v)
	})
	if missing != "" {
		return "", fmt.Errorf("speechgateway: path parameter %q is required", missing)
	}
	if q := query.Encode(); q != "" {
		p += "?" + q
	}
	return c.baseURL + p, nil
}

// optionalBody turns a nil pointer into no body at all.
func optionalBody[T any](body *T) any {
	if body == nil {
		return nil
	}
	return body
}

// send does one operation's HTTP, retrying 429 and 503 answers as Retry-After says; an answer of
// 400 or more comes back as *Error.
func (c *Client) send(ctx context.Context, opID string, path map[string]string, body any, query url.Values, opts []CallOption, accept string) (*http.Response, Operation, error) {
	op, ok := Operations[opID]
	if !ok {
		return nil, op, fmt.Errorf("speechgateway: unknown operation %q", opID)
	}
	target, err := c.url(op.Path, path, query)
	if err != nil {
		return nil, op, err
	}
	var payload []byte
	contentType := ""
	if body != nil {
		switch b := body.(type) {
		case []byte:
			payload, contentType = b, "application/octet-stream"
		case json.RawMessage:
			payload, contentType = b, "application/json"
		default:
			if payload, err = json.Marshal(body); err != nil {
				return nil, op, fmt.Errorf("speechgateway: encoding the body of %s: %w", opID, err)
			}
			contentType = "application/json"
		}
	}
	settings := callSettings{header: http.Header{}}
	for _, o := range opts {
		o(&settings)
	}
	res, err := c.do(ctx, op.Method, target, payload, contentType, accept, settings.header)
	if err != nil {
		return nil, op, err
	}
	if res.StatusCode >= 400 {
		defer res.Body.Close()
		return nil, op, errorFromResponse(res, op.Method != http.MethodHead, envelopeOf(op.Path))
	}
	return res, op, nil
}

// do sends a request, again after a 429 or 503 answer while retries are left and the wait is allowed.
func (c *Client) do(ctx context.Context, method, target string, payload []byte, contentType, accept string, extra http.Header) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		var reader io.Reader
		if payload != nil {
			reader = bytes.NewReader(payload)
		}
		req, err := http.NewRequestWithContext(ctx, method, target, reader)
		if err != nil {
			return nil, fmt.Errorf("speechgateway: %w", err)
		}
		for k, v := range c.header {
			req.Header[k] = v
		}
		if c.apiKey != "" {
			req.Header.Set("Authorization", "Bearer "+c.apiKey)
		}
		req.Header.Set("Accept", "application/json")
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		for k, v := range extra {
			req.Header[k] = v
		}
		res, err := c.http.Do(req)
		if err != nil {
			return nil, unreachable(err)
		}
		if (res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable) && attempt < c.maxRetries {
			wait, ok := retryAfter(res.Header)
			if !ok {
				// No Retry-After: 0.5 s, 1 s, 2 s, … with ±25 % jitter.
				wait = time.Duration(float64(500*time.Millisecond<<attempt) * (0.75 + rand.Float64()/2))
			}
			if wait <= c.maxRetryWait {
				_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
				res.Body.Close()
				timer := time.NewTimer(wait)
				select {
				case <-ctx.Done():
					timer.Stop()
					return nil, unreachable(ctx.Err())
				case <-timer.C:
				}
				continue
			}
		}
		return res, nil
	}
}

// retryAfter reads Retry-After as seconds or as an HTTP date.
func retryAfter(h http.Header) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d, true
		}
		return 0, true
	}
	return 0, false
}

func (c *Client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.timeout > 0 {
		return context.WithTimeout(ctx, c.timeout)
	}
	return context.WithCancel(ctx)
}

// callJSON calls an operation and decodes its JSON answer into out (nil: the answer is dropped).
func (c *Client) callJSON(ctx context.Context, opID string, path map[string]string, body any, query url.Values, opts []CallOption, out any) error {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	res, _, err := c.send(ctx, opID, path, body, query, opts, "")
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return unreachable(err)
	}
	if out == nil || res.StatusCode == http.StatusNoContent {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("speechgateway: the answer of %s does not match the OpenAPI document: %w", opID, err)
	}
	return nil
}

func (c *Client) callBinary(ctx context.Context, opID string, path map[string]string, body any, query url.Values, opts []CallOption) (*BinaryResponse, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	res, _, err := c.send(ctx, opID, path, body, query, opts, "*/*")
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, unreachable(err)
	}
	return &BinaryResponse{Status: res.StatusCode, Body: raw, ContentType: res.Header.Get("Content-Type"), Header: res.Header}, nil
}

func (c *Client) callHead(ctx context.Context, opID string, path map[string]string, body any, query url.Values, opts []CallOption) (http.Header, error) {
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	res, _, err := c.send(ctx, opID, path, body, query, opts, "*/*")
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	return res.Header, nil
}

// Do calls any operation by operationId with a body of any shape (a map sends explicit nulls, which
// the typed requests leave out) and decodes the JSON answer into out. Binary answers: use Open.
func (c *Client) Do(ctx context.Context, operationID string, path map[string]string, body any, query url.Values, out any, opts ...CallOption) error {
	return c.callJSON(ctx, operationID, path, body, query, opts, out)
}

// Open GETs a URL the gateway handed out (audioUrl, streamUrl, chunkAudioUrl, downloadUrl; relative
// or absolute) and returns the answer unread, for reading as it arrives: the streamUrl of progressive
// generation plays while the rest is made. Close its Body. An error answer is an *Error.
func (c *Client) Open(ctx context.Context, rawURL string, opts ...CallOption) (*http.Response, error) {
	target := rawURL
	if strings.HasPrefix(rawURL, "/") {
		target = c.baseURL + rawURL
	} else if !strings.HasPrefix(rawURL, c.baseURL+"/") {
		return nil, fmt.Errorf("speechgateway: %q is not on this gateway (%s)", rawURL, c.baseURL)
	}
	settings := callSettings{header: http.Header{}}
	for _, o := range opts {
		o(&settings)
	}
	res, err := c.do(ctx, http.MethodGet, target, nil, "", "*/*", settings.header)
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 400 {
		defer res.Body.Close()
		u, _ := url.Parse(target)
		return nil, errorFromResponse(res, true, envelopeOf(u.Path))
	}
	return res, nil
}

// HasAudio tells whether audio exists under a hash (HEAD /api/v1/audio/{hash}).
func (c *Client) HasAudio(ctx context.Context, hash string) (bool, error) {
	_, err := c.AudioExists(ctx, hash)
	if err == nil {
		return true, nil
	}
	var gwErr *Error
	if errors.As(err, &gwErr) && gwErr.Code == "NOT_FOUND" {
		return false, nil
	}
	return false, err
}
