"""The one verification path: Ed25519 signatures over an answer's exact bytes (X-Signature) and
offline tokens (compact JWS, EdDSA), checked against the public key pinned in the app."""
from __future__ import annotations

import base64
import binascii
import json
import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional, Union

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from .errors import TokenError

#: The issuer the server signs offline tokens with.
TOKEN_ISSUER = "keypanel"

_BASE64 = re.compile(r"^[A-Za-z0-9+/]+={0,2}$")
_BASE64URL = re.compile(r"^[A-Za-z0-9_-]*$")

PublicKeyInput = Union[str, bytes, Dict[str, Any], Ed25519PublicKey]


def normalize_key(key: str) -> str:
    """License keys are compared as the server stores them: trimmed, upper case."""
    return key.strip().upper()


def from_base64url(text: str) -> bytes:
    if not _BASE64URL.match(text):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def to_base64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def load_public_key(key: PublicKeyInput) -> Ed25519PublicKey:
    """The pinned key: the PEM (SPKI) or the JWK that GET /api/v1/licenses/public-key gives."""
    if isinstance(key, Ed25519PublicKey):
        return key
    try:
        if isinstance(key, bytes):
            key = key.decode("ascii")
        if isinstance(key, str) and key.strip().startswith("-----BEGIN PUBLIC KEY-----"):
            loaded = load_pem_public_key(key.strip().encode("ascii"))
            if isinstance(loaded, Ed25519PublicKey):
                return loaded
            raise ValueError("not Ed25519")
        jwk = json.loads(key) if isinstance(key, str) else key
        if (
            not isinstance(jwk, dict)
            or jwk.get("kty") != "OKP"
            or jwk.get("crv") != "Ed25519"
            or not isinstance(jwk.get("x"), str)
            or "d" in jwk
        ):
            raise ValueError("not an Ed25519 public JWK")
        return Ed25519PublicKey.from_public_bytes(from_base64url(jwk["x"]))
    except (ValueError, TypeError, UnicodeError, binascii.Error) as err:
        raise ValueError(
            "The public key must be the Ed25519 public key of the KeyPanel server, as PEM (SPKI) or JWK"
        ) from err


def _ed25519(key: Ed25519PublicKey, signature: bytes, data: bytes) -> bool:
    try:
        key.verify(signature, data)
        return True
    except (InvalidSignature, ValueError):
        return False


def verify_signature(key: Ed25519PublicKey, data: bytes, signature: Optional[str]) -> bool:
    """True when ``signature`` (standard base64, as in X-Signature) signs exactly ``data``."""
    if not signature or not _BASE64.match(signature):
        return False
    try:
        raw = base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        return False
    return _ed25519(key, raw, data)


def _utc(ms: float) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc)


@dataclass(frozen=True)
class OfflineToken:
    """The claims of a verified offline token."""

    token: str
    key: str
    fingerprint: str
    key_tag: str
    issued_at: datetime
    expires_at: datetime
    #: The key's entitlements when the token was issued.
    entitlements: List[str] = field(default_factory=list)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def verify_offline_token(
    key: Ed25519PublicKey,
    token: str,
    now_ms: float,
    license_key: Optional[str] = None,
    fingerprint: Optional[str] = None,
) -> OfflineToken:
    """Verifies an offline token: signature (EdDSA only, whatever the header claims), issuer, expiry
    against ``now_ms``, and when given the license key and device it must be for. Raises TokenError."""
    parts = token.strip().split(".")
    if len(parts) != 3:
        raise TokenError("malformed")
    head, body, signature = parts
    try:
        header = json.loads(from_base64url(head).decode("utf-8"))
        claims = json.loads(from_base64url(body).decode("utf-8"))
        sig = from_base64url(signature)
    except (ValueError, UnicodeError, binascii.Error):
        raise TokenError("malformed") from None
    # The algorithm is pinned: a token naming another (or "none") is refused before any check.
    if not isinstance(header, dict) or header.get("alg") != "EdDSA" or not isinstance(claims, dict):
        raise TokenError("malformed")
    if not _ed25519(key, sig, f"{head}.{body}".encode("ascii")):
        raise TokenError("signature")
    if (
        not isinstance(claims.get("sub"), str)
        or not isinstance(claims.get("fp"), str)
        or not _number(claims.get("exp"))
        or not _number(claims.get("iat"))
    ):
        raise TokenError("malformed")
    if claims.get("iss") != TOKEN_ISSUER:
        raise TokenError("issuer")
    if claims["exp"] * 1000 <= now_ms:
        raise TokenError("expired")
    if license_key is not None and claims["sub"] != normalize_key(license_key):
        raise TokenError("key")
    if fingerprint is not None and claims["fp"] != fingerprint:
        raise TokenError("fingerprint")
    ent = claims.get("ent")
    return OfflineToken(
        token=token.strip(),
        key=claims["sub"],
        fingerprint=claims["fp"],
        key_tag=claims["product"] if isinstance(claims.get("product"), str) else "",
        issued_at=_utc(claims["iat"] * 1000),
        expires_at=_utc(claims["exp"] * 1000),
        entitlements=[e for e in ent if isinstance(e, str)] if isinstance(ent, list) else [],
    )
