"""The gateway's client over urllib: every REST operation, progressive generation as a generator."""

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from collections import namedtuple

from ._operations import OPERATIONS, Operations
from .errors import GatewayError, error_for, error_from_envelope

BinaryResponse = namedtuple("BinaryResponse", ["status", "body", "content_type", "headers"])
BinaryResponse.__doc__ = "A binary answer (audio, a report file): its bytes and headers."


def _query_name(name):
    """``min_score`` -> ``minScore``; a trailing underscore is dropped (``from_`` -> ``from``)."""
    name = name.rstrip("_")
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), name)


class Client(Operations):
    """Every REST operation as a method named by its operationId in snake_case.

    >>> gw = Client("http://localhost:3000", api_key="sk_...")
    >>> gw.generate_speech({"text": "Hello", "options": {"provider": "mock"}})["audioUrl"]

    Path parameters are positional, the JSON body a dict, query parameters keyword arguments
    (``gw.list_requirements(framework="gdpr", limit=10)``). Failures raise GatewayError subclasses
    carrying the gateway's code.
    """

    def __init__(self, base_url, api_key=None, timeout=30.0, headers=None):
        if not base_url:
            raise ValueError("base_url is required, e.g. http://localhost:3000")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.headers = dict(headers or {})

    # --- HTTP ---

    def _url(self, template, path_params, query):
        def fill(m):
            value = path_params.get(m.group(1))
            if value is None or value == "":
                raise ValueError("path parameter %r is required" % m.group(1))
            return urllib.parse.quote(str(value), safe="")

        url = self.base_url + re.sub(r"\{(\w+)\}", fill, template)
        pairs = []
        for key, value in (query or {}).items():
            if value is None:
                continue
            for item in value if isinstance(value, (list, tuple)) else [value]:
                pairs.append((_query_name(key), "true" if item is True else "false" if item is False else str(item)))
        return url + ("?" + urllib.parse.urlencode(pairs) if pairs else "")

    def _open(self, method, url, body=None, body_kind="none", headers=None, timeout=None):
        h = {"Accept": "application/json"}
        h.update(self.headers)
        if self.api_key:
            h["Authorization"] = "Bearer " + self.api_key
        h.update(headers or {})
        data = None
        if body is not None and body_kind == "json":
            data = json.dumps(body).encode("utf-8")
            h["Content-Type"] = "application/json"
        elif body is not None and body_kind == "bytes":
            data = bytes(body)
            h.setdefault("Content-Type", "application/octet-stream")
        request = urllib.request.Request(url, data=data, method=method, headers=h)
        try:
            return urllib.request.urlopen(request, timeout=timeout or self.timeout)
        except urllib.error.HTTPError as e:
            raw = b"" if method == "HEAD" else e.read()
            try:
                parsed = json.loads(raw.decode("utf-8")) if raw else None
            except ValueError:
                parsed = None
            raise error_from_envelope(e.code, parsed, e.headers) from None
        except urllib.error.URLError as e:
            raise error_for("SERVICE_UNAVAILABLE", "gateway unreachable: %s" % (e.reason,), status=503) from None

    def _call(self, operation_id, path_params, body, query, headers=None):
        method, template, body_kind, response_kind = OPERATIONS[operation_id]
        url = self._url(template, path_params, query)
        if response_kind == "sse":
            return self._events(url, body)
        with self._open(method, url, body, body_kind, headers) as res:
            if response_kind == "head":
                return dict(res.headers.items())
            raw = res.read()
            content_type = res.headers.get("Content-Type", "")
            if res.status == 204 or response_kind == "empty":
                return None
            if response_kind == "binary" or "json" not in content_type:
                return BinaryResponse(res.status, raw, content_type, dict(res.headers.items()))
            return json.loads(raw.decode("utf-8"))

    def request(self, operation_id, path_params=None, body=None, headers=None, **query):
        """Any operation by its operationId, with extra headers (e.g. ``Range``)."""
        return self._call(operation_id, path_params or {}, body, query, headers)

    # --- progressive generation ---

    def _events(self, url, body):
        """Server-Sent Events of progressive generation, parsed; see generate_speech_progressive."""
        res = self._open("POST", url, body, "json", {"Accept": "text/event-stream"}, timeout=max(self.timeout, 120))
        if not res.headers.get("Content-Type", "").startswith("text/event-stream"):
            res.close()
            raise error_for("INTERNAL_ERROR", "expected an event stream", status=res.status)

        def generate():
            data_lines = []
            try:
                for raw_line in res:
                    line = raw_line.decode("utf-8").rstrip("\r\n")
                    if line == "":
                        if not data_lines:
                            continue
                        event = json.loads("\n".join(data_lines))
                        data_lines = []
                        if event.get("type") == "error":
                            raise error_for(str(event.get("code") or "INTERNAL_ERROR"), str(event.get("message") or "generation failed"), status=200, details={"event": event})
                        yield event
                        if event.get("type") == "complete":
                            return
                    elif line.startswith("data:"):
                        data_lines.append(line[5:][1:] if line[5:].startswith(" ") else line[5:])
                raise error_for("SERVICE_UNAVAILABLE", "event stream ended before the complete event", status=503)
            finally:
                res.close()

        return generate()

    def generate_speech_progressive(self, body):
        """POST /api/v1/generate-progressive: a generator of ``started``, ``progress`` and ``complete`` events.

        An ``error`` event raises GatewayError with its code; a refused request raises before any
        event. Leaving the loop early closes the stream (the gateway still caches the audio).
        """
        return self._call("generateSpeechProgressive", {}, body, None)

    # --- conveniences ---

    def has_audio(self, hash):
        """Whether audio exists under a direct hash (HEAD /api/v1/audio/{hash})."""
        try:
            self.audio_exists(hash)
            return True
        except GatewayError as e:
            if e.code == "NOT_FOUND":
                return False
            raise
