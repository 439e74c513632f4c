package speechgateway_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	speechgateway "speechgateway"
)

func TestOneMethodPerOperationOfTheServedDocument(t *testing.T) {
	res, err := http.Get(gatewayURL + "/api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	served := 0
	client := reflect.TypeOf(&speechgateway.Client{})
	for path, item := range doc.Paths {
		for method, op := range item {
			served++
			known, ok := speechgateway.Operations[op.OperationID]
			if !ok {
				t.Errorf("the client lacks %s (%s %s)", op.OperationID, strings.ToUpper(method), path)
				continue
			}
			if known.Method != strings.ToUpper(method) || known.Path != path {
				t.Errorf("%s is %s %s in the client, %s %s in the document", op.OperationID, known.Method, known.Path, strings.ToUpper(method), path)
			}
			name := strings.ToUpper(op.OperationID[:1]) + op.OperationID[1:]
			if _, ok := client.MethodByName(name); !ok {
				t.Errorf("no method %s", name)
			}
		}
	}
	if served < 40 || served != len(speechgateway.Operations) {
		t.Errorf("the document has %d operations, the client %d", served, len(speechgateway.Operations))
	}
}

func TestGeneratesSpeechAndReadsTheAudioWithRanges(t *testing.T) {
	ctx, gw := testContext(t), admin(t)
	body := speechgateway.GenerateSpeechRequest{Text: unique("Hello from the Go client."), Options: &speechgateway.SpeechOptions{Provider: speechgateway.Ptr("mock"), Format: speechgateway.Ptr("wav")}}
	speech, err := gw.GenerateSpeech(ctx, body)
	if err != nil {
		t.Fatal(err)
	}
	if speech.AudioURL == nil || *speech.AudioURL != "/api/v1/audio/"+speech.Hash || speech.Cached == nil || *speech.Cached {
		t.Fatalf("unexpected answer %+v", speech)
	}
	audio, err := gw.GetAudio(ctx, speech.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if audio.Status != 200 || audio.ContentType != "audio/wav" || string(audio.Body[:4]) != "RIFF" || audio.Header.Get("Content-Length") != fmt.Sprint(len(audio.Body)) {
		t.Fatalf("audio: status %d, %s, %q…, %d bytes (Content-Length %s)", audio.Status, audio.ContentType, audio.Body[:4], len(audio.Body), audio.Header.Get("Content-Length"))
	}
	part, err := gw.GetAudio(ctx, speech.Hash, speechgateway.WithRange(10, 19))
	if err != nil {
		t.Fatal(err)
	}
	if part.Status != 206 || !bytes.Equal(part.Body, audio.Body[10:20]) || part.Header.Get("Content-Range") != fmt.Sprintf("bytes 10-19/%d", len(audio.Body)) {
		t.Fatalf("range: status %d, %d bytes, Content-Range %q", part.Status, len(part.Body), part.Header.Get("Content-Range"))
	}
	tail, err := gw.GetAudio(ctx, speech.Hash, speechgateway.WithRange(int64(len(audio.Body)-5), -1))
	if err != nil || !bytes.Equal(tail.Body, audio.Body[len(audio.Body)-5:]) {
		t.Fatalf("open range: %v", err)
	}
	_, err = gw.GetAudio(ctx, speech.Hash, speechgateway.WithRange(int64(len(audio.Body)+10), -1))
	if !speechgateway.IsCode(err, "RANGE_NOT_SATISFIABLE") || !errors.Is(err, speechgateway.ErrInvalidRequest) {
		t.Fatalf("a range beyond the end: %v", err)
	}
	meta, err := gw.GetAudioMetadata(ctx, speech.Hash)
	if err != nil || meta.Provider != "mock" {
		t.Fatalf("metadata %+v, %v", meta, err)
	}
	if ok, err := gw.HasAudio(ctx, speech.Hash); !ok || err != nil {
		t.Fatalf("HasAudio = %v, %v", ok, err)
	}
	if ok, err := gw.HasAudio(ctx, strings.Repeat("0", 64)); ok || err != nil {
		t.Fatalf("HasAudio(unknown) = %v, %v", ok, err)
	}
	again, err := gw.GenerateSpeech(ctx, body)
	if err != nil || again.Cached == nil || !*again.Cached {
		t.Fatalf("the same text again is not cached: %+v, %v", again, err)
	}
	voices, err := gw.ListVoices(ctx, &speechgateway.ListVoicesQuery{Provider: speechgateway.Ptr("mock")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(voices.Voices), "mock-voice-1") {
		t.Fatalf("voices of mock: %v", voices.Voices)
	}
}

func TestProgressiveEventsAndTheStreamURL(t *testing.T) {
	ctx, gw := testContext(t), admin(t)
	sentences := make([]string, 16)
	for i := range sentences {
		sentences[i] = fmt.Sprintf("Sentence number %d of a longer text from the Go client, long enough to be cut into chunks.", i)
	}
	stream, err := gw.GenerateSpeechProgressive(ctx, speechgateway.GenerateSpeechRequest{Text: unique(strings.Join(sentences, " ")), Options: &speechgateway.SpeechOptions{Provider: speechgateway.Ptr("mock")}})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	started, err := stream.Next()
	if err != nil {
		t.Fatal(err)
	}
	if started.Type != "started" || started.TotalChunks < 2 || !strings.HasSuffix(started.StreamURL, "/stream") {
		t.Fatalf("first event %+v", started)
	}
	// The stream URL plays while the rest is made.
	var streamed []byte
	var streamErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		res, err := gw.Open(ctx, started.StreamURL)
		if err != nil {
			streamErr = err
			return
		}
		defer res.Body.Close()
		streamed, streamErr = io.ReadAll(res.Body)
	}()
	rest, err := stream.Events()
	if err != nil {
		t.Fatal(err)
	}
	progress := 0
	for _, e := range rest[:len(rest)-1] {
		if e.Type != "progress" || e.Total != started.TotalChunks {
			t.Fatalf("unexpected event %+v", e)
		}
		progress++
	}
	complete := rest[len(rest)-1]
	if progress == 0 || complete.Type != "complete" || complete.AudioURL != "/api/v1/audio/"+complete.Hash || complete.Metadata == nil || complete.Metadata.Provider != "mock" {
		t.Fatalf("%d progress events, then %+v", progress, complete)
	}
	if _, err := stream.Next(); err != io.EOF {
		t.Fatalf("after complete: %v", err)
	}
	wg.Wait()
	audio, err := gw.GetAudio(ctx, complete.Hash)
	if err != nil || streamErr != nil {
		t.Fatal(err, streamErr)
	}
	if !bytes.Equal(streamed, audio.Body) {
		t.Fatalf("the stream gave %d bytes, the audio has %d", len(streamed), len(audio.Body))
	}

	_, err = gw.GenerateSpeechProgressive(ctx, speechgateway.GenerateSpeechRequest{Text: "x", Options: &speechgateway.SpeechOptions{Provider: speechgateway.Ptr("mock"), Speed: speechgateway.Ptr(99.0)}})
	if !speechgateway.IsCode(err, "INVALID_SPEED") {
		t.Fatalf("a refused request: %v", err)
	}
}

func TestErrorsOfEachEnvelopeAreTyped(t *testing.T) {
	ctx, gw := testContext(t), admin(t)
	var e *speechgateway.Error

	// TTS: {error: {message, code, provider, details: {…, requestId}}}
	_, err := gw.GenerateSpeech(ctx, speechgateway.GenerateSpeechRequest{Text: "x", Options: &speechgateway.SpeechOptions{Provider: speechgateway.Ptr("mock"), Voice: speechgateway.Ptr("no-such-voice")}})
	if !errors.As(err, &e) || e.Code != "INVALID_VOICE" || e.Status != 400 || e.Envelope != "tts" || e.Provider != "mock" || e.RequestID == "" || !errors.Is(err, speechgateway.ErrInvalidRequest) {
		t.Fatalf("TTS envelope: %#v", err)
	}
	if voices, ok := e.Details["supportedVoices"].([]any); !ok || len(voices) == 0 {
		t.Fatalf("TTS details: %v", e.Details)
	}

	// Integration: {error: {code, message, details: [{field, message}], requestId}}
	_, err = gw.CreateRequirement(ctx, speechgateway.CreateRequirementRequest{Framework: speechgateway.Ptr("gdpr")})
	if !errors.As(err, &e) || e.Code != "VALIDATION_ERROR" || e.Status != 400 || e.Envelope != "integration" || e.RequestID == "" || len(e.Fields) == 0 || e.Fields[0].Field != "title" {
		t.Fatalf("integration envelope: %#v", err)
	}
	_, err = gw.ListRequirements(ctx, &speechgateway.ListRequirementsQuery{Framework: speechgateway.Ptr("hipaa")})
	if !errors.As(err, &e) || e.Code != "INVALID_FRAMEWORK" || fmt.Sprint(e.Details["supportedFrameworks"]) != "[iso13485 fda21cfr11 gdpr soc2]" {
		t.Fatalf("INVALID_FRAMEWORK: %#v", err)
	}
	_, err = gw.GetRequirement(ctx, "no-such-requirement")
	if !errors.Is(err, speechgateway.ErrNotFound) || !speechgateway.IsCode(err, "NOT_FOUND") {
		t.Fatalf("NOT_FOUND: %v", err)
	}

	// Dashboard: {error: {code, message, details: {…}}}
	_, err = gw.GetDashboardHistory(ctx, &speechgateway.GetDashboardHistoryQuery{Period: speechgateway.Ptr("5y")})
	if !errors.As(err, &e) || e.Code != "VALIDATION_ERROR" || e.Status != 400 || e.Envelope != "dashboard" || e.RequestID == "" || len(e.Fields) == 0 || e.Fields[0].Field != "period" {
		t.Fatalf("dashboard envelope: %#v", err)
	}

	// OpenAI's: {error: {message, type, param, code}}, the code lower-cased on the wire.
	_, err = gw.CreateSpeech(ctx, speechgateway.CreateSpeechRequest{Model: "mock", Input: "x", Voice: "no-such-voice"})
	if !errors.As(err, &e) || e.Code != "INVALID_VOICE" || e.Status != 400 || e.Envelope != "openai" || e.RequestID == "" || len(e.Fields) != 1 || e.Fields[0].Field != "voice" || !errors.Is(err, speechgateway.ErrInvalidRequest) {
		t.Fatalf("OpenAI envelope: %#v", err)
	}

	// Keys: none (401), one without the permission (403).
	_, err = clientWithKey(t, "").ListRequirements(ctx, nil)
	if !errors.Is(err, speechgateway.ErrAuthentication) || !speechgateway.IsCode(err, "AUTHENTICATION_ERROR") {
		t.Fatalf("no key: %v", err)
	}
	key, err := gw.CreateApiKey(ctx, speechgateway.CreateApiKeyRequest{Name: "go reader", Permissions: []string{"read:requirements"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = clientWithKey(t, key.Key).CreateRequirement(ctx, speechgateway.CreateRequirementRequest{Title: "t", Framework: speechgateway.Ptr("gdpr")})
	if !errors.As(err, &e) || e.Code != "AUTHORIZATION_ERROR" || e.Status != 403 || !errors.Is(err, speechgateway.ErrAuthorization) {
		t.Fatalf("a key without write:requirements: %v", err)
	}
	_, err = clientWithKey(t, key.Key).GetDashboardMetrics(ctx)
	if !errors.As(err, &e) || e.Code != "AUTHORIZATION_ERROR" || e.Envelope != "dashboard" {
		t.Fatalf("a key without read:dashboard: %v", err)
	}

	// No gateway at all.
	down, _ := speechgateway.New(speechgateway.Options{BaseURL: "http://127.0.0.1:9", MaxRetries: -1})
	_, err = down.Health(ctx)
	if !errors.As(err, &e) || e.Code != "SERVICE_UNAVAILABLE" || !errors.Is(err, speechgateway.ErrServer) {
		t.Fatalf("unreachable: %v", err)
	}
}

func TestRequirementsCreateListUpdate(t *testing.T) {
	ctx, gw := testContext(t), admin(t)
	title := unique("Go-made requirement")
	created, err := gw.CreateRequirement(ctx, speechgateway.CreateRequirementRequest{Title: title, Framework: speechgateway.Ptr("gdpr"), Priority: speechgateway.Ptr("high"), AcceptanceCriteria: &[]string{"logs kept 6 years"}})
	if err != nil {
		t.Fatal(err)
	}
	if created.Status != "pending" || created.Priority != "high" || created.Title != title || len(created.AcceptanceCriteria) != 1 || created.Description != nil {
		t.Fatalf("created %+v", created)
	}
	updated, err := gw.UpdateRequirement(ctx, created.ID, speechgateway.UpdateRequirementRequest{Status: speechgateway.Ptr("completed"), Description: speechgateway.Ptr("Done in Go")})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Status != "completed" || updated.Description == nil || *updated.Description != "Done in Go" || updated.Title != title {
		t.Fatalf("updated %+v", updated)
	}
	got, err := gw.GetRequirement(ctx, created.ID)
	if err != nil || got.Status != "completed" {
		t.Fatalf("get %+v, %v", got, err)
	}
	page, err := gw.ListRequirements(ctx, &speechgateway.ListRequirementsQuery{Framework: speechgateway.Ptr("gdpr"), Status: speechgateway.Ptr("completed"), Limit: speechgateway.Ptr[int64](500)})
	if err != nil {
		t.Fatal(err)
	}
	if page.Pagination.Limit != 500 {
		t.Fatalf("pagination %+v", page.Pagination)
	}
	found := false
	for _, r := range page.Data {
		if r.Framework == nil || *r.Framework != "gdpr" || r.Status != "completed" {
			t.Fatalf("the filter let %+v through", r)
		}
		found = found || r.ID == created.ID
	}
	if !found {
		t.Fatalf("%s is not in the list of completed gdpr requirements", created.ID)
	}
	other, err := gw.ListRequirements(ctx, &speechgateway.ListRequirementsQuery{Framework: speechgateway.Ptr("soc2"), Limit: speechgateway.Ptr[int64](500)})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range other.Data {
		if r.ID == created.ID {
			t.Fatal("a gdpr requirement in the soc2 list")
		}
	}
	// The short listing reaches the same record.
	short, err := gw.ShortGetRequirement(ctx, created.ID)
	if err != nil || short.ID != created.ID {
		t.Fatalf("short listing %+v, %v", short, err)
	}
}

func TestComplianceReportDownload(t *testing.T) {
	ctx, gw := testContext(t), admin(t)
	report, err := gw.RequestComplianceReport(ctx, speechgateway.RequestComplianceReportRequest{Framework: "soc2", Format: speechgateway.Ptr("csv")})
	if err != nil {
		t.Fatal(err)
	}
	for report.Status != "completed" {
		if report.Status == "failed" {
			t.Fatalf("report failed: %+v", report)
		}
		select {
		case <-ctx.Done():
			t.Fatal("the report did not complete")
		case <-time.After(200 * time.Millisecond):
		}
		if report, err = gw.GetComplianceReport(ctx, report.ReportID); err != nil {
			t.Fatal(err)
		}
	}
	file, err := gw.DownloadComplianceReport(ctx, report.ReportID)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(file.Body)
	if !strings.HasPrefix(file.ContentType, "text/csv") || !bytes.HasPrefix(file.Body, []byte("section,")) || report.SHA256 == nil || hex.EncodeToString(sum[:]) != *report.SHA256 {
		t.Fatalf("download: %s, %d bytes, sha256 %x (report says %v)", file.ContentType, len(file.Body), sum, report.SHA256)
	}
	// The downloadUrl the report names is the same file.
	res, err := gw.Open(ctx, *report.DownloadURL)
	if err != nil {
		t.Fatal(err)
	}
	same, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Equal(same, file.Body) {
		t.Fatal("downloadUrl gave other bytes")
	}
	_, err = gw.DownloadComplianceReport(ctx, "rpt_no_such_report")
	if !errors.Is(err, speechgateway.ErrNotFound) {
		t.Fatalf("unknown report: %v", err)
	}
}

func TestVerifiesARealWebhookDelivery(t *testing.T) {
	ctx, gw := testContext(t), admin(t)
	type delivery struct {
		raw       []byte
		signature string
		webhookID string
		// answered is what WebhookHandler answered this delivery.
		answered int
		handled  *speechgateway.WebhookEvent
	}
	deliveries := make(chan delivery, 16)
	var secret atomic.Value
	secret.Store("")
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		d := delivery{raw: raw, signature: r.Header.Get("x-service-signature"), webhookID: r.Header.Get("webhook-id")}
		recorder := httptest.NewRecorder()
		speechgateway.WebhookHandler(secret.Load().(string), func(e *speechgateway.WebhookEvent) error {
			d.handled = e
			return nil
		}).ServeHTTP(recorder, r)
		d.answered = recorder.Code
		w.WriteHeader(recorder.Code)
		deliveries <- d
	})
	receiver := httptest.NewServer(handler)
	defer receiver.Close()

	hook, err := gw.CreateWebhook(ctx, speechgateway.CreateWebhookRequest{URL: receiver.URL + "/hook", Events: []string{"requirement.updated"}})
	if err != nil {
		t.Fatalf("registering a loopback webhook (the gateway needs WEBHOOK_ALLOW_PRIVATE_NETWORKS=true): %v", err)
	}
	defer gw.DeleteWebhook(context.Background(), hook.ID)
	secret.Store(hook.Secret)
	created, err := gw.CreateRequirement(ctx, speechgateway.CreateRequirementRequest{Title: unique("Webhook from the Go test"), Framework: speechgateway.Ptr("soc2")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gw.UpdateRequirement(ctx, created.ID, speechgateway.UpdateRequirementRequest{Status: speechgateway.Ptr("in-progress")}); err != nil {
		t.Fatal(err)
	}
	var got delivery
	var event *speechgateway.WebhookEvent
	for event == nil {
		select {
		case d := <-deliveries:
			e, err := speechgateway.VerifyWebhook(d.raw, d.signature, hook.Secret)
			if err != nil {
				t.Fatalf("a real delivery does not verify: %v", err)
			}
			if e.Type == "requirement.updated" && strings.Contains(string(e.Data), created.ID) {
				got, event = d, e
			}
		case <-ctx.Done():
			t.Fatal("no requirement.updated delivery within the test's time")
		}
	}
	if got.webhookID != event.ID {
		t.Fatalf("webhook-id %q, event id %q", got.webhookID, event.ID)
	}
	requirement, err := event.Requirement()
	if err != nil {
		t.Fatal(err)
	}
	if requirement.ID != created.ID || requirement.Status != "in-progress" || requirement.PreviousStatus == nil || *requirement.PreviousStatus != "pending" || fmt.Sprint(requirement.Changes) != "[status]" {
		t.Fatalf("typed requirement.updated: %+v", requirement)
	}
	if got.answered != 200 || got.handled == nil || got.handled.ID != event.ID {
		t.Fatalf("WebhookHandler answered %d and handled %+v", got.answered, got.handled)
	}

	var sigErr *speechgateway.WebhookSignatureError
	tampered := bytes.Replace(got.raw, []byte("in-progress"), []byte("completed"), 1)
	if _, err := speechgateway.VerifyWebhook(tampered, got.signature, hook.Secret); !errors.As(err, &sigErr) {
		t.Fatalf("a tampered body verified: %v", err)
	}
	if _, err := speechgateway.VerifyWebhook(got.raw, got.signature, "another-secret-of-16+"); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("another secret: %v", err)
	}
	var ts int64
	fmt.Sscanf(got.signature, "t=%d,", &ts)
	late := func() time.Time { return time.Unix(ts+301, 0) }
	if _, err := speechgateway.VerifyWebhook(got.raw, got.signature, hook.Secret, speechgateway.VerifyOptions{Now: late}); err == nil || !strings.Contains(err.Error(), "300 s") {
		t.Fatalf("a stale delivery: %v", err)
	}
	if _, err := speechgateway.VerifyWebhook(got.raw, "", hook.Secret); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("no signature: %v", err)
	}
	if speechgateway.SignWebhook(got.raw, hook.Secret, time.Unix(ts, 0)) != got.signature {
		t.Fatal("SignWebhook differs from the gateway's signature")
	}
	// The handler refuses a forged delivery with 401.
	forged, _ := http.Post(receiver.URL+"/hook", "application/json", bytes.NewReader(tampered))
	if forged.StatusCode != 401 {
		t.Fatalf("a forged delivery got %d", forged.StatusCode)
	}
	forged.Body.Close()
}

func TestDashboardWebSocketEvent(t *testing.T) {
	ctx, gw := testContext(t), admin(t)
	stream, err := gw.DashboardEvents(ctx, "requirement_updated")
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	if fmt.Sprint(stream.Subscribed()) != "[requirement_updated]" {
		t.Fatalf("subscribed to %v", stream.Subscribed())
	}
	created, err := gw.CreateRequirement(ctx, speechgateway.CreateRequirementRequest{Title: unique("Live from the Go test"), Framework: speechgateway.Ptr("iso13485")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gw.UpdateRequirement(ctx, created.ID, speechgateway.UpdateRequirementRequest{Priority: speechgateway.Ptr("critical")}); err != nil {
		t.Fatal(err)
	}
	if err := stream.Ping(); err != nil {
		t.Fatal(err)
	}
	for {
		event, err := stream.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if event.Type != "requirement_updated" || event.ID == "" || event.Timestamp == "" {
			t.Fatalf("unexpected event %+v", event)
		}
		if event.Event != "requirement.updated" || !strings.Contains(string(event.Data), created.ID) {
			continue // other writers' events, or the creation
		}
		requirement, err := event.Requirement()
		if err != nil {
			t.Fatal(err)
		}
		if requirement.ID != created.ID || requirement.Priority != "critical" || fmt.Sprint(requirement.Changes) != "[priority]" {
			t.Fatalf("typed event %+v", requirement)
		}
		break
	}
	// A bounded wait with nothing to read ends, and the stream stays usable.
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = stream.Next(short)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("an idle wait: %v", err)
	}

	// A key without read:dashboard is refused at the upgrade.
	key, err := gw.CreateApiKey(ctx, speechgateway.CreateApiKeyRequest{Name: "go no-dashboard", Permissions: []string{"read:requirements"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = clientWithKey(t, key.Key).DashboardEvents(ctx)
	if !errors.Is(err, speechgateway.ErrAuthorization) {
		t.Fatalf("a key without read:dashboard: %v", err)
	}
	_, err = clientWithKey(t, "sk_no_such_key").DashboardEvents(ctx)
	if !errors.Is(err, speechgateway.ErrAuthentication) {
		t.Fatalf("an unknown key: %v", err)
	}
}

func TestReleaseGateFunctionAndCommand(t *testing.T) {
	ctx, gw := testContext(t), admin(t)
	// A pending fda21cfr11 requirement keeps that framework's score below 100.
	if _, err := gw.CreateRequirement(ctx, speechgateway.CreateRequirementRequest{Title: unique("Gate check"), Framework: speechgateway.Ptr("fda21cfr11")}); err != nil {
		t.Fatal(err)
	}
	pass, err := gw.Gate(ctx, "fda21cfr11", speechgateway.Ptr(0.0), nil)
	if err != nil || !pass.Passed || pass.Result != "pass" {
		t.Fatalf("gate at 0: %+v, %v", pass, err)
	}
	fail, err := gw.Gate(ctx, "fda21cfr11", speechgateway.Ptr(100.0), nil)
	if err != nil || fail.Passed || len(fail.Reasons) == 0 {
		t.Fatalf("gate at 100: %+v, %v", fail, err)
	}

	env := func(name string) string {
		return map[string]string{"GATEWAY_URL": gatewayURL, "GATEWAY_API_KEY": adminKey}[name]
	}
	var out, errOut bytes.Buffer
	if code := speechgateway.GateCommand(ctx, []string{"gate", "--framework", "fda21cfr11", "--min-score", "0"}, &out, &errOut, env); code != 0 || !strings.HasPrefix(out.String(), "PASS fda21cfr11") {
		t.Fatalf("exit %d: %s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := speechgateway.GateCommand(ctx, []string{"gate", "--framework", "fda21cfr11", "--min-score", "100", "--json"}, &out, &errOut, env); code != 1 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var answer speechgateway.ComplianceGateResponse
	if err := json.Unmarshal(out.Bytes(), &answer); err != nil || answer.Passed {
		t.Fatalf("--json printed %q", out.String())
	}
	errOut.Reset()
	if code := speechgateway.GateCommand(ctx, []string{"gate", "--framework", "hipaa"}, &out, &errOut, env); code != 2 || !strings.Contains(errOut.String(), "VALIDATION_ERROR") && !strings.Contains(errOut.String(), "INVALID_FRAMEWORK") {
		t.Fatalf("an unknown framework: exit %d, %s", code, errOut.String())
	}
	if code := speechgateway.GateCommand(ctx, []string{"gate", "--min-score", "1"}, &out, &errOut, env); code != 2 {
		t.Fatalf("no framework: exit %d", code)
	}

	// The command itself, built and run as a user would.
	bin := filepath.Join(t.TempDir(), "speech-gateway")
	build := exec.Command("go", "build", "-o", bin, "./cmd/speech-gateway")
	if output, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, output)
	}
	run := exec.Command(bin, "gate", "--framework", "fda21cfr11", "--min-score", "100")
	run.Env = append(os.Environ(), "GATEWAY_URL="+gatewayURL, "GATEWAY_API_KEY="+adminKey)
	output, err := run.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.HasPrefix(string(output), "FAIL fda21cfr11") {
		t.Fatalf("speech-gateway gate: %v\n%s", err, output)
	}
	run = exec.Command(bin, "gate", "--framework", "fda21cfr11", "--min-score", "0", "--url", gatewayURL, "--api-key", adminKey)
	if output, err := run.Output(); err != nil || !strings.HasPrefix(string(output), "PASS") {
		t.Fatalf("speech-gateway gate --url: %v\n%s", err, output)
	}
}

func TestRetriesHonourRetryAfter(t *testing.T) {
	var calls int32
	limited := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := atomic.AddInt32(&calls, 1)
		switch {
		case r.URL.Path == "/api/v1/health/live" && n == 1:
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(429)
			_, _ = w.Write([]byte(`{"error":{"message":"Too many requests","code":"RATE_LIMIT_EXCEEDED","provider":null,"details":{"requestId":"r1"}}}`))
		case r.URL.Path == "/api/v1/health/live":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"live":true,"timestamp":"2026-01-01T00:00:00Z"}`))
		default:
			w.Header().Set("Retry-After", "120")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(503)
			_, _ = w.Write([]byte(`{"error":{"code":"SERVICE_UNAVAILABLE","message":"draining","details":[],"requestId":"r2"}}`))
		}
	}))
	defer limited.Close()
	ctx := testContext(t)
	c, _ := speechgateway.New(speechgateway.Options{BaseURL: limited.URL})
	began := time.Now()
	if live, err := c.Live(ctx); err != nil || !live.Live {
		t.Fatal(err)
	}
	if waited := time.Since(began); waited < 900*time.Millisecond || atomic.LoadInt32(&calls) != 2 {
		t.Fatalf("answered after %v and %d calls; Retry-After said 1 s", waited, calls)
	}
	// A wait longer than MaxRetryWait is not waited for: the error says how long.
	began = time.Now()
	_, err := c.ListFrameworks(ctx)
	var e *speechgateway.Error
	if !errors.As(err, &e) || e.Code != "SERVICE_UNAVAILABLE" || e.RetryAfter != 120*time.Second || e.RequestID != "r2" || time.Since(began) > 5*time.Second {
		t.Fatalf("a 503 asking for 120 s: %v after %v", err, time.Since(began))
	}
	// With retries off, the 429 comes back at once.
	atomic.StoreInt32(&calls, 0)
	off, _ := speechgateway.New(speechgateway.Options{BaseURL: limited.URL, MaxRetries: -1})
	_, err = off.Live(ctx)
	if !errors.Is(err, speechgateway.ErrRateLimited) || !errors.As(err, &e) || e.RetryAfter != time.Second || atomic.LoadInt32(&calls) != 1 {
		t.Fatalf("retries off: %v after %d calls", err, calls)
	}
}
