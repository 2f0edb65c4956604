"""The licensing client an app creates once: activate, validate and deactivate against the
licensing API (and heartbeats on a background thread, borrowing, device swaps, trials and metered
usage), every answer verified against the pinned key before anything in it is believed, and the
last good offline token kept to answer from while the server cannot be reached."""
from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Dict, List, Optional, Union

from .codes import SERVER_CODES, VALID_CODES, Code
from .errors import ClockBehindError, LicenseError, NetworkError, SignatureError, TokenError
from .http import RawAnswer, Retry, Transport, post, urllib_transport
from .offline import OfflineActivation
from .store import MemoryStore, TokenStore
from .trusted_time import TrustedClock, clock_behind_detail, parse_iso_ms
from .verify import OfflineToken, PublicKeyInput, load_public_key, normalize_key, verify_offline_token, verify_signature


def _utc(ms: Optional[float]) -> Optional[datetime]:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=timezone.utc)


@dataclass(frozen=True)
class Usage:
    """A metered key's uses, as the signed answer says them."""

    allowance: int
    remaining: int
    refill_amount: Optional[int]
    refill_days: Optional[int]
    next_refill_at: Optional[datetime]


@dataclass(frozen=True)
class LicenseInfo:
    key: str
    status: str
    product_name: str
    key_tag: str
    product_type: str
    expires_at: Optional[datetime]
    max_activations: int
    activation_count: int
    license_model: str
    trial: bool
    entitlements: List[str]
    usage: Optional[Usage]


@dataclass(frozen=True)
class BoundDevice:
    """A device the key is bound to, as a refusal because the key is full lists it."""

    id: str
    name: Optional[str]
    model: Optional[str]
    last_seen_at: Optional[datetime]
    lease_expires_at: Optional[datetime]


_MOMENTS = ("slotFreesAt", "leaseExpiresAt", "borrowedUntil", "nextSwapAt")


@dataclass(frozen=True)
class LicenseResult:
    #: True only for a valid code: a verified answer now, or a verified offline token not yet expired.
    valid: bool
    code: Code
    #: A sentence for logs or the user.
    detail: str
    #: ``online``: a verified answer to this request; ``offline``: the kept token; ``none``: neither.
    source: str
    license: Optional[LicenseInfo] = None
    offline_token: Optional[OfflineToken] = None
    nonce: Optional[str] = None
    slot_frees_at: Optional[datetime] = None
    lease_expires_at: Optional[datetime] = None
    borrowed_until: Optional[datetime] = None
    next_swap_at: Optional[datetime] = None
    devices: List[BoundDevice] = field(default_factory=list)
    #: Seconds, after a 429.
    retry_after: Optional[int] = None

    def raise_for_code(self) -> "LicenseResult":
        """Returns the result when valid; else raises the typed error for its code."""
        if self.valid:
            return self
        if self.code in (Code.UNREACHABLE, Code.RATE_LIMITED):
            raise NetworkError(self.detail, self.code.value)
        if self.code in (Code.INVALID_SIGNATURE, Code.NOT_THIS_REQUEST):
            raise SignatureError(self.detail, self.code.value)
        if self.code == Code.CLOCK_BEHIND:
            raise ClockBehindError(self.detail, self.code.value)
        raise LicenseError(self.detail, self.code.value)


def _usage(wire: Any) -> Optional[Usage]:
    if not isinstance(wire, dict):
        return None
    return Usage(
        allowance=wire.get("allowance"),
        remaining=wire.get("remaining"),
        refill_amount=wire.get("refillAmount"),
        refill_days=wire.get("refillDays"),
        next_refill_at=_utc(parse_iso_ms(wire.get("nextRefillAt"))),
    )


def license_info(wire: Dict[str, Any]) -> LicenseInfo:
    product = wire.get("product") or {}
    ent = wire.get("entitlements")
    return LicenseInfo(
        key=wire.get("key"),
        status=wire.get("status"),
        product_name=product.get("name"),
        key_tag=product.get("keyTag"),
        product_type=product.get("productType"),
        expires_at=_utc(parse_iso_ms(wire.get("expiresAt"))),
        max_activations=wire.get("maxActivations"),
        activation_count=wire.get("activationCount"),
        license_model=wire.get("licenseModel", "node-locked"),
        trial=bool(wire.get("trial")),
        entitlements=[e for e in ent if isinstance(e, str)] if isinstance(ent, list) else [],
        usage=_usage(wire.get("usage")),
    )


def answer_fields(answer: Dict[str, Any]) -> Dict[str, Any]:
    """The optional moments and devices of a signed answer, as result fields."""
    out: Dict[str, Any] = {}
    for name in _MOMENTS:
        if name in answer:
            snake = "".join("_" + c.lower() if c.isupper() else c for c in name)
            out[snake] = _utc(parse_iso_ms(answer[name]))
    if isinstance(answer.get("devices"), list):
        out["devices"] = [
            BoundDevice(
                id=d.get("id"),
                name=d.get("name"),
                model=d.get("model"),
                last_seen_at=_utc(parse_iso_ms(d.get("lastSeenAt"))),
                lease_expires_at=_utc(parse_iso_ms(d.get("leaseExpiresAt"))),
            )
            for d in answer["devices"]
            if isinstance(d, dict)
        ]
    return out


def random_nonce() -> str:
    return secrets.token_hex(16)


#: The calls that answer from the kept offline token when the server cannot be reached.
_OFFLINE_FALLBACK = ("activate", "validate", "heartbeat", "borrow")


class Heartbeat:
    """Heartbeats for a floating seat on a background thread (see ``Licensing.start_heartbeat``)."""

    def __init__(self, beat: Callable[[], LicenseResult], now_ms: Callable[[], float], on_result, min_interval: float, retry_interval: float):
        self._beat = beat
        self._now = now_ms
        self._on_result = on_result
        self._min = min_interval
        self._retry = retry_interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="keypanel-heartbeat", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        lease: Optional[float] = None
        while not self._stop.is_set():
            result = self._beat()
            if self._on_result is not None:
                self._on_result(result)
            if result.source == "online" and not result.valid:
                self._stop.set()
                return
            if result.source == "online" and result.lease_expires_at is not None:
                lease = result.lease_expires_at.timestamp() * 1000
                wait = (lease - self._now()) / 2000
            else:
                wait = self._retry if lease is None else min(self._retry, (lease - self._now()) / 4000)
            self._stop.wait(max(self._min, wait))

    @property
    def running(self) -> bool:
        return not self._stop.is_set()

    def stop(self, timeout: Optional[float] = None) -> None:
        """Stops the heartbeats (the seat is kept until its lease runs out, or ``deactivate``)."""
        self._stop.set()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)


class Licensing:
    """The client. ``public_key`` is the server's licensing public key shipped inside the app (PEM
    or JWK): never fetched. ``store`` keeps the last good offline token (memory by default)."""

    def __init__(
        self,
        url: str,
        public_key: PublicKeyInput,
        store: Optional[TokenStore] = None,
        *,
        timeout: float = 10.0,
        retry: Optional[Retry] = None,
        transport: Optional[Transport] = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._base = url.rstrip("/")
        self._key = load_public_key(public_key)
        self._store = store if store is not None else MemoryStore()
        self._timeout = timeout
        self._retry = retry or Retry()
        self._transport = transport or urllib_transport
        self._clock = clock
        self._sleep = sleep
        self._trusted = TrustedClock(self._store, self._now)
        self._offline = OfflineActivation(self._store, self._key, self._trusted, self._slot, self._now)

    def _now(self) -> float:
        return round(self._clock() * 1000)

    @staticmethod
    def _slot(key: str, fingerprint: str) -> str:
        return f"{normalize_key(key)}|{fingerprint}"

    # The kept token, verified again; one that no longer holds is dropped (kept while the clock reads behind).
    def _kept_token(self, key: str, fingerprint: str) -> Optional[OfflineToken]:
        token = self._store.get(self._slot(key, fingerprint))
        if not token:
            return None
        reading = self._trusted.read()
        if reading.behind:
            return None
        try:
            return verify_offline_token(self._key, token, reading.now, key, fingerprint)
        except TokenError:
            self._store.delete(self._slot(key, fingerprint))
            return None

    def _offline_result(self, key: str, fingerprint: str, code: Code, detail: str, retry_after: Optional[int] = None) -> LicenseResult:
        # A clock wound back would keep an expired token alive: nothing offline is believed then.
        reading = self._trusted.read()
        if reading.behind:
            return LicenseResult(False, Code.CLOCK_BEHIND, clock_behind_detail(reading), "none")
        token = self._kept_token(key, fingerprint)
        if token is not None:
            until = token.expires_at.strftime("%Y-%m-%dT%H:%M:%S.000Z")
            return LicenseResult(True, Code.VALID, f"Offline: the last verified token holds until {until}", "offline", offline_token=token)
        return LicenseResult(False, code, detail, "none", retry_after=retry_after)

    @staticmethod
    def _forged(detail: str) -> LicenseResult:
        return LicenseResult(False, Code.INVALID_SIGNATURE, detail, "none")

    def _call(self, action: str, key: str, fingerprint: str, nonce: Optional[str], extra: Dict[str, Any], headers: Optional[Dict[str, str]] = None) -> LicenseResult:
        # A fresh nonce per call, echoed inside the signed body: an old signed answer replayed does not match.
        nonce = nonce or random_nonce()
        trial = action == "trial"
        body: Dict[str, Any] = {} if trial else {"key": key}
        body.update({"deviceFingerprint": fingerprint, "nonce": nonce, **extra})
        raw = post(self._transport, f"{self._base}/api/v1/licenses/{action}", body, headers or {}, self._timeout, self._retry, self._sleep)
        fallback = action in _OFFLINE_FALLBACK
        # No answer, or one that grants nothing (throttled, server down): these need no signature.
        if raw is None or raw.status >= 500 or raw.status == 429:
            if raw is not None and raw.status == 429:
                code, detail = Code.RATE_LIMITED, "Too many licensing requests"
            else:
                code = Code.UNREACHABLE
                detail = f"The licensing server answered {raw.status}" if raw is not None else "The licensing server could not be reached"
            retry_after = raw.retry_after if raw is not None and raw.status == 429 else None
            if fallback:
                return self._offline_result(key, fingerprint, code, detail, retry_after)
            return LicenseResult(False, code, detail, "none", offline_token=self._kept_token(key, fingerprint), retry_after=retry_after)
        # Anything acted upon must carry the server's signature over its exact bytes.
        if not verify_signature(self._key, raw.body, raw.signature):
            return self._forged("The answer is not signed by the pinned public key")
        answer = _parse(raw)
        if raw.status != 200:
            message = answer.get("message") if isinstance(answer, dict) else None
            return LicenseResult(False, Code.REJECTED, message if isinstance(message, str) else f"HTTP {raw.status}", "none")
        if not isinstance(answer, dict) or not _server_code(answer.get("code")) or not isinstance(answer.get("detail"), str):
            return self._forged("The signed answer is not a licensing answer")
        if answer.get("nonce") != nonce:
            return self._forged("The signed answer is not the answer to this request (nonce)")
        wire_license = answer.get("license")
        if wire_license and not trial and (not isinstance(wire_license, dict) or wire_license.get("key") != normalize_key(key)):
            return self._forged("The signed answer is about another license key")
        code = Code(answer["code"])
        is_valid = code in VALID_CODES
        if answer.get("valid") is not is_valid:
            return self._forged("The signed answer is not a licensing answer")
        if wire_license is not None and not isinstance(wire_license, dict):
            return self._forged("The signed answer is not a licensing answer")
        # A trial's answer is about the key it made: from here on, that key is the request's.
        if trial and wire_license:
            key = wire_license.get("key", "")
        # The answer's signed time is trusted from now on: a clock wound back behind it is seen offline.
        self._trusted.see(parse_iso_ms(answer.get("ts")))
        token: Optional[OfflineToken] = None
        if action == "consume":
            # A debit says nothing about the device's standing: the kept token stays as it is.
            token = self._kept_token(key, fingerprint)
        elif is_valid and wire_license and wire_license.get("token"):
            try:
                at = max(self._now(), self._trusted.latest())
                token = verify_offline_token(self._key, wire_license["token"], at, key, fingerprint)
            except TokenError as err:
                # Signed, but already past its expiry by this device's clock (a clock ahead): nothing to keep.
                if err.problem != "expired":
                    return self._forged(f"The offline token in the answer is not valid: {err}")
            if token is not None:
                self._store.set(self._slot(key, fingerprint), token.token)
            else:
                self._store.delete(self._slot(key, fingerprint))
        elif not trial or wire_license:
            # The server said no (or gave no token): nothing kept may answer for this device any more.
            self._store.delete(self._slot(key, fingerprint))
        return LicenseResult(
            valid=is_valid,
            code=code,
            detail=answer["detail"],
            source="online",
            nonce=nonce,
            license=license_info(wire_license) if wire_license else None,
            offline_token=token,
            **answer_fields(answer),
        )

    # The calls.

    def activate(self, key: str, fingerprint: str, device_info: Optional[Dict[str, str]] = None, nonce: Optional[str] = None) -> LicenseResult:
        """Takes a device slot (activating the same device again takes none)."""
        return self._call("activate", key, fingerprint, nonce, {"deviceInfo": device_info} if device_info else {})

    def validate(self, key: str, fingerprint: str, nonce: Optional[str] = None, release_date: Optional[str] = None) -> LicenseResult:
        """Asks the server; when it cannot answer, the last good offline token does until it expires.
        ``release_date``: this build's release date (ISO 8601, like ``2026-03-01``), so a
        perpetual-fallback key past its expiry still answers valid (UPDATES_ENDED) for a release
        dated before the expiry."""
        return self._call("validate", key, fingerprint, nonce, {} if release_date is None else {"releaseDate": release_date})

    def deactivate(self, key: str, fingerprint: str, nonce: Optional[str] = None) -> LicenseResult:
        """Releases the device (a floating one checks its seat in); its kept token goes once the server confirms."""
        return self._call("deactivate", key, fingerprint, nonce, {})

    def heartbeat(self, key: str, fingerprint: str, nonce: Optional[str] = None) -> LicenseResult:
        """Renews a floating seat's lease once (``start_heartbeat`` keeps it renewed)."""
        return self._call("heartbeat", key, fingerprint, nonce, {})

    def borrow(self, key: str, fingerprint: str, hours: int, nonce: Optional[str] = None) -> LicenseResult:
        """Borrows a floating seat for offline use for ``hours``: the kept token lives until the borrow ends."""
        return self._call("borrow", key, fingerprint, nonce, {"hours": hours})

    def replace_device(self, key: str, fingerprint: str, replace_device_id: str, device_info: Optional[Dict[str, str]] = None, nonce: Optional[str] = None) -> LicenseResult:
        """This device takes the slot of ``replace_device_id`` (from a refusal's ``devices``), within the swap budget."""
        extra: Dict[str, Any] = {"replaceDeviceId": replace_device_id}
        if device_info:
            extra["deviceInfo"] = device_info
        return self._call("replace-device", key, fingerprint, nonce, extra)

    def start_trial(self, key_tag: str, fingerprint: str, device_info: Optional[Dict[str, str]] = None, nonce: Optional[str] = None) -> LicenseResult:
        """Starts this device's trial of the product ``key_tag``: ``result.license.key`` is the trial key from then on."""
        extra: Dict[str, Any] = {"keyTag": key_tag}
        if device_info:
            extra["deviceInfo"] = device_info
        return self._call("trial", "", fingerprint, nonce, extra)

    def consume(self, key: str, fingerprint: str, amount: int = 1, idempotency_key: Optional[str] = None, nonce: Optional[str] = None) -> LicenseResult:
        """Debits ``amount`` uses from a metered key. The Idempotency-Key (a fresh one by default;
        pass one you keep to retry across restarts) goes with every retry, so the debit happens once."""
        return self._call("consume", key, fingerprint, nonce, {"amount": amount}, {"Idempotency-Key": idempotency_key or random_nonce()})

    def start_heartbeat(
        self,
        key: str,
        fingerprint: str,
        on_result: Optional[Callable[[LicenseResult], None]] = None,
        min_interval: float = 5.0,
        retry_interval: float = 60.0,
    ) -> Heartbeat:
        """Heartbeats on a background thread: each at half of what is left of the lease (at least
        ``min_interval`` seconds), sooner after an unreachable server. It stops by itself when the
        server says no (the seat is gone), and with ``stop()``."""
        return Heartbeat(lambda: self.heartbeat(key, fingerprint), self._now, on_result, min_interval, retry_interval)

    # Offline.

    def check_offline(self, key: str, fingerprint: str) -> LicenseResult:
        """The kept offline token alone, without the network."""
        return self._offline_result(key, fingerprint, Code.UNREACHABLE, "No offline token is kept for this key and device")

    def has_entitlement(self, key: str, fingerprint: str, name: str) -> bool:
        """Whether the key has entitlement ``name``, from the kept token (so it holds offline)."""
        token = self._kept_token(key, fingerprint)
        return token is not None and name in token.entitlements

    def verify_token(self, token: str, key: Optional[str] = None, fingerprint: Optional[str] = None) -> OfflineToken:
        """Verifies any offline token against the pinned key and the trusted time (raises TokenError)."""
        reading = self._trusted.read()
        if reading.behind:
            raise TokenError("clock", clock_behind_detail(reading))
        return verify_offline_token(self._key, token, reading.now, key, fingerprint)

    def trusted_time(self) -> Optional[datetime]:
        """The latest time the server signed that this device has seen (None when none yet)."""
        latest = self._trusted.latest()
        return _utc(latest) if latest else None

    # Air-gapped activation (offline.py).

    def create_offline_request(self, key: str, fingerprint: str, device_info: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        """Writes an activation request for this device (no network needed): give it to the key's holder."""
        return self._offline.create_request(key, fingerprint, device_info)

    def apply_offline_response(self, response: Union[str, Dict[str, Any]], fingerprint: str) -> LicenseResult:
        """Verifies the response to this device's last request, offline, and keeps its token."""
        return self._offline.apply_response(response, fingerprint)

    def create_deactivation_proof(self, key: str, fingerprint: str) -> Dict[str, str]:
        """Writes the proof that frees this device's slot, and erases its offline token."""
        return self._offline.create_proof(key, fingerprint)


def _server_code(value: Any) -> bool:
    return isinstance(value, str) and value in {c.value for c in SERVER_CODES}


def _parse(raw: RawAnswer) -> Any:
    try:
        return json.loads(raw.body.decode("utf-8"))
    except (ValueError, UnicodeError):
        return None
