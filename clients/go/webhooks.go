package speechgateway

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WebhookEvent is a webhook delivery's body: {id, type, data, createdAt}. ID is the same on every
// retry of one delivery (and in the webhook-id header): de-duplicate on it.
type WebhookEvent struct {
	ID string `json:"id"`
	// Type is one of WebhookEventTypes: "requirement.created", "requirement.updated", ….
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
	CreatedAt string          `json:"createdAt"`
}

// RequirementEvent is the data of requirement.created and requirement.updated: the requirement as
// it now is, and for an update the fields that changed and the status before.
type RequirementEvent struct {
	Requirement
	Changes        []string `json:"changes,omitempty"`
	PreviousStatus *string  `json:"previousStatus,omitempty"`
}

// Requirement decodes the data of a requirement.created or requirement.updated event.
func (e *WebhookEvent) Requirement() (*RequirementEvent, error) {
	return requirementOf(e.Type, e.Data)
}

func requirementOf(eventType string, data json.RawMessage) (*RequirementEvent, error) {
	if eventType != "requirement.created" && eventType != "requirement.updated" {
		return nil, fmt.Errorf("speechgateway: a %s event does not carry a requirement", eventType)
	}
	var out RequirementEvent
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("speechgateway: the data of %s does not match a requirement: %w", eventType, err)
	}
	return &out, nil
}

// WebhookSignatureError is a delivery whose signature is missing, malformed, wrong or stale: answer 401.
type WebhookSignatureError struct{ Reason string }

func (e *WebhookSignatureError) Error() string {
	return "speechgateway: webhook signature: " + e.Reason
}

// VerifyOptions tune VerifyWebhook.
type VerifyOptions struct {
	// Tolerance is the largest accepted age of the signature's timestamp (default 5 minutes); an
	// older (replayed) delivery fails.
	Tolerance time.Duration
	// Now is the current time (default time.Now), for tests.
	Now func() time.Time
}

// VerifyWebhook checks a delivery's x-service-signature header,
// "t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>", in constant time, and the
// timestamp's age; then returns the event. Give it the raw body exactly as received. A bad signature
// is a *WebhookSignatureError.
func VerifyWebhook(rawBody []byte, signatureHeader, secret string, opts ...VerifyOptions) (*WebhookEvent, error) {
	o := VerifyOptions{Tolerance: 5 * time.Minute, Now: time.Now}
	for _, x := range opts {
		if x.Tolerance > 0 {
			o.Tolerance = x.Tolerance
		}
		if x.Now != nil {
			o.Now = x.Now
		}
	}
	if signatureHeader == "" {
		return nil, &WebhookSignatureError{"missing x-service-signature header"}
	}
	if secret == "" {
		return nil, &WebhookSignatureError{"no webhook secret given"}
	}
	var timestamp string
	var signatures [][]byte
	for _, part := range strings.Split(signatureHeader, ",") {
		key, value, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "t":
			timestamp = strings.TrimSpace(value)
		case "v1":
			if sig, err := hex.DecodeString(strings.TrimSpace(value)); err == nil && len(sig) == sha256.Size {
				signatures = append(signatures, sig)
			}
		}
	}
	t, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil || t < 0 || len(signatures) == 0 {
		return nil, &WebhookSignatureError{"malformed x-service-signature header"}
	}
	expected := signature(rawBody, secret, timestamp)
	matched := false
	for _, sig := range signatures {
		if hmac.Equal(sig, expected) {
			matched = true
		}
	}
	if !matched {
		return nil, &WebhookSignatureError{"signature does not match"}
	}
	age := o.Now().Sub(time.Unix(t, 0))
	if age > o.Tolerance || -age > o.Tolerance {
		return nil, &WebhookSignatureError{fmt.Sprintf("signature timestamp is more than %d s away from now", int(o.Tolerance.Seconds()))}
	}
	var event WebhookEvent
	if err := json.Unmarshal(rawBody, &event); err != nil {
		return nil, &WebhookSignatureError{"body is not JSON"}
	}
	return &event, nil
}

func signature(body []byte, secret, timestamp string) []byte {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp + "."))
	mac.Write(body)
	return mac.Sum(nil)
}

// SignWebhook signs a body as the gateway does (for a receiver's own tests).
func SignWebhook(rawBody []byte, secret string, at time.Time) string {
	t := strconv.FormatInt(at.Unix(), 10)
	return "t=" + t + ",v1=" + hex.EncodeToString(signature(rawBody, secret, t))
}

// WebhookHandler is an http.Handler for deliveries: it verifies each one, hands the event to handle
// and answers 200; 401 for a bad signature (not retried usefully) and 500 when handle fails (the
// gateway retries with backoff).
func WebhookHandler(secret string, handle func(*WebhookEvent) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		raw, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		event, err := VerifyWebhook(raw, r.Header.Get("x-service-signature"), secret)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		if err := handle(event); err != nil {
			http.Error(w, "not processed", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
}
