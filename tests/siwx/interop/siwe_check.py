"""Run by .venv-siwe's Python (SpruceID's `siwe`, not this project's code): for each case on
stdin, parse the text, rebuild it, verify the signature. Prints one JSON result per case.

stdin: a JSON list of {"text", "signature", "domain", "nonce", "time"} (time: RFC 3339, the
moment to check expiration and not-before at). stdout: a JSON list of
{"parsed", "rebuilt", "verified", "error", "fields"}.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import Any

from siwe import SiweMessage


def check(case: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {"parsed": False, "rebuilt": None, "verified": False, "error": None}
    try:
        message = SiweMessage.from_message(message=case["text"], abnf=True)
    except Exception as error:  # the library raises several unrelated types
        result["error"] = f"parse: {type(error).__name__}: {error}"
        return result
    result["parsed"] = True
    result["rebuilt"] = message.prepare_message()
    result["fields"] = {
        "domain": message.domain,
        "address": message.address,
        "statement": message.statement,
        "uri": message.uri,
        "version": str(message.version.value),
        "chainId": message.chain_id,
        "nonce": message.nonce,
        "issuedAt": str(message.issued_at),
        "expirationTime": None if message.expiration_time is None else str(message.expiration_time),
        "notBefore": None if message.not_before is None else str(message.not_before),
        "requestId": message.request_id,
        "resources": message.resources,
    }
    try:
        message.verify(
            case["signature"],
            domain=case["domain"],
            nonce=case["nonce"],
            timestamp=datetime.fromisoformat(case["time"].replace("Z", "+00:00")),
        )
    except Exception as error:
        result["error"] = f"verify: {type(error).__name__}: {error}"
        return result
    result["verified"] = True
    return result


def main() -> None:
    cases = json.load(sys.stdin)
    json.dump([check(case) for case in cases], sys.stdout)


if __name__ == "__main__":
    main()
