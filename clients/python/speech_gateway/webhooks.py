"""Webhook signature verification.

Every delivery is a POST of ``{id, type, data, createdAt}`` with the headers
``x-service-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>``,
``webhook-id`` (the event id, for de-duplication) and ``webhook-timestamp``.
"""

import hashlib
import hmac
import json
import time


class WebhookSignatureError(Exception):
    """Missing, malformed, wrong or stale signature: answer 401."""


def sign_webhook(raw_body, secret, timestamp=None):
    """Signs a body as the gateway does (for a receiver's own tests)."""
    t = int(time.time()) if timestamp is None else int(timestamp)
    body = raw_body if isinstance(raw_body, bytes) else raw_body.encode("utf-8")
    mac = hmac.new(secret.encode("utf-8"), str(t).encode("ascii") + b"." + body, hashlib.sha256).hexdigest()
    return "t=%d,v1=%s" % (t, mac)


def verify_webhook(raw_body, signature_header, secret, tolerance_seconds=300, now=None):
    """Verifies a delivery and returns its event (a dict).

    Pass the raw body exactly as received (bytes or str), the ``x-service-signature`` header and
    the webhook's secret. Raises WebhookSignatureError when the signature is missing, malformed,
    does not match, or its timestamp is more than ``tolerance_seconds`` away from now.
    """
    if not signature_header:
        raise WebhookSignatureError("missing x-service-signature header")
    if not secret:
        raise WebhookSignatureError("no webhook secret given")
    timestamp = None
    signatures = []
    for part in signature_header.split(","):
        key, sep, value = part.partition("=")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == "t":
            timestamp = value
        elif key == "v1":
            signatures.append(value)
    if not timestamp or not timestamp.isdigit() or not signatures:
        raise WebhookSignatureError("malformed x-service-signature header")
    body = raw_body if isinstance(raw_body, bytes) else raw_body.encode("utf-8")
    expected = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + body, hashlib.sha256).hexdigest()
    if not any(hmac.compare_digest(expected, s.lower()) for s in signatures):
        raise WebhookSignatureError("signature does not match")
    current = int(time.time()) if now is None else int(now)
    if abs(current - int(timestamp)) > tolerance_seconds:
        raise WebhookSignatureError("signature timestamp is more than %d s away from now" % tolerance_seconds)
    try:
        return json.loads(body.decode("utf-8"))
    except ValueError:
        raise WebhookSignatureError("body is not JSON")
