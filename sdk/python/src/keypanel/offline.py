"""Air-gapped activation. The device writes a request (its key, fingerprint, a one-time nonce and
the public half of an Ed25519 key pair of its own); the key's holder turns it into a signed response
on a connected machine (My Keys, or ``keypanel license offline-activate``) and carries it back; the
device believes the response only when the pinned key signed it and it answers the request this
device wrote last, once. Later the device writes a deactivation proof signed with its private key,
erasing its offline token as it does, and the proof brought back frees the slot."""
from __future__ import annotations

import base64
import json
import secrets
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Union

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, PrivateFormat, NoEncryption

from .codes import SERVER_CODES, VALID_CODES, Code
from .errors import TokenError
from .store import TokenStore
from .trusted_time import TrustedClock, clock_behind_detail, iso, parse_iso_ms
from .verify import from_base64url, normalize_key, to_base64url, verify_offline_token, verify_signature

if TYPE_CHECKING:  # pragma: no cover
    from .client import LicenseResult

OFFLINE_REQUEST_TYPE = "keypanel.offline-activation-request"
OFFLINE_RESPONSE_TYPE = "keypanel.offline-activation-response"
OFFLINE_PROOF_TYPE = "keypanel.offline-deactivation-proof"

#: The nonces of responses applied on this device; the last ones are enough, as each request's nonce is fresh.
USED_NONCES_ID = "keypanel:offline-nonces"
USED_NONCES_KEPT = 50


class OfflineActivation:
    def __init__(self, store: TokenStore, key: Ed25519PublicKey, clock: TrustedClock, slot: Callable[[str, str], str], now: Callable[[], float]) -> None:
        self._store = store
        self._key = key
        self._clock = clock
        self._slot = slot
        self._now = now

    def _pending_id(self, key: str, fingerprint: str) -> str:
        return f"keypanel:offline-request:{self._slot(key, fingerprint)}"

    def _device_id(self, key: str, fingerprint: str) -> str:
        return f"keypanel:offline-device:{self._slot(key, fingerprint)}"

    def _read_keys(self, id: str) -> Optional[Dict[str, str]]:
        text = self._store.get(id)
        if not text:
            return None
        try:
            keys = json.loads(text)
        except ValueError:
            return None
        if isinstance(keys, dict) and all(isinstance(keys.get(k), str) for k in ("nonce", "deviceKey", "privateKey")):
            return keys
        return None

    def _used_nonces(self) -> List[str]:
        try:
            used = json.loads(self._store.get(USED_NONCES_ID) or "[]")
        except ValueError:
            return []
        return [n for n in used if isinstance(n, str)] if isinstance(used, list) else []

    @staticmethod
    def _refusal(code: Code, detail: str) -> "LicenseResult":
        from .client import LicenseResult

        return LicenseResult(False, code, detail, "none")

    def create_request(self, key: str, fingerprint: str, device_info: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        private = Ed25519PrivateKey.generate()
        x = to_base64url(private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw))
        d = to_base64url(private.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()))
        nonce = secrets.token_hex(16)
        # Writing another request replaces the one before (its response is then refused).
        self._store.set(self._pending_id(key, fingerprint), json.dumps({"nonce": nonce, "deviceKey": x, "privateKey": d}))
        request: Dict[str, Any] = {
            "type": OFFLINE_REQUEST_TYPE,
            "key": normalize_key(key),
            "deviceFingerprint": fingerprint,
            "nonce": nonce,
            "deviceKey": x,
        }
        if device_info:
            request["deviceInfo"] = device_info
        request["createdAt"] = iso(self._now())
        return request

    def apply_response(self, response: Union[str, Dict[str, Any]], fingerprint: str) -> "LicenseResult":
        from .client import LicenseResult, answer_fields, license_info

        try:
            file = json.loads(response) if isinstance(response, str) else response
        except ValueError:
            return self._refusal(Code.INVALID_SIGNATURE, "This is not an offline activation response (not JSON)")
        if (
            not isinstance(file, dict)
            or file.get("type") != OFFLINE_RESPONSE_TYPE
            or not isinstance(file.get("answer"), str)
            or not isinstance(file.get("signature"), str)
        ):
            return self._refusal(Code.INVALID_SIGNATURE, "This is not an offline activation response")
        if not verify_signature(self._key, file["answer"].encode("utf-8"), file["signature"]):
            return self._refusal(Code.INVALID_SIGNATURE, "The response is not signed by the pinned public key")
        try:
            answer = json.loads(file["answer"])
        except ValueError:
            return self._refusal(Code.INVALID_SIGNATURE, "The signed response is not a licensing answer")
        if (
            not isinstance(answer, dict)
            or not isinstance(answer.get("code"), str)
            or answer["code"] not in {c.value for c in SERVER_CODES}
            or not isinstance(answer.get("detail"), str)
            or not isinstance(answer.get("license"), dict)
            or not answer.get("nonce")
        ):
            return self._refusal(Code.INVALID_SIGNATURE, "The signed response is not a licensing answer")
        if answer.get("deviceFingerprint") != fingerprint:
            return self._refusal(Code.NOT_THIS_REQUEST, "This response was written for another device (its fingerprint differs)")
        key = answer["license"].get("key", "")
        if answer["nonce"] in self._used_nonces():
            return self._refusal(Code.NOT_THIS_REQUEST, "This response was applied on this device before (its nonce is accepted once)")
        pending = self._read_keys(self._pending_id(key, fingerprint))
        if pending is None or pending["nonce"] != answer["nonce"] or pending["deviceKey"] != answer.get("deviceKey"):
            return self._refusal(Code.NOT_THIS_REQUEST, "This response does not answer the request this device wrote last (another nonce)")
        ts = parse_iso_ms(answer.get("ts"))
        code = Code(answer["code"])
        base = dict(detail=answer["detail"], source="online", nonce=answer["nonce"], license=license_info(answer["license"]), **answer_fields(answer))
        token_text = answer["license"].get("token")
        if code not in VALID_CODES or not token_text:
            # Refused (the key is full, revoked...): the request may be brought again, unless its nonce is spent.
            if code == Code.NONCE_ALREADY_USED:
                self._store.delete(self._pending_id(key, fingerprint))
            self._clock.see(ts)
            return LicenseResult(valid=False, code=code, **base)
        try:
            at = self._now() if ts is None else max(self._now(), ts)
            token = verify_offline_token(self._key, token_text, at, key, fingerprint)
        except TokenError as err:
            return self._refusal(Code.INVALID_SIGNATURE, f"The offline token in the response is not valid: {err}")
        # The response's signed times are trusted from here on; a clock behind them is refused (the request stays).
        self._clock.see(ts, token.issued_at.timestamp() * 1000)
        reading = self._clock.read()
        if reading.behind:
            return self._refusal(Code.CLOCK_BEHIND, clock_behind_detail(reading))
        if token.expires_at.timestamp() * 1000 <= reading.now:
            return self._refusal(Code.INVALID_SIGNATURE, "The offline token in the response has expired")
        self._store.set(USED_NONCES_ID, json.dumps((self._used_nonces() + [answer["nonce"]])[-USED_NONCES_KEPT:]))
        self._store.set(self._slot(key, fingerprint), token.token)
        self._store.set(self._device_id(key, fingerprint), json.dumps(pending))
        self._store.delete(self._pending_id(key, fingerprint))
        return LicenseResult(valid=True, code=code, offline_token=token, **base)

    def create_proof(self, key: str, fingerprint: str) -> Dict[str, str]:
        keys = self._read_keys(self._device_id(key, fingerprint))
        if keys is None:
            raise ValueError("No offline activation of this key is kept on this device: nothing to deactivate")
        proof = json.dumps(
            {
                "type": OFFLINE_PROOF_TYPE,
                "key": normalize_key(key),
                "deviceFingerprint": fingerprint,
                "nonce": keys["nonce"],
                "deactivatedAt": iso(self._now()),
            },
            separators=(",", ":"),
        )
        private = Ed25519PrivateKey.from_private_bytes(from_base64url(keys["privateKey"]))
        signature = base64.b64encode(private.sign(proof.encode("utf-8"))).decode("ascii")
        self._store.delete(self._slot(key, fingerprint))
        self._store.delete(self._device_id(key, fingerprint))
        return {"type": OFFLINE_PROOF_TYPE, "proof": proof, "signature": signature}
