//! The release gate: a method and the `speech-gateway gate` command.

use std::io::Write;

use crate::types::{ComplianceGateQuery, ComplianceGateResponse};
use crate::{Client, Result, FRAMEWORKS};

impl Client {
    /// Asks the release gate (GET /v1/compliance/gate; the key needs `read:compliance`): whether the
    /// framework's score reaches `min_score` and its open findings stay within `max_open_findings`
    /// (`None`: the gateway's defaults). `passed` is the verdict; `checks` say why.
    pub fn gate(&self, framework: &str, min_score: Option<f64>, max_open_findings: Option<i64>) -> Result<ComplianceGateResponse> {
        self.compliance_gate(&ComplianceGateQuery { framework: framework.to_string(), min_score, max_open_findings })
    }
}

fn usage() -> String {
    format!(
        "Usage: speech-gateway gate --framework <{}> [--min-score N] [--max-open-findings N]
                          [--url URL] [--api-key KEY] [--json]

Asks the gateway's release gate (GET /v1/compliance/gate) and exits 0 on pass, 1 on fail,
2 when the gate could not be asked (bad arguments, key, network).
URL defaults to $GATEWAY_URL or http://localhost:3000; the key to $GATEWAY_API_KEY (needs read:compliance).
",
        FRAMEWORKS.join("|")
    )
}

/// The `speech-gateway` command: `args` without the program name, `getenv` for GATEWAY_URL and
/// GATEWAY_API_KEY. Returns the exit code: 0 pass, 1 fail, 2 when the gate could not be asked.
pub fn gate_command(args: &[String], out: &mut dyn Write, err: &mut dyn Write, getenv: &dyn Fn(&str) -> Option<String>) -> i32 {
    match args.first().map(String::as_str) {
        None => {
            let _ = write!(out, "{}", usage());
            return 2;
        }
        Some("help") | Some("-h") | Some("--help") => {
            let _ = write!(out, "{}", usage());
            return 0;
        }
        Some("gate") => {}
        Some(other) => {
            let _ = write!(err, "unknown command {:?}\n\n{}", other, usage());
            return 2;
        }
    }
    let (mut framework, mut min_score, mut max_open, mut url, mut key, mut json) = (None, None, None, None, None, false);
    let mut rest = args[1..].iter();
    while let Some(arg) = rest.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        if name == "--json" {
            json = true;
            continue;
        }
        if name == "--help" || name == "-h" {
            let _ = write!(out, "{}", usage());
            return 0;
        }
        let slot = match name.as_str() {
            "--framework" => &mut framework,
            "--min-score" => &mut min_score,
            "--max-open-findings" => &mut max_open,
            "--url" => &mut url,
            "--api-key" => &mut key,
            _ => {
                let _ = write!(err, "unknown argument {:?}\n\n{}", arg, usage());
                return 2;
            }
        };
        match inline.or_else(|| rest.next().cloned()) {
            Some(v) => *slot = Some(v),
            None => {
                let _ = write!(err, "{} needs a value\n\n{}", name, usage());
                return 2;
            }
        }
    }
    let framework = match framework {
        Some(f) if !f.is_empty() => f,
        _ => {
            let _ = write!(err, "--framework is required\n\n{}", usage());
            return 2;
        }
    };
    let min_score = match min_score.map(|v| v.trim().parse::<f64>().map_err(|_| v)).transpose() {
        Ok(v) => v,
        Err(v) => {
            let _ = write!(err, "--min-score must be a number, got {:?}\n\n{}", v, usage());
            return 2;
        }
    };
    let max_open = match max_open.map(|v| v.trim().parse::<i64>().map_err(|_| v)).transpose() {
        Ok(v) => v,
        Err(v) => {
            let _ = write!(err, "--max-open-findings must be a whole number, got {:?}\n\n{}", v, usage());
            return 2;
        }
    };
    let url = url.or_else(|| getenv("GATEWAY_URL")).filter(|u| !u.is_empty()).unwrap_or_else(|| "http://localhost:3000".to_string());
    let key = key.or_else(|| getenv("GATEWAY_API_KEY")).filter(|k| !k.is_empty());
    let answer = Client::new(&url, key.as_deref()).and_then(|client| client.gate(&framework, min_score, max_open));
    let answer = match answer {
        Ok(a) => a,
        Err(e) => {
            let fields: Vec<String> = e.fields.iter().map(|f| format!("{}: {}", f.field, f.message)).collect();
            let extra = if fields.is_empty() { String::new() } else { format!(" ({})", fields.join("; ")) };
            if e.status == 0 || e.code == "SERVICE_UNAVAILABLE" {
                let _ = writeln!(err, "could not ask the gate: {}: {}", e.code, e.message);
            } else {
                let _ = writeln!(err, "gateway refused: {}: {}{}", e.code, e.message, extra);
            }
            return 2;
        }
    };
    if json {
        let _ = writeln!(out, "{}", serde_json::to_string_pretty(&answer).unwrap_or_default());
    } else {
        let _ = writeln!(out, "{} {}: score {} ({})", if answer.passed { "PASS" } else { "FAIL" }, answer.framework, answer.score, answer.status);
        for check in &answer.checks {
            let _ = writeln!(out, "  {} {}", if check.passed { "ok  " } else { "FAIL" }, check.message);
        }
    }
    if answer.passed {
        0
    } else {
        1
    }
}
