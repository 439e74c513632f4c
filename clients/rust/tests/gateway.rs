//! The Rust client against a real gateway (see tests/support for which one).

#![allow(clippy::result_large_err)]

mod support;

use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};
use speech_gateway::types::*;
use speech_gateway::{sign_webhook, verify_webhook, verify_webhook_with, Client, ErrorKind, ProgressEvent, VerifyOptions, OPERATIONS};
use support::{admin, gateway, serve, unique, with_key};

#[test]
fn one_operation_per_operation_of_the_served_document() {
    let mut doc = String::new();
    admin().open("/api/openapi.json").unwrap().read_to_string(&mut doc).unwrap();
    let doc: Value = serde_json::from_str(&doc).unwrap();
    let mut served = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            served.push((op["operationId"].as_str().unwrap().to_string(), method.to_uppercase(), path.clone()));
        }
    }
    assert!(served.len() > 40);
    assert_eq!(served.len(), OPERATIONS.len());
    for (id, method, path) in &served {
        let op = speech_gateway::operation(id).unwrap_or_else(|| panic!("the client lacks {} ({} {})", id, method, path));
        assert_eq!((op.method, op.path), (method.as_str(), path.as_str()), "{}", id);
    }
}

#[test]
fn generates_speech_and_reads_the_audio_with_ranges() {
    let gw = admin();
    let body = GenerateSpeechRequest {
        text: unique("Hello from the Rust client."),
        options: Some(SpeechOptions { provider: Some("mock".into()), format: Some("wav".into()), ..Default::default() }),
        ..Default::default()
    };
    let speech = gw.generate_speech(&body).unwrap();
    assert_eq!(speech.audio_url.as_deref(), Some(format!("/api/v1/audio/{}", speech.hash).as_str()));
    assert_eq!(speech.cached, Some(false));

    let audio = gw.get_audio(&speech.hash).unwrap();
    assert_eq!((audio.status, audio.content_type.as_str()), (200, "audio/wav"));
    assert_eq!(&audio.body[..4], b"RIFF");
    assert_eq!(audio.header("content-length"), Some(audio.body.len().to_string().as_str()));

    let part = gw.with_range(10, Some(19)).get_audio(&speech.hash).unwrap();
    assert_eq!(part.status, 206);
    assert_eq!(part.body, audio.body[10..20]);
    assert_eq!(part.header("Content-Range"), Some(format!("bytes 10-19/{}", audio.body.len()).as_str()));
    let tail = gw.with_range(audio.body.len() as u64 - 5, None).get_audio(&speech.hash).unwrap();
    assert_eq!(tail.body, audio.body[audio.body.len() - 5..]);
    let beyond = gw.with_range(audio.body.len() as u64 + 10, None).get_audio(&speech.hash).unwrap_err();
    assert_eq!((beyond.code.as_str(), beyond.kind), ("RANGE_NOT_SATISFIABLE", ErrorKind::InvalidRequest));

    assert_eq!(gw.get_audio_metadata(&speech.hash).unwrap().provider, "mock");
    assert!(gw.has_audio(&speech.hash).unwrap());
    assert!(!gw.has_audio(&"0".repeat(64)).unwrap());
    assert_eq!(gw.generate_speech(&body).unwrap().cached, Some(true));
    let voices = gw.list_voices(&ListVoicesQuery { provider: Some("mock".into()) }).unwrap();
    assert!(voices.voices.iter().any(|v| v == "mock-voice-1"), "{:?}", voices.voices);
}

#[test]
fn progressive_events_and_the_stream_url() {
    let gw = admin();
    let text: Vec<String> = (0..16).map(|i| format!("Sentence number {} of a longer text from the Rust client, long enough to be cut into chunks.", i)).collect();
    let body = GenerateSpeechRequest { text: unique(&text.join(" ")), options: Some(SpeechOptions { provider: Some("mock".into()), ..Default::default() }), ..Default::default() };
    let mut stream = gw.generate_speech_progressive(&body).unwrap();
    let (total, stream_url) = match stream.next().unwrap().unwrap() {
        ProgressEvent::Started { total_chunks, stream_url } => (total_chunks, stream_url),
        other => panic!("first event {:?}", other),
    };
    assert!(total > 1 && stream_url.ends_with("/stream"), "{} {}", total, stream_url);
    // The stream URL plays while the rest is made.
    let reader = gw.clone();
    let streamed = thread::spawn(move || {
        let mut bytes = Vec::new();
        reader.open(&stream_url).map(|mut s| s.read_to_end(&mut bytes).map(|_| bytes))
    });
    let rest = stream.collect_events().unwrap();
    let (progress, complete) = rest.split_at(rest.len() - 1);
    assert!(!progress.is_empty());
    for e in progress {
        assert!(matches!(e, ProgressEvent::Progress { total: t, .. } if *t == total), "{:?}", e);
    }
    let hash = match &complete[0] {
        ProgressEvent::Complete { hash, audio_url, metadata, .. } => {
            assert_eq!(audio_url, &format!("/api/v1/audio/{}", hash));
            assert_eq!(metadata.provider, "mock");
            hash.clone()
        }
        other => panic!("last event {:?}", other),
    };
    let streamed = streamed.join().unwrap().unwrap().unwrap();
    assert_eq!(streamed, gw.get_audio(&hash).unwrap().body);

    let refused = gw
        .generate_speech_progressive(&GenerateSpeechRequest {
            text: "x".into(),
            options: Some(SpeechOptions { provider: Some("mock".into()), speed: Some(99.0), ..Default::default() }),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(refused.code, "INVALID_SPEED");
}

#[test]
fn errors_of_each_envelope_are_typed() {
    let gw = admin();
    // TTS: {error: {message, code, provider, details: {…, requestId}}}
    let e = gw
        .generate_speech(&GenerateSpeechRequest {
            text: "x".into(),
            options: Some(SpeechOptions { provider: Some("mock".into()), voice: Some("no-such-voice".into()), ..Default::default() }),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!((e.code.as_str(), e.status, e.kind, e.envelope), ("INVALID_VOICE", 400, ErrorKind::InvalidRequest, Some("tts")));
    assert_eq!(e.provider.as_deref(), Some("mock"));
    assert!(e.request_id.is_some());
    assert!(e.details["supportedVoices"].as_array().map_or(false, |v| !v.is_empty()), "{:?}", e.details);

    // Integration: {error: {code, message, details: [{field, message}], requestId}}
    let e = gw.create_requirement(&CreateRequirementRequest { framework: Some("gdpr".into()), ..Default::default() }).unwrap_err();
    assert_eq!((e.code.as_str(), e.status, e.envelope), ("VALIDATION_ERROR", 400, Some("integration")));
    assert!(e.request_id.is_some());
    assert_eq!(e.fields.first().map(|f| f.field.as_str()), Some("title"), "{:?}", e.fields);
    let e = gw.list_requirements(&ListRequirementsQuery { framework: Some("hipaa".into()), ..Default::default() }).unwrap_err();
    assert_eq!(e.code, "INVALID_FRAMEWORK");
    assert_eq!(e.details["supportedFrameworks"], serde_json::json!(["iso13485", "fda21cfr11", "gdpr", "soc2"]));
    let e = gw.get_requirement("no-such-requirement").unwrap_err();
    assert_eq!((e.kind, e.code.as_str()), (ErrorKind::NotFound, "NOT_FOUND"));

    // Dashboard: {error: {code, message, details: {…}}}
    let e = gw.get_dashboard_history(&GetDashboardHistoryQuery { period: Some("5y".into()), ..Default::default() }).unwrap_err();
    assert_eq!((e.code.as_str(), e.status, e.envelope), ("VALIDATION_ERROR", 400, Some("dashboard")));
    assert!(e.request_id.is_some());
    assert_eq!(e.fields.first().map(|f| f.field.as_str()), Some("period"), "{:?}", e.fields);

    // OpenAI's: {error: {message, type, param, code}}, the code lower-cased on the wire.
    let e = gw.create_speech(&CreateSpeechRequest { model: "mock".into(), input: "x".into(), voice: "no-such-voice".into(), ..Default::default() }).unwrap_err();
    assert_eq!((e.code.as_str(), e.status, e.kind, e.envelope), ("INVALID_VOICE", 400, ErrorKind::InvalidRequest, Some("openai")));
    assert_eq!(e.fields.first().map(|f| f.field.as_str()), Some("voice"), "{:?}", e.fields);
    assert!(e.request_id.is_some());

    // Keys: none (401), one without the permission (403).
    let e = with_key(None).list_requirements(&Default::default()).unwrap_err();
    assert_eq!((e.kind, e.code.as_str()), (ErrorKind::Authentication, "AUTHENTICATION_ERROR"));
    let key = gw.create_api_key(&CreateApiKeyRequest { name: "rust reader".into(), permissions: vec!["read:requirements".into()], ..Default::default() }).unwrap().key;
    let reader = with_key(Some(&key));
    let e = reader.create_requirement(&CreateRequirementRequest { title: "t".into(), framework: Some("gdpr".into()), ..Default::default() }).unwrap_err();
    assert_eq!((e.kind, e.code.as_str(), e.status), (ErrorKind::Authorization, "AUTHORIZATION_ERROR", 403));
    let e = reader.get_dashboard_metrics().unwrap_err();
    assert_eq!((e.code.as_str(), e.envelope), ("AUTHORIZATION_ERROR", Some("dashboard")));

    // No gateway at all.
    let down = Client::builder("http://127.0.0.1:9").max_retries(0).build().unwrap();
    let e = down.health().unwrap_err();
    assert_eq!((e.kind, e.code.as_str()), (ErrorKind::Server, "SERVICE_UNAVAILABLE"));
    assert!(std::error::Error::source(&e).is_some());
}

#[test]
fn requirements_create_list_update() {
    let gw = admin();
    let title = unique("Rust-made requirement");
    let created = gw
        .create_requirement(&CreateRequirementRequest {
            title: title.clone(),
            framework: Some("gdpr".into()),
            priority: Some("high".into()),
            acceptance_criteria: Some(vec!["logs kept 6 years".into()]),
            ..Default::default()
        })
        .unwrap();
    assert_eq!((created.status.as_str(), created.priority.as_str(), created.title.as_str()), ("pending", "high", title.as_str()));
    assert_eq!(created.acceptance_criteria, vec!["logs kept 6 years".to_string()]);
    assert_eq!(created.description, None);

    let updated =
        gw.update_requirement(&created.id, &UpdateRequirementRequest { status: Some("completed".into()), description: Some("Done in Rust".into()), ..Default::default() }).unwrap();
    assert_eq!((updated.status.as_str(), updated.description.as_deref(), updated.title.as_str()), ("completed", Some("Done in Rust"), title.as_str()));
    assert_eq!(gw.get_requirement(&created.id).unwrap().status, "completed");

    let page = gw.list_requirements(&ListRequirementsQuery { framework: Some("gdpr".into()), status: Some("completed".into()), limit: Some(500), ..Default::default() }).unwrap();
    assert_eq!(page.pagination.limit, 500);
    assert!(page.data.iter().all(|r| r.framework.as_deref() == Some("gdpr") && r.status == "completed"));
    assert!(page.data.iter().any(|r| r.id == created.id));
    let other = gw.list_requirements(&ListRequirementsQuery { framework: Some("soc2".into()), limit: Some(500), ..Default::default() }).unwrap();
    assert!(other.data.iter().all(|r| r.id != created.id));
    // The short listing reaches the same record.
    assert_eq!(gw.short_get_requirement(&created.id).unwrap().id, created.id);
}

#[test]
fn compliance_report_download() {
    let gw = admin();
    let mut report = gw.request_compliance_report(&RequestComplianceReportRequest { framework: "soc2".into(), format: Some("csv".into()), ..Default::default() }).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while report.status != "completed" {
        assert_ne!(report.status, "failed", "{:?}", report);
        assert!(Instant::now() < deadline, "the report did not complete");
        thread::sleep(Duration::from_millis(200));
        report = gw.get_compliance_report(&report.report_id).unwrap();
    }
    let file = gw.download_compliance_report(&report.report_id).unwrap();
    assert!(file.content_type.starts_with("text/csv"), "{}", file.content_type);
    assert!(file.body.starts_with(b"section,"));
    let digest: String = Sha256::digest(&file.body).iter().map(|b| format!("{:02x}", b)).collect();
    assert_eq!(Some(digest), report.sha256);
    // The downloadUrl the report names is the same file.
    let mut same = Vec::new();
    gw.open(report.download_url.as_deref().unwrap()).unwrap().read_to_end(&mut same).unwrap();
    assert_eq!(same, file.body);
    assert_eq!(gw.download_compliance_report("rpt_no_such_report").unwrap_err().kind, ErrorKind::NotFound);
}

#[test]
fn verifies_a_real_webhook_delivery() {
    let gw = admin();
    let secret: Arc<Mutex<String>> = Arc::default();
    let (tx, rx) = mpsc::channel::<(support::Request, u16)>();
    let tx = Mutex::new(tx);
    let receiver_secret = secret.clone();
    let receiver = serve(move |req| {
        // Answer as a receiver would: 200 when the signature holds, 401 otherwise.
        let status = match verify_webhook(&req.body, req.header("x-service-signature"), &receiver_secret.lock().unwrap()) {
            Ok(_) => 200,
            Err(_) => 401,
        };
        let _ = tx.lock().unwrap().send((req, status));
        (status, vec![], vec![])
    });
    let hook = gw.create_webhook(&CreateWebhookRequest { url: format!("{}/hook", receiver), events: vec!["requirement.updated".into()], ..Default::default() });
    let hook = hook.unwrap_or_else(|e| panic!("registering a loopback webhook (the gateway needs WEBHOOK_ALLOW_PRIVATE_NETWORKS=true): {}", e));
    *secret.lock().unwrap() = hook.secret.clone();
    let created = gw.create_requirement(&CreateRequirementRequest { title: unique("Webhook from the Rust test"), framework: Some("soc2".into()), ..Default::default() }).unwrap();
    gw.update_requirement(&created.id, &UpdateRequirementRequest { status: Some("in-progress".into()), ..Default::default() }).unwrap();

    let deadline = Instant::now() + Duration::from_secs(60);
    let (delivery, answered, event) = loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let (req, status) = rx.recv_timeout(left).expect("no requirement.updated delivery within 60 s");
        let event = verify_webhook(&req.body, req.header("x-service-signature"), &hook.secret).expect("a real delivery verifies");
        if event.event_type == "requirement.updated" && event.data["id"] == created.id.as_str() {
            break (req, status, event);
        }
    };
    assert_eq!(answered, 200);
    assert_eq!(delivery.header("webhook-id"), Some(event.id.as_str()));
    let requirement = event.requirement().unwrap();
    assert_eq!(requirement.requirement.id, created.id);
    assert_eq!(requirement.requirement.status, "in-progress");
    assert_eq!(requirement.previous_status.as_deref(), Some("pending"));
    assert_eq!(requirement.changes, Some(vec!["status".to_string()]));

    let signature = delivery.header("x-service-signature").unwrap().to_string();
    let body = String::from_utf8(delivery.body.clone()).unwrap();
    let tampered = body.replacen("in-progress", "completed", 1);
    assert!(verify_webhook(tampered.as_bytes(), Some(&signature), &hook.secret).is_err());
    let other = verify_webhook(&delivery.body, Some(&signature), "another-secret-of-16+").unwrap_err();
    assert!(other.to_string().contains("does not match"), "{}", other);
    let t: u64 = signature[2..signature.find(',').unwrap()].parse().unwrap();
    let stale = verify_webhook_with(&delivery.body, Some(&signature), &hook.secret, VerifyOptions { now: Some(t + 301), ..Default::default() }).unwrap_err();
    assert!(stale.to_string().contains("300 s"), "{}", stale);
    assert!(verify_webhook(&delivery.body, None, &hook.secret).unwrap_err().to_string().contains("missing"));
    assert_eq!(sign_webhook(&delivery.body, &hook.secret, t), signature);
    gw.delete_webhook(&hook.id).unwrap();
}

#[test]
fn dashboard_websocket_event() {
    let gw = admin();
    let mut stream = gw.dashboard_events(&["requirement_updated"]).unwrap();
    assert_eq!(stream.subscribed(), ["requirement_updated".to_string()]);
    let created = gw.create_requirement(&CreateRequirementRequest { title: unique("Live from the Rust test"), framework: Some("iso13485".into()), ..Default::default() }).unwrap();
    gw.update_requirement(&created.id, &UpdateRequirementRequest { priority: Some("critical".into()), ..Default::default() }).unwrap();
    stream.ping().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let event = stream.next_event(Some(deadline.saturating_duration_since(Instant::now()))).unwrap().expect("no requirement.updated event within 60 s");
        assert_eq!(event.event_type, "requirement_updated");
        assert!(!event.id.is_empty() && !event.timestamp.is_empty());
        if event.event != "requirement.updated" || event.data["id"] != created.id.as_str() {
            continue; // other writers' events, or the creation
        }
        let requirement = event.requirement().unwrap();
        assert_eq!((requirement.requirement.id.as_str(), requirement.requirement.priority.as_str()), (created.id.as_str(), "critical"));
        assert_eq!(requirement.changes, Some(vec!["priority".to_string()]));
        break;
    }
    // A bounded wait with nothing to read ends, and the stream stays usable.
    assert!(stream.next_event(Some(Duration::from_millis(200))).unwrap().is_none());
    stream.ping().unwrap();
    stream.close();

    let key = gw.create_api_key(&CreateApiKeyRequest { name: "rust no-dashboard".into(), permissions: vec!["read:requirements".into()], ..Default::default() }).unwrap().key;
    assert_eq!(with_key(Some(&key)).dashboard_events(&[]).unwrap_err().kind, ErrorKind::Authorization);
    assert_eq!(with_key(Some("sk_no_such_key")).dashboard_events(&[]).unwrap_err().kind, ErrorKind::Authentication);
}

#[test]
fn release_gate_function_and_command() {
    let gw = admin();
    // A pending fda21cfr11 requirement keeps that framework's score below 100.
    gw.create_requirement(&CreateRequirementRequest { title: unique("Gate check"), framework: Some("fda21cfr11".into()), ..Default::default() }).unwrap();
    let pass = gw.gate("fda21cfr11", Some(0.0), None).unwrap();
    assert!(pass.passed && pass.result == "pass", "{:?}", pass);
    let fail = gw.gate("fda21cfr11", Some(100.0), None).unwrap();
    assert!(!fail.passed && !fail.reasons.is_empty(), "{:?}", fail);

    let g = gateway();
    let env = |name: &str| match name {
        "GATEWAY_URL" => Some(g.url.clone()),
        "GATEWAY_API_KEY" => Some(g.admin_key.clone()),
        _ => None,
    };
    let run = |args: &[&str]| {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let code = speech_gateway::gate_command(&args, &mut out, &mut err, &env);
        (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
    };
    let (code, out, err) = run(&["gate", "--framework", "fda21cfr11", "--min-score", "0"]);
    assert!(code == 0 && out.starts_with("PASS fda21cfr11"), "{} {} {}", code, out, err);
    let (code, out, _) = run(&["gate", "--framework=fda21cfr11", "--min-score", "100", "--json"]);
    assert_eq!(code, 1);
    let answer: ComplianceGateResponse = serde_json::from_str(&out).unwrap();
    assert!(!answer.passed);
    let (code, _, err) = run(&["gate", "--framework", "hipaa"]);
    assert!(code == 2 && err.contains("gateway refused"), "{} {}", code, err);
    assert_eq!(run(&["gate", "--min-score", "1"]).0, 2);

    // The command itself, as a user runs it.
    let bin = env!("CARGO_BIN_EXE_speech-gateway");
    let output = std::process::Command::new(bin)
        .args(["gate", "--framework", "fda21cfr11", "--min-score", "100"])
        .env("GATEWAY_URL", &g.url)
        .env("GATEWAY_API_KEY", &g.admin_key)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("FAIL fda21cfr11"));
    let output = std::process::Command::new(bin)
        .args(["gate", "--framework", "fda21cfr11", "--min-score", "0", "--url", &g.url, "--api-key", &g.admin_key])
        .env_remove("GATEWAY_URL")
        .env_remove("GATEWAY_API_KEY")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn retries_honour_retry_after() {
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let json = || vec![("Content-Type".to_string(), "application/json".to_string())];
    let limited = serve(move |req| {
        let n = seen.fetch_add(1, Ordering::SeqCst) + 1;
        match (req.path.as_str(), n) {
            ("/api/v1/health/live", 1) => {
                let mut h = json();
                h.push(("Retry-After".into(), "1".into()));
                (429, h, br#"{"error":{"message":"Too many requests","code":"RATE_LIMIT_EXCEEDED","provider":null,"details":{"requestId":"r1"}}}"#.to_vec())
            }
            ("/api/v1/health/live", _) => (200, json(), br#"{"live":true,"timestamp":"2026-01-01T00:00:00Z"}"#.to_vec()),
            _ => {
                let mut h = json();
                h.push(("Retry-After".into(), "120".into()));
                (503, h, br#"{"error":{"code":"SERVICE_UNAVAILABLE","message":"draining","details":[],"requestId":"r2"}}"#.to_vec())
            }
        }
    });
    let c = Client::new(&limited, None).unwrap();
    let began = Instant::now();
    let live = c.live();
    assert!(matches!(&live, Ok(l) if l.live), "{:?}", live);
    assert!(began.elapsed() >= Duration::from_millis(900), "answered after {:?}; Retry-After said 1 s", began.elapsed());
    assert_eq!(calls.load(Ordering::SeqCst), 2);

    // A wait longer than the allowed one is not waited for: the error says how long.
    let began = Instant::now();
    let e = c.list_frameworks().unwrap_err();
    assert_eq!((e.code.as_str(), e.retry_after, e.request_id.as_deref()), ("SERVICE_UNAVAILABLE", Some(Duration::from_secs(120)), Some("r2")));
    assert!(began.elapsed() < Duration::from_secs(5));

    // With retries off, the 429 comes back at once.
    calls.store(0, Ordering::SeqCst);
    let off = Client::builder(&limited).max_retries(0).build().unwrap();
    let e = off.live().unwrap_err();
    assert_eq!((e.kind, e.retry_after), (ErrorKind::RateLimited, Some(Duration::from_secs(1))));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}
