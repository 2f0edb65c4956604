"""The Python SDK's runner for the conformance vectors (sdk/conformance/README.md): each case on a
fresh device (its own store), the transport answering with the vector's HTTP answer, the clock the
step's ``now``. A case passes when every step's outcome is the one the vector expects."""
from __future__ import annotations

import base64
import json
import os
from datetime import datetime
from typing import Any, Dict, List, Optional, Tuple

from keypanel import Licensing, MemoryStore, Retry, TokenError, normalize_key
from keypanel.client import LicenseResult
from keypanel.verify import OfflineToken

CONFORMANCE_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "conformance")
VECTOR_FILES = ("answers.json", "tokens.json", "scenarios.json", "air-gapped.json")


def load_vectors() -> List[Tuple[str, Dict[str, Any]]]:
    out = []
    for name in VECTOR_FILES:
        with open(os.path.join(CONFORMANCE_DIR, name), encoding="utf-8") as f:
            out.append((name, json.load(f)))
    return out


def _ms(moment: Optional[datetime]) -> Optional[int]:
    return None if moment is None else round(moment.timestamp() * 1000)


def claims(token: OfflineToken) -> Dict[str, Any]:
    return {
        "key": token.key,
        "fingerprint": token.fingerprint,
        "keyTag": token.key_tag,
        "issuedAt": _ms(token.issued_at),
        "expiresAt": _ms(token.expires_at),
        "entitlements": list(token.entitlements),
    }


def outcome(r: LicenseResult) -> Dict[str, Any]:
    return {
        "valid": r.valid,
        "code": r.code.value,
        "source": r.source,
        "licenseKey": r.license.key if r.license else None,
        "usageRemaining": r.license.usage.remaining if r.license and r.license.usage else None,
        "leaseExpiresAt": _ms(r.lease_expires_at),
        "slotFreesAt": _ms(r.slot_frees_at),
        "borrowedUntil": _ms(r.borrowed_until),
        "nextSwapAt": _ms(r.next_swap_at),
        "deviceIds": [d.id for d in r.devices],
        "offlineToken": claims(r.offline_token) if r.offline_token else None,
    }


def run_case(case: Dict[str, Any], public_key: str) -> Optional[str]:
    """The first mismatch, or None when every step gave what the vector expects."""
    state: Dict[str, Any] = {"now": 0, "step": None, "problem": None}

    def transport(url: str, body: bytes, headers: Dict[str, str], timeout: float):
        step = state["step"]
        expected = step["sent"]
        sent = json.loads(body)
        if not url.endswith(expected["path"]):
            state["problem"] = f"sent to {url}, not {expected['path']}"
        elif sent != expected["body"]:
            state["problem"] = f"sent {sent}, not {expected['body']}"
        elif "idempotencyKey" in expected and headers.get("Idempotency-Key") != expected["idempotencyKey"]:
            state["problem"] = f"sent Idempotency-Key {headers.get('Idempotency-Key')}, not {expected['idempotencyKey']}"
        answer = step["answer"]
        if answer is None:
            raise ConnectionRefusedError("the vector has no answer: the network is down")
        return answer["status"], base64.b64decode(answer["body"]), ({"x-signature": answer["signature"]} if answer["signature"] is not None else {})

    store = MemoryStore()
    licensing = Licensing(
        "https://keypanel.invalid",
        public_key,
        store,
        transport=transport,
        retry=Retry(retries=0),
        clock=lambda: state["now"] / 1000,
        sleep=lambda _s: None,
    )
    for i, step in enumerate(case["steps"], 1):
        where = f"step {i} ({step['do']})"
        if step["do"] == "plantOfflineRequest":
            # The store layout every SDK shares.
            keys = {"nonce": step["nonce"], "deviceKey": step["deviceKey"], "privateKey": step["privateKey"]}
            store.set(f"keypanel:offline-request:{normalize_key(step['key'])}|{step['fingerprint']}", json.dumps(keys))
            continue
        state["now"] = step["now"]
        if step["do"] == "call":
            state["step"], state["problem"] = step, None
            r = step["request"]
            k, fp, nonce = r["key"], r["fingerprint"], r["nonce"]
            action = step["action"]
            if action == "activate":
                result = licensing.activate(k, fp, nonce=nonce)
            elif action == "validate":
                result = licensing.validate(k, fp, nonce=nonce, release_date=r.get("releaseDate"))
            elif action == "deactivate":
                result = licensing.deactivate(k, fp, nonce=nonce)
            elif action == "heartbeat":
                result = licensing.heartbeat(k, fp, nonce=nonce)
            elif action == "borrow":
                result = licensing.borrow(k, fp, r["hours"], nonce=nonce)
            elif action == "replace-device":
                result = licensing.replace_device(k, fp, r["replaceDeviceId"], nonce=nonce)
            elif action == "trial":
                result = licensing.start_trial(r["keyTag"], fp, nonce=nonce)
            elif action == "consume":
                result = licensing.consume(k, fp, r.get("amount", 1), r.get("idempotencyKey"), nonce=nonce)
            else:
                return f"{where}: unknown action {action}"
            if state["problem"]:
                return f"{where}: {state['problem']}"
            got: Any = outcome(result)
        elif step["do"] == "checkOffline":
            got = outcome(licensing.check_offline(step["key"], step["fingerprint"]))
        elif step["do"] == "verifyToken":
            try:
                got = {"ok": True, "token": claims(licensing.verify_token(step["token"], step["key"], step["fingerprint"]))}
            except TokenError as err:
                got = {"ok": False, "problem": err.problem}
        elif step["do"] == "applyOfflineResponse":
            got = outcome(licensing.apply_offline_response(step["response"], step["fingerprint"]))
        else:
            return f"{where}: unknown step"
        if got != step["expect"]:
            return f"{where}: expected {json.dumps(step['expect'])}, got {json.dumps(got)}"
    return None
