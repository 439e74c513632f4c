"""Starts the built gateway (dist/gateway/main.js) on a free loopback port with a temporary DATA_DIR."""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
MAIN = os.path.join(ROOT, "dist", "gateway", "main.js")
ADMIN_KEY = "python-client-admin-key-0123456789"


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Gateway:
    """A real gateway process; ``url`` and ``admin_key`` for clients, ``stop()`` when done."""

    def __init__(self, extra_env=None):
        if not os.path.exists(MAIN):
            subprocess.run(["npm", "run", "build"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        self.data_dir = tempfile.mkdtemp(prefix="gw-python-")
        self.admin_key = ADMIN_KEY
        self.log = open(os.path.join(self.data_dir, "gateway.log"), "w+")
        for attempt in range(3):
            self.port = _free_port()
            self.url = "http://127.0.0.1:%d" % self.port
            env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "API_KEY", "NODE_ENV")}
            env.update(
                {
                    "PORT": str(self.port),
                    "HOST": "127.0.0.1",
                    "DATA_DIR": self.data_dir,
                    "ADMIN_API_KEY": ADMIN_KEY,
                    "LOG_LEVEL": "warn",
                    "API_RATE_LIMIT": "100000",
                    "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
                }
            )
            env.update(extra_env or {})
            self.process = subprocess.Popen(["node", MAIN], cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT)
            if self._wait_ready(90):
                return
            self._terminate()
        self.log.seek(0)
        raise RuntimeError("the gateway did not start:\n" + self.log.read()[-4000:])

    def _wait_ready(self, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(self.url + "/api/v1/health/live", timeout=2) as res:
                    if res.status == 200 and json.loads(res.read().decode("utf-8")).get("live") is True:
                        return True
            except OSError:
                pass
            time.sleep(0.2)
        return False

    def _terminate(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def stop(self):
        self._terminate()
        self.log.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)
