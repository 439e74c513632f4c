package speechgateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
)

// ProgressEvent is one event of progressive generation (POST /api/v1/generate-progressive, one SSE
// "data:" line each). Type tells which fields are set:
//   - "started": TotalChunks, StreamURL (the audio as one stream that begins at once: Client.Open it);
//   - "progress": Completed, Total, Progress, and ChunkIndex/ChunkAudioURL of the chunk that is ready
//     (absent when the audio came from the cache);
//   - "complete": Hash, AudioURL, Duration, Chunks, ParallelTime, Cached, Metadata.
//
// An "error" event is not an event: ProgressStream.Next returns it as an *Error with its code.
type ProgressEvent struct {
	Type string `json:"type"`

	TotalChunks int    `json:"totalChunks,omitempty"`
	StreamURL   string `json:"streamUrl,omitempty"`

	Completed     int     `json:"completed,omitempty"`
	Total         int     `json:"total,omitempty"`
	Progress      float64 `json:"progress,omitempty"`
	ChunkIndex    *int    `json:"chunkIndex,omitempty"`
	ChunkAudioURL string  `json:"chunkAudioUrl,omitempty"`

	Hash         string                 `json:"hash,omitempty"`
	AudioURL     string                 `json:"audioUrl,omitempty"`
	Duration     float64                `json:"duration,omitempty"`
	Chunks       int                    `json:"chunks,omitempty"`
	ParallelTime float64                `json:"parallelTime,omitempty"`
	Cached       bool                   `json:"cached,omitempty"`
	Metadata     *ProgressEventMetadata `json:"metadata,omitempty"`

	// Raw is the event's JSON as sent.
	Raw json.RawMessage `json:"-"`
}

// ProgressEventMetadata describes the finished audio of a "complete" event.
type ProgressEventMetadata struct {
	Provider    string `json:"provider"`
	Voice       string `json:"voice"`
	GeneratedAt string `json:"generatedAt"`
	FileSize    int64  `json:"fileSize"`
}

// ProgressStream reads the events of a progressive generation. Next returns io.EOF after the
// complete event; Close ends it early (the gateway still finishes and caches the audio).
type ProgressStream struct {
	body     io.ReadCloser
	reader   *bufio.Reader
	cancel   context.CancelFunc
	done     bool
	once     sync.Once
	maxEvent int
}

func (c *Client) callProgressive(ctx context.Context, opID string, path map[string]string, body any, query url.Values, opts []CallOption) (*ProgressStream, error) {
	ctx, cancel := context.WithCancel(ctx)
	res, _, err := c.send(ctx, opID, path, body, query, opts, "text/event-stream")
	if err != nil {
		cancel()
		return nil, err
	}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		res.Body.Close()
		cancel()
		return nil, &Error{Code: "INTERNAL_ERROR", Status: res.StatusCode, Message: "expected an event stream, got " + res.Header.Get("Content-Type"), Envelope: "tts"}
	}
	return &ProgressStream{body: res.Body, reader: bufio.NewReader(res.Body), cancel: cancel, maxEvent: 1 << 20}, nil
}

// Next returns the next event: started, progress…, complete, then io.EOF. An error event, or a
// stream that ends before complete, is an *Error.
func (s *ProgressStream) Next() (*ProgressEvent, error) {
	if s.done {
		return nil, io.EOF
	}
	var data bytes.Buffer
	for {
		line, err := s.reader.ReadString('\n')
		if err != nil && (err != io.EOF || line == "") {
			s.Close()
			if err == io.EOF {
				return nil, &Error{Code: "SERVICE_UNAVAILABLE", Status: 503, Message: "event stream ended before the complete event", Envelope: "tts"}
			}
			return nil, unreachable(err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line != "" {
			if strings.HasPrefix(line, "data:") {
				if data.Len() > 0 {
					data.WriteByte('\n')
				}
				data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
				if data.Len() > s.maxEvent {
					s.Close()
					return nil, &Error{Code: "INTERNAL_ERROR", Status: 200, Message: "event larger than 1 MiB", Envelope: "tts"}
				}
			}
			continue // comments (":"), "event:", "id:" and "retry:" lines carry nothing this stream uses
		}
		if data.Len() == 0 {
			continue
		}
		event := &ProgressEvent{Raw: append(json.RawMessage(nil), data.Bytes()...)}
		if err := json.Unmarshal(event.Raw, event); err != nil {
			s.Close()
			return nil, fmt.Errorf("speechgateway: unreadable progress event %.100s: %w", data.String(), err)
		}
		data.Reset()
		switch event.Type {
		case "error":
			var failure struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			}
			_ = json.Unmarshal(event.Raw, &failure)
			s.Close()
			if failure.Code == "" {
				failure.Code = "INTERNAL_ERROR"
			}
			var details map[string]any
			_ = json.Unmarshal(event.Raw, &details)
			return nil, &Error{Code: failure.Code, Status: 200, Message: failure.Message, Details: map[string]any{"event": details}, Envelope: "tts"}
		case "complete":
			s.Close()
		}
		return event, nil
	}
}

// Events reads the whole stream: every event up to and including complete.
func (s *ProgressStream) Events() ([]ProgressEvent, error) {
	var all []ProgressEvent
	for {
		e, err := s.Next()
		if err == io.EOF {
			return all, nil
		}
		if err != nil {
			return all, err
		}
		all = append(all, *e)
	}
}

// Close ends the stream (safe to call more than once).
func (s *ProgressStream) Close() error {
	s.once.Do(func() {
		s.done = true
		s.cancel()
		s.body.Close()
	})
	return nil
}
