package speechgateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Error is every failure the gateway reports, read from whichever of its three error envelopes the
// answer used: TTS {error: {message, code, provider, details: {…, requestId}}}, integration
// {error: {code, message, details: [{field, message}], requestId}} and dashboard
// {error: {code, message, details: {…}}}. Match a family with errors.Is (ErrNotFound, …) and the
// exact case with Code.
type Error struct {
	// Code is the gateway's error code: INVALID_VOICE, VALIDATION_ERROR, NOT_FOUND, … (ErrorStatus
	// lists them); SERVICE_UNAVAILABLE when the gateway could not be reached.
	Code string
	// Status is the HTTP status (503 when the gateway could not be reached).
	Status  int
	Message string
	// Details are the envelope's object details (e.g. supportedFrameworks of INVALID_FRAMEWORK).
	Details map[string]any
	// Fields are the per-field problems: the integration envelope's details list, or details.fields.
	Fields []FieldError
	// RequestID is the id to quote to support (envelope, details or X-Request-Id).
	RequestID string
	// Provider is the speech provider the TTS envelope names, if any.
	Provider string
	// RetryAfter is the wait the gateway asked for (Retry-After), if it did.
	RetryAfter time.Duration
	// Envelope is "tts", "integration" or "dashboard": which documented envelope the path answers with.
	Envelope string
	cause    error
}

// FieldError is one field's problem.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	s := fmt.Sprintf("speechgateway: %s (%d): %s", e.Code, e.Status, e.Message)
	if e.RequestID != "" {
		s += " [request " + e.RequestID + "]"
	}
	return s
}

// Unwrap gives the network error behind SERVICE_UNAVAILABLE, if any.
func (e *Error) Unwrap() error { return e.cause }

// The families of errors, for errors.Is.
var (
	ErrInvalidRequest = errors.New("speechgateway: invalid request") // 400, 413, 415, 416
	ErrAuthentication = errors.New("speechgateway: authentication")  // 401
	ErrAuthorization  = errors.New("speechgateway: authorization")   // 403
	ErrNotFound       = errors.New("speechgateway: not found")       // 404, 410
	ErrConflict       = errors.New("speechgateway: conflict")        // 409
	ErrRateLimited    = errors.New("speechgateway: rate limited")    // 429
	ErrServer         = errors.New("speechgateway: server error")    // 5xx, unreachable
	errFamilies       = []error{ErrInvalidRequest, ErrAuthentication, ErrAuthorization, ErrNotFound, ErrConflict, ErrRateLimited, ErrServer}
)

// Family is the family sentinel of the error (ErrNotFound, …).
func (e *Error) Family() error {
	switch {
	case e.Code == "AUTHENTICATION_ERROR" || e.Status == 401:
		return ErrAuthentication
	case e.Code == "AUTHORIZATION_ERROR" || e.Status == 403:
		return ErrAuthorization
	case e.Code == "NOT_FOUND" || e.Code == "GONE" || e.Status == 404 || e.Status == 410:
		return ErrNotFound
	case e.Code == "CONFLICT" || e.Status == 409:
		return ErrConflict
	case e.Code == "RATE_LIMIT_EXCEEDED" || e.Status == 429:
		return ErrRateLimited
	case e.Status >= 500:
		return ErrServer
	default:
		return ErrInvalidRequest
	}
}

// Is matches the error's family: errors.Is(err, speechgateway.ErrNotFound).
func (e *Error) Is(target error) bool {
	for _, f := range errFamilies {
		if target == f {
			return e.Family() == f
		}
	}
	return false
}

// IsCode tells whether err is a gateway error of that code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

func unreachable(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Code: "SERVICE_UNAVAILABLE", Status: 503, Message: "no answer: " + err.Error(), cause: err}
	}
	return &Error{Code: "SERVICE_UNAVAILABLE", Status: 503, Message: "gateway unreachable: " + err.Error(), cause: err}
}

// envelopeOf tells which envelope a path answers errors with (the gateway chooses it by prefix).
func envelopeOf(path string) string {
	switch {
	case strings.HasPrefix(path, "/api/v1"):
		return "tts"
	case strings.HasPrefix(path, "/v1/dashboard"), strings.HasPrefix(path, "/api/dashboard"):
		return "dashboard"
	case strings.HasPrefix(path, "/v1/audio/"), path == "/v1/models":
		return "openai"
	default:
		return "integration"
	}
}

var codeOfStatus = map[int]string{400: "VALIDATION_ERROR", 401: "AUTHENTICATION_ERROR", 403: "AUTHORIZATION_ERROR", 404: "NOT_FOUND", 409: "CONFLICT", 410: "GONE", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE", 416: "RANGE_NOT_SATISFIABLE", 429: "RATE_LIMIT_EXCEEDED", 503: "SERVICE_UNAVAILABLE"}

func errorFromResponse(res *http.Response, readBody bool, envelope string) *Error {
	var raw []byte
	if readBody {
		raw, _ = io.ReadAll(io.LimitReader(res.Body, 1<<20))
	}
	return errorFromBody(res.StatusCode, raw, res.Header, envelope)
}

// errorFromBody reads any of the envelopes (TTS, integration, dashboard, OpenAI's); an answer without one gets the code of its status.
func errorFromBody(status int, raw []byte, header http.Header, envelope string) *Error {
	e := &Error{Status: status, Envelope: envelope, Details: map[string]any{}}
	if wait, ok := retryAfter(header); ok {
		e.RetryAfter = wait
	}
	var body struct {
		Error *struct {
			Code      string          `json:"code"`
			Message   string          `json:"message"`
			Provider  *string         `json:"provider"`
			Details   json.RawMessage `json:"details"`
			RequestID string          `json:"requestId"`
			// OpenAI's envelope (/v1/audio/speech, /v1/models): the field at fault; `code` is lower-cased there.
			Param *string `json:"param"`
		} `json:"error"`
	}
	if len(raw) > 0 && json.Unmarshal(raw, &body) == nil && body.Error != nil && body.Error.Code != "" {
		env := body.Error
		e.Code, e.Message, e.RequestID = env.Code, env.Message, env.RequestID
		if envelope == "openai" {
			e.Code = strings.ToUpper(env.Code)
			if env.Param != nil {
				e.Fields = []FieldError{{Field: *env.Param, Message: env.Message}}
			}
		}
		if env.Provider != nil {
			e.Provider = *env.Provider
		}
		details := strings.TrimSpace(string(env.Details))
		switch {
		case strings.HasPrefix(details, "["):
			_ = json.Unmarshal(env.Details, &e.Fields)
		case strings.HasPrefix(details, "{"):
			_ = json.Unmarshal(env.Details, &e.Details)
			if list, ok := e.Details["fields"]; ok {
				if again, err := json.Marshal(list); err == nil {
					_ = json.Unmarshal(again, &e.Fields)
				}
			}
			if id, ok := e.Details["requestId"].(string); ok && e.RequestID == "" {
				e.RequestID = id
			}
		}
	} else {
		e.Code = codeOfStatus[status]
		if e.Code == "" {
			e.Code = "VALIDATION_ERROR"
			if status >= 500 {
				e.Code = "INTERNAL_ERROR"
			}
		}
		e.Message = fmt.Sprintf("HTTP %d", status)
	}
	if e.RequestID == "" && header != nil {
		e.RequestID = header.Get("X-Request-Id")
	}
	return e
}
