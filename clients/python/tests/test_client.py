"""The Python client against a real gateway: REST, errors, progressive generation, webhooks."""

import http.server
import json
import threading
import time
import unittest

from speech_gateway import (
    OPERATIONS,
    AuthenticationError,
    AuthorizationError,
    BinaryResponse,
    Client,
    GatewayError,
    InvalidRequestError,
    NotFoundError,
    WebhookSignatureError,
    sign_webhook,
    verify_webhook,
)

from .gateway import Gateway

gateway = None


def setUpModule():
    global gateway
    gateway = Gateway()


def tearDownModule():
    if gateway:
        gateway.stop()


def snake(name):
    import re

    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


class RestTest(unittest.TestCase):
    def setUp(self):
        self.gw = Client(gateway.url, api_key=gateway.admin_key)

    def test_one_method_per_operation_of_the_served_document(self):
        with __import__("urllib.request").request.urlopen(gateway.url + "/api/openapi.json") as res:
            doc = json.loads(res.read().decode("utf-8"))
        served = {op["operationId"]: (method.upper(), path) for path, item in doc["paths"].items() for method, op in item.items()}
        self.assertGreater(len(served), 40)
        self.assertEqual(set(served), set(OPERATIONS))
        for op_id, (method, path) in served.items():
            self.assertEqual(OPERATIONS[op_id][:2], (method, path))
            self.assertTrue(callable(getattr(self.gw, snake(op_id))), op_id)

    def test_generates_speech_and_reads_the_audio(self):
        body = {"text": "Hello from the Python client.", "options": {"provider": "mock", "format": "wav"}}
        result = self.gw.generate_speech(body)
        self.assertEqual(result["audioUrl"], "/api/v1/audio/" + result["hash"])
        audio = self.gw.get_audio(result["hash"])
        self.assertIsInstance(audio, BinaryResponse)
        self.assertEqual(audio.content_type, "audio/wav")
        self.assertEqual(audio.body[:4], b"RIFF")
        self.assertEqual(int(audio.headers["Content-Length"]), len(audio.body))
        partial = self.gw.request("getAudio", {"hash": result["hash"]}, headers={"Range": "bytes=0-9"})
        self.assertEqual((partial.status, len(partial.body)), (206, 10))
        self.assertEqual(self.gw.get_audio_metadata(result["hash"])["provider"], "mock")
        self.assertTrue(self.gw.has_audio(result["hash"]))
        self.assertFalse(self.gw.has_audio("0" * 64))
        self.assertTrue(self.gw.generate_speech(body)["cached"])
        self.assertIn("mock-voice-1", self.gw.list_voices(provider="mock")["voices"])

    def test_compliance_operations_with_path_query_and_body(self):
        created = self.gw.create_requirement({"title": "Python-made requirement", "framework": "gdpr", "priority": "high"})
        self.assertEqual(created["status"], "pending")
        self.assertEqual(self.gw.update_requirement(created["id"], {"status": "completed"})["status"], "completed")
        self.assertEqual(self.gw.get_requirement(created["id"])["title"], "Python-made requirement")
        page = self.gw.list_requirements(framework="gdpr", limit=5)
        self.assertEqual(page["pagination"]["limit"], 5)
        self.assertIn(created["id"], [r["id"] for r in page["data"]])
        self.assertNotIn(created["id"], [r["id"] for r in self.gw.list_requirements(framework="soc2")["data"]])
        gate = self.gw.compliance_gate(framework="gdpr", min_score=0)
        self.assertEqual(gate["framework"], "gdpr")
        self.assertIs(gate["passed"], True)

    def test_errors_are_exceptions_carrying_the_code(self):
        with self.assertRaises(InvalidRequestError) as voice:
            self.gw.generate_speech({"text": "x", "options": {"provider": "mock", "voice": "no-such-voice"}})
        self.assertEqual((voice.exception.code, voice.exception.status), ("INVALID_VOICE", 400))
        self.assertTrue(voice.exception.request_id)

        with self.assertRaises(InvalidRequestError) as openai_voice:
            self.gw.create_speech({"model": "mock", "input": "x", "voice": "no-such-voice"})
        self.assertEqual((openai_voice.exception.code, openai_voice.exception.status), ("INVALID_VOICE", 400))
        self.assertEqual([f["field"] for f in openai_voice.exception.fields], ["voice"])

        with self.assertRaises(InvalidRequestError) as framework:
            self.gw.list_requirements(framework="hipaa")
        self.assertEqual(framework.exception.code, "INVALID_FRAMEWORK")
        self.assertEqual(framework.exception.details["supportedFrameworks"], ["iso13485", "fda21cfr11", "gdpr", "soc2"])

        with self.assertRaises(InvalidRequestError) as invalid:
            self.gw.create_requirement({"framework": "gdpr"})
        self.assertEqual(invalid.exception.code, "VALIDATION_ERROR")
        self.assertIn("title", [f["field"] for f in invalid.exception.fields])

        with self.assertRaises(NotFoundError) as missing:
            self.gw.get_requirement("no-such-requirement")
        self.assertEqual(missing.exception.code, "NOT_FOUND")

        with self.assertRaises(AuthenticationError):
            Client(gateway.url).list_requirements()
        key = self.gw.create_api_key({"name": "python reader", "permissions": ["read:requirements"]})["key"]
        with self.assertRaises(AuthorizationError) as forbidden:
            Client(gateway.url, api_key=key).create_requirement({"title": "t", "framework": "gdpr"})
        self.assertEqual(forbidden.exception.code, "AUTHORIZATION_ERROR")

        with self.assertRaises(GatewayError) as down:
            Client("http://127.0.0.1:9").health()
        self.assertEqual(down.exception.code, "SERVICE_UNAVAILABLE")


class ProgressiveTest(unittest.TestCase):
    def setUp(self):
        self.gw = Client(gateway.url, api_key=gateway.admin_key)

    def test_events_until_complete(self):
        text = " ".join("Sentence number %d of a longer text, long enough to be cut into chunks." % i for i in range(40))
        events = list(self.gw.generate_speech_progressive({"text": text, "options": {"provider": "mock"}}))
        self.assertEqual(events[0]["type"], "started")
        self.assertGreater(events[0]["totalChunks"], 1)
        self.assertTrue(any(e["type"] == "progress" for e in events))
        self.assertEqual(events[-1]["type"], "complete")
        self.assertEqual(events[-1]["audioUrl"], "/api/v1/audio/" + events[-1]["hash"])
        self.assertTrue(self.gw.has_audio(events[-1]["hash"]))

    def test_refused_request_raises_before_any_event(self):
        with self.assertRaises(InvalidRequestError) as speed:
            self.gw.generate_speech_progressive({"text": "x", "options": {"provider": "mock", "speed": 99}})
        self.assertEqual(speed.exception.code, "INVALID_SPEED")

    def test_leaving_early_closes_the_stream(self):
        seen = []
        for event in self.gw.generate_speech_progressive({"text": "Several chunks of audio, please. " * 60, "options": {"provider": "mock", "voice": "mock-voice-3"}}):
            seen.append(event["type"])
            break
        self.assertEqual(seen, ["started"])


class WebhookTest(unittest.TestCase):
    def test_verifies_a_real_delivery(self):
        received = []
        secret_box = {}

        class Receiver(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                entry = {"raw": raw, "signature": self.headers["x-service-signature"], "webhook_id": self.headers["webhook-id"]}
                try:
                    entry["event"] = verify_webhook(raw, self.headers["x-service-signature"], secret_box["secret"])
                    self.send_response(200)
                except WebhookSignatureError as e:
                    entry["error"] = str(e)
                    self.send_response(401)
                received.append(entry)
                self.end_headers()

            def log_message(self, *args):
                pass

        server = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            gw = Client(gateway.url, api_key=gateway.admin_key)
            hook = gw.create_webhook({"url": "http://127.0.0.1:%d/hook" % server.server_port, "events": ["requirement.created"]})
            secret_box["secret"] = hook["secret"]
            created = gw.create_requirement({"title": "Webhook from Python test", "framework": "soc2"})
            deadline = time.time() + 30
            while not any("event" in r for r in received) and time.time() < deadline:
                time.sleep(0.05)
            delivery = next(r for r in received if "event" in r)
            self.assertEqual(delivery["event"]["type"], "requirement.created")
            self.assertEqual(delivery["event"]["data"]["id"], created["id"])
            self.assertEqual(delivery["webhook_id"], delivery["event"]["id"])

            raw, signature = delivery["raw"], delivery["signature"]
            with self.assertRaises(WebhookSignatureError):
                verify_webhook(raw.replace(b"Python test", b"Python fake"), signature, hook["secret"])
            with self.assertRaisesRegex(WebhookSignatureError, "does not match"):
                verify_webhook(raw, signature, "another-secret-of-16+")
            t = int(signature.split(",")[0][2:])
            with self.assertRaisesRegex(WebhookSignatureError, "300 s"):
                verify_webhook(raw, signature, hook["secret"], now=t + 301)
            with self.assertRaisesRegex(WebhookSignatureError, "missing"):
                verify_webhook(raw, None, hook["secret"])
            self.assertEqual(sign_webhook(raw, hook["secret"], t), signature)
            gw.delete_webhook(hook["id"])
        finally:
            server.shutdown()
            server.server_close()


class GateCommandTest(unittest.TestCase):
    def gate(self, *args, key=None):
        import os
        import subprocess
        import sys

        env = dict(os.environ, GATEWAY_URL=gateway.url, GATEWAY_API_KEY=key or gateway.admin_key)
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        return subprocess.run([sys.executable, "-m", "speech_gateway", "gate"] + list(args), cwd=here, env=env, capture_output=True, text=True, timeout=60)

    def test_exit_codes(self):
        passed = self.gate("--framework", "fda21cfr11", "--min-score", "0")
        self.assertEqual(passed.returncode, 0, passed.stderr)
        self.assertTrue(passed.stdout.startswith("PASS fda21cfr11"))
        failed = self.gate("--framework", "fda21cfr11", "--json")
        self.assertEqual(failed.returncode, 1)
        self.assertIs(json.loads(failed.stdout)["passed"], False)
        refused = self.gate("--framework", "hipaa")
        self.assertEqual(refused.returncode, 2)
        self.assertIn("INVALID_FRAMEWORK", refused.stderr)
        self.assertEqual(self.gate("--min-score", "1").returncode, 2)


if __name__ == "__main__":
    unittest.main()
