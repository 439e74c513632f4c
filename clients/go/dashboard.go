package speechgateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// DashboardEvent is one event of the dashboard WebSocket (/v1/dashboard/ws).
type DashboardEvent struct {
	// Type is one of WsEventTypes: "requirement_updated", "compliance_changed", ….
	Type string `json:"type"`
	// Data is the changed record.
	Data      json.RawMessage `json:"data"`
	Timestamp string          `json:"timestamp"`
	// ID is the event's id, the same as the webhook-id of its webhook delivery.
	ID string `json:"id"`
	// Event is the dotted domain event ("requirement.updated", …), the webhook's type.
	Event string `json:"event"`
}

// Requirement decodes the data of a requirement.created or requirement.updated event.
func (e *DashboardEvent) Requirement() (*RequirementEvent, error) {
	return requirementOf(e.Event, e.Data)
}

// DashboardStream is a subscription on the dashboard WebSocket. Events published while it is not
// connected are not replayed (webhooks are the at-least-once channel); after an error from Next,
// open a new one.
type DashboardStream struct {
	ws         *wsConn
	subscribed []string
	frames     chan frameOrError
	done       chan struct{}
	closeOnce  sync.Once
}

type frameOrError struct {
	frame *DashboardEvent
	err   error
}

// DashboardEvents connects to the dashboard WebSocket with the client's key (it needs
// read:dashboard), subscribes to the event types (none: all of WsEventTypes) and returns once the
// gateway has confirmed the subscription. A refused key is an *Error (401 or 403).
func (c *Client) DashboardEvents(ctx context.Context, eventTypes ...string) (*DashboardStream, error) {
	if len(eventTypes) == 0 {
		eventTypes = WsEventTypes
	}
	header := http.Header{}
	if c.apiKey != "" {
		header.Set("Authorization", "Bearer "+c.apiKey)
	}
	wsURL := "ws" + strings.TrimPrefix(c.baseURL, "http") + "/v1/dashboard/ws"
	dialCtx, cancel := c.withTimeout(ctx)
	defer cancel()
	ws, err := dialWebSocket(dialCtx, wsURL, header)
	if err != nil {
		return nil, err
	}
	s := &DashboardStream{ws: ws, frames: make(chan frameOrError, 256), done: make(chan struct{})}
	go s.readLoop()
	subscribe, _ := json.Marshal(map[string]any{"type": "subscribe", "events": eventTypes})
	if err := ws.WriteText(string(subscribe)); err != nil {
		s.Close()
		return nil, unreachable(err)
	}
	// The confirmation comes before any event of the subscription.
	for {
		f, err := s.next(dialCtx)
		if err != nil {
			s.Close()
			return nil, err
		}
		if f.Type == "subscribed" {
			var data struct {
				Events []string `json:"events"`
			}
			_ = json.Unmarshal(f.Data, &data)
			s.subscribed = data.Events
			return s, nil
		}
	}
}

// Subscribed is the event types the gateway confirmed.
func (s *DashboardStream) Subscribed() []string { return s.subscribed }

// readLoop reads frames until the socket ends: pongs are dropped, error frames become *Error.
func (s *DashboardStream) readLoop() {
	defer close(s.frames)
	for {
		raw, err := s.ws.ReadMessage()
		if err != nil {
			var closed *wsCloseError
			if errors.As(err, &closed) {
				err = &Error{Code: "SERVICE_UNAVAILABLE", Status: 503, Message: fmt.Sprintf("dashboard socket closed by the gateway (%d %s)", closed.Code, closed.Reason), Envelope: "dashboard", cause: err}
			} else {
				err = unreachable(err)
			}
			s.deliver(frameOrError{err: err})
			return
		}
		var f DashboardEvent
		if err := json.Unmarshal(raw, &f); err != nil {
			continue // not a JSON frame: nothing of the contract
		}
		switch f.Type {
		case "pong", "unsubscribed":
			continue
		case "error":
			var e struct {
				Code    string         `json:"code"`
				Message string         `json:"message"`
				Details map[string]any `json:"details"`
			}
			_ = json.Unmarshal(f.Data, &e)
			if e.Code == "" {
				e.Code = "VALIDATION_ERROR"
			}
			if !s.deliver(frameOrError{err: &Error{Code: e.Code, Status: ErrorStatus[e.Code], Message: e.Message, Details: e.Details, Envelope: "dashboard"}}) {
				return
			}
			continue
		}
		if !s.deliver(frameOrError{frame: &f}) {
			return
		}
	}
}

// deliver hands a frame to Next; false once the stream is closed.
func (s *DashboardStream) deliver(r frameOrError) bool {
	select {
	case s.frames <- r:
		return true
	case <-s.done:
		return false
	}
}

func (s *DashboardStream) next(ctx context.Context) (*DashboardEvent, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case r, ok := <-s.frames:
		if !ok {
			return nil, &Error{Code: "SERVICE_UNAVAILABLE", Status: 503, Message: "dashboard socket closed", Envelope: "dashboard"}
		}
		return r.frame, r.err
	}
}

// Next waits for the next event; ctx bounds the wait (the stream stays usable after it ends). An
// error frame from the gateway (e.g. the key was revoked) is an *Error.
func (s *DashboardStream) Next(ctx context.Context) (*DashboardEvent, error) {
	return s.next(ctx)
}

// Ping sends an application ping (the gateway answers pong, which Next skips).
func (s *DashboardStream) Ping() error { return s.ws.WriteText(`{"type":"ping"}`) }

// Close leaves the socket (safe to call more than once).
func (s *DashboardStream) Close() error {
	s.closeOnce.Do(func() {
		close(s.done)
		_ = s.ws.Close(1000, "client done")
	})
	return nil
}
