"""Errors as exceptions carrying the gateway's code (``INVALID_VOICE``, ``NOT_FOUND``, ...)."""

from ._operations import ERROR_CODES


class GatewayError(Exception):
    """Any failure the gateway reports.

    ``code`` is the gateway's error code, ``status`` the HTTP status, ``details`` the envelope's
    object details, ``fields`` the per-field problems (``[{"field", "message"}]``), ``request_id``
    the id to quote to support, ``retry_after`` the seconds to wait (``Retry-After``) when given.
    """

    def __init__(self, code, message, status=None, details=None, fields=None, request_id=None, provider=None, retry_after=None):
        super().__init__("%s: %s" % (code, message))
        self.code = code
        self.message = message
        self.status = status
        self.details = details or {}
        self.fields = fields or []
        self.request_id = request_id
        self.provider = provider
        self.retry_after = retry_after


class InvalidRequestError(GatewayError):
    """400/413/415/416: the request was refused (VALIDATION_ERROR, INVALID_VOICE, INVALID_FRAMEWORK, ...)."""


class AuthenticationError(GatewayError):
    """401: missing or unknown key."""


class AuthorizationError(GatewayError):
    """403: the key lacks the permission."""


class NotFoundError(GatewayError):
    """404/410: no such resource, or it expired."""


class ConflictError(GatewayError):
    """409: e.g. a report that is not finished yet."""


class RateLimitError(GatewayError):
    """429: wait ``retry_after`` seconds."""


class ServerError(GatewayError):
    """5xx: the gateway, a speech provider or the database failed."""


def error_for(code, message, status=None, **kwargs):
    """The exception of a code's family."""
    known = code in ERROR_CODES
    if not known:
        kwargs.setdefault("details", {})
        kwargs["details"] = dict(kwargs["details"] or {}, code=code)
        code = "INTERNAL_ERROR" if (status or 0) >= 500 else "VALIDATION_ERROR"
    if code == "AUTHENTICATION_ERROR":
        cls = AuthenticationError
    elif code == "AUTHORIZATION_ERROR":
        cls = AuthorizationError
    elif code in ("NOT_FOUND", "GONE"):
        cls = NotFoundError
    elif code == "CONFLICT":
        cls = ConflictError
    elif code == "RATE_LIMIT_EXCEEDED":
        cls = RateLimitError
    elif (status or 0) >= 500 or code in ("INTERNAL_ERROR", "SERVICE_UNAVAILABLE", "PROVIDER_NOT_CONFIGURED") or code.endswith("_GENERATION_ERROR"):
        cls = ServerError
    else:
        cls = InvalidRequestError
    return cls(code, message, status=status, **kwargs)


_BY_STATUS = {401: "AUTHENTICATION_ERROR", 403: "AUTHORIZATION_ERROR", 404: "NOT_FOUND", 409: "CONFLICT", 410: "GONE", 429: "RATE_LIMIT_EXCEEDED"}


def error_from_envelope(status, body, headers=None):
    """Reads any of the gateway's error envelopes (TTS, integration, dashboard, OpenAI's)."""
    headers = headers or {}
    retry = headers.get("Retry-After") if hasattr(headers, "get") else None
    retry_after = int(retry) if retry and str(retry).isdigit() else None
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        code = _BY_STATUS.get(status, "INTERNAL_ERROR" if status >= 500 else "VALIDATION_ERROR")
        return error_for(code, "HTTP %d" % status, status=status, retry_after=retry_after, request_id=headers.get("X-Request-Id") if hasattr(headers, "get") else None)
    if isinstance(err.get("type"), str) and "param" in err:
        # OpenAI's envelope (/v1/audio/speech, /v1/models): {message, type, param, code}, the code lower-cased.
        message = str(err.get("message") or "HTTP %d" % status)
        param = err.get("param")
        return error_for(
            str(err.get("code") or "").upper(),
            message,
            status=status,
            details={},
            fields=[{"field": param, "message": message}] if isinstance(param, str) else [],
            request_id=headers.get("X-Request-Id") if hasattr(headers, "get") else None,
            retry_after=retry_after,
        )
    raw_details = err.get("details")
    details = raw_details if isinstance(raw_details, dict) else {}
    fields = raw_details if isinstance(raw_details, list) else []
    request_id = err.get("requestId") or details.get("requestId") or (headers.get("X-Request-Id") if hasattr(headers, "get") else None)
    return error_for(
        str(err.get("code") or ""),
        str(err.get("message") or "HTTP %d" % status),
        status=status,
        details=details,
        fields=fields,
        request_id=request_id,
        provider=err.get("provider"),
        retry_after=retry_after,
    )
