"""Every code a licensing result can carry, as an enum.

The server's codes are the licensing API's (KeyPanel's worker/platform/vocabulary.ts, which the
OpenAPI document lists); a test fails when the two differ. The SDK adds its own for what happens on
the way (see ``Code``).
"""
from __future__ import annotations

from enum import Enum


class Code(str, Enum):
    """A result's code. The first group is what the licensing API answers in a signed body; the
    second is what the SDK decides itself:

    - ``INVALID_SIGNATURE``: an answer (or the token in it) whose signature is missing or does not
      match the pinned key, or that does not answer this request (another nonce, key or device).
    - ``UNREACHABLE``: no answer (network, timeout, 5xx after every retry) and no good offline token.
    - ``RATE_LIMITED``: the last answer was a 429; ``retry_after`` says when to come back.
    - ``REJECTED``: the API refused the request itself (a malformed key or fingerprint).
    - ``CLOCK_BEHIND``: the device's clock is behind a time a signed answer or token showed it.
    - ``NOT_THIS_REQUEST``: an air-gapped response that does not answer this device's last request.
    """

    VALID = "VALID"
    NOT_FOUND = "NOT_FOUND"
    REVOKED = "REVOKED"
    EXPIRED = "EXPIRED"
    NOT_ACTIVATED = "NOT_ACTIVATED"
    DEVICE_LIMIT_REACHED = "DEVICE_LIMIT_REACHED"
    PRODUCT_INACTIVE = "PRODUCT_INACTIVE"
    DEACTIVATED = "DEACTIVATED"
    KEY_REGENERATED = "KEY_REGENERATED"
    NO_SEAT_AVAILABLE = "NO_SEAT_AVAILABLE"
    LEASE_EXPIRED = "LEASE_EXPIRED"
    SEAT_RELEASED = "SEAT_RELEASED"
    BORROW_NOT_ALLOWED = "BORROW_NOT_ALLOWED"
    DEVICE_REPLACED = "DEVICE_REPLACED"
    SWAP_BUDGET_EXHAUSTED = "SWAP_BUDGET_EXHAUSTED"
    TRIAL_STARTED = "TRIAL_STARTED"
    TRIAL_ALREADY_USED = "TRIAL_ALREADY_USED"
    TRIAL_NOT_OFFERED = "TRIAL_NOT_OFFERED"
    CONSUMED = "CONSUMED"
    USAGE_EXHAUSTED = "USAGE_EXHAUSTED"
    USAGE_NOT_METERED = "USAGE_NOT_METERED"
    OFFLINE_ACTIVATED = "OFFLINE_ACTIVATED"
    NONCE_ALREADY_USED = "NONCE_ALREADY_USED"
    UPDATES_ENDED = "UPDATES_ENDED"

    INVALID_SIGNATURE = "INVALID_SIGNATURE"
    UNREACHABLE = "UNREACHABLE"
    RATE_LIMITED = "RATE_LIMITED"
    REJECTED = "REJECTED"
    CLOCK_BEHIND = "CLOCK_BEHIND"
    NOT_THIS_REQUEST = "NOT_THIS_REQUEST"


CLIENT_CODES = frozenset(
    {
        Code.INVALID_SIGNATURE,
        Code.UNREACHABLE,
        Code.RATE_LIMITED,
        Code.REJECTED,
        Code.CLOCK_BEHIND,
        Code.NOT_THIS_REQUEST,
    }
)

#: What the licensing API answers, in a signed body.
SERVER_CODES = frozenset(code for code in Code if code not in CLIENT_CODES)

#: The codes of a valid answer: the device may use the software (CONSUMED carries no token;
#: UPDATES_ENDED: a perpetual-fallback key past its expiry, validated by a release dated before it).
VALID_CODES = frozenset(
    {Code.VALID, Code.DEVICE_REPLACED, Code.TRIAL_STARTED, Code.CONSUMED, Code.OFFLINE_ACTIVATED, Code.UPDATES_ENDED}
)
