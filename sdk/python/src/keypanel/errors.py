"""Typed errors. The licensing calls answer with a ``LicenseResult`` whatever happens (its ``code``
says why it is not valid); ``LicenseResult.raise_for_code()`` turns a refusal into one of these,
and ``verify_token`` raises ``TokenError``."""
from __future__ import annotations

from typing import Optional


class KeyPanelError(Exception):
    """Anything the SDK raises."""

    def __init__(self, message: str, code: Optional[str] = None) -> None:
        super().__init__(message)
        self.code = code


class NetworkError(KeyPanelError):
    """No trustworthy answer came: the server could not be reached, answered 5xx, or 429."""


class SignatureError(KeyPanelError):
    """An answer, token or response is not signed by the pinned key, or does not answer this request."""


class TokenError(SignatureError):
    """An offline token that does not hold; ``problem`` says why: malformed, signature, expired,
    issuer, key, fingerprint or clock."""

    MESSAGES = {
        "malformed": "it is malformed",
        "signature": "the signature does not match this public key",
        "expired": "it has expired",
        "issuer": "its iss claim is wrong",
        "key": "it was issued for another license key",
        "fingerprint": "it was issued for another device fingerprint",
        "clock": "this device's clock is behind a time the licensing server signed",
    }

    def __init__(self, problem: str, message: Optional[str] = None) -> None:
        super().__init__(message or self.MESSAGES[problem])
        self.problem = problem


class ClockBehindError(KeyPanelError):
    """The device's clock reads behind a time the server signed: it was wound back."""


class LicenseError(KeyPanelError):
    """The server refused (revoked, expired, the key full, ...): ``code`` says which."""
