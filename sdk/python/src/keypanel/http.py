"""One POST to the licensing API, sent again after a 429, a 5xx or no answer at all, waiting as
Retry-After says or else backing off exponentially with jitter. Every licensing call is safe to
repeat: activating again takes no second slot, and a debit repeats with its Idempotency-Key (the
same headers go with every attempt)."""
from __future__ import annotations

import http.client
import json
import random
import re
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Callable, Dict, Mapping, Optional, Tuple

#: ``transport(url, body, headers, timeout) -> (status, body bytes, headers)``; raises OSError when no answer came.
Transport = Callable[[str, bytes, Dict[str, str], float], Tuple[int, bytes, Mapping[str, str]]]


@dataclass(frozen=True)
class RawAnswer:
    status: int
    body: bytes
    signature: Optional[str]
    retry_after: Optional[int] = None


def urllib_transport(url: str, body: bytes, headers: Dict[str, str], timeout: float) -> Tuple[int, bytes, Mapping[str, str]]:
    """The standard library's HTTP client (proxies and CA certificates as urllib finds them)."""
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as res:
            return res.status, res.read(), {k.lower(): v for k, v in res.headers.items()}
    except urllib.error.HTTPError as err:
        return err.code, err.read(), {k.lower(): v for k, v in (err.headers or {}).items()}


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[int]:
    """Retry-After in seconds, from either form HTTP allows (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if re.fullmatch(r"\d+", value):
        return int(value)
    try:
        at = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0, int(-(-(at - (time.time() if now is None else now)) // 1)))


@dataclass
class Retry:
    #: Attempts after the first.
    retries: int = 3
    base_delay: float = 0.5
    #: No single wait is longer; a Retry-After beyond it ends the retries.
    max_delay: float = 30.0


def post(
    transport: Transport,
    url: str,
    payload: object,
    headers: Dict[str, str],
    timeout: float,
    retry: Retry,
    sleep: Callable[[float], None],
) -> Optional[RawAnswer]:
    """The last answer, or None when none came at all."""
    body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    sent = {"content-type": "application/json", "accept": "application/json", **headers}
    last: Optional[RawAnswer] = None
    attempt = 0
    while True:
        try:
            status, data, answer_headers = transport(url, body, dict(sent), timeout)
            lower = {k.lower(): v for k, v in answer_headers.items()}
            last = RawAnswer(status, data, lower.get("x-signature"), parse_retry_after(lower.get("retry-after")))
        except (OSError, ValueError, http.client.HTTPException):
            last = None
        if last is not None and last.status != 429 and last.status < 500:
            return last
        if attempt >= retry.retries:
            return last
        backoff = min(retry.max_delay, retry.base_delay * 2**attempt) * (0.5 + random.random() / 2)
        wait = float(last.retry_after) if last is not None and last.retry_after is not None else backoff
        if wait > retry.max_delay:
            return last
        sleep(wait)
        attempt += 1
