"""``python3 -m speech_gateway gate --framework soc2 --min-score 80 --max-open-findings 0``

Asks the release gate (GET /v1/compliance/gate): exit 0 on pass, 1 on fail, 2 when the gate could not
be asked. URL and key default to $GATEWAY_URL (else http://localhost:3000) and $GATEWAY_API_KEY.
"""

import argparse
import json
import os
import sys

from . import FRAMEWORKS, Client, GatewayError


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m speech_gateway", description="Speech & compliance gateway client")
    commands = parser.add_subparsers(dest="command", required=True)
    gate = commands.add_parser("gate", help="ask the release gate; exit 0 pass, 1 fail, 2 error")
    gate.add_argument("--framework", required=True, help=" | ".join(FRAMEWORKS))
    gate.add_argument("--min-score", type=float)
    gate.add_argument("--max-open-findings", type=int)
    gate.add_argument("--url", default=os.environ.get("GATEWAY_URL") or "http://localhost:3000")
    gate.add_argument("--api-key", default=os.environ.get("GATEWAY_API_KEY"))
    gate.add_argument("--json", action="store_true", help="print the whole answer")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    client = Client(args.url, api_key=args.api_key)
    try:
        answer = client.compliance_gate(framework=args.framework, min_score=args.min_score, max_open_findings=args.max_open_findings)
    except GatewayError as e:
        print("gateway refused: %s: %s" % (e.code, e.message), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(answer, indent=2))
    else:
        print("%s %s: score %s (%s)" % ("PASS" if answer["passed"] else "FAIL", answer["framework"], answer.get("score"), answer.get("status")))
        for check in answer.get("checks", []):
            print("  %s %s" % ("ok  " if check["passed"] else "FAIL", check["message"]))
    return 0 if answer["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
