"""The latest time the server has vouched for: every verified answer's signed ``ts`` (and an
air-gapped response's token's issue time) moves it forward, never back. A device whose clock reads
earlier than it, beyond a small skew, has had its clock wound back, and no offline token or
response is believed until it is set right; an offline token's expiry is checked against whichever
is later, the device's clock or this time, so winding the clock back never lengthens its life."""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, Optional

from .store import TokenStore

#: How far behind the trusted time a device's clock may read (ms).
CLOCK_SKEW_MS = 5 * 60 * 1000
TRUSTED_TIME_ID = "keypanel:trusted-time"


@dataclass(frozen=True)
class ClockReading:
    behind: bool
    now: float
    trusted: float


def iso(ms: float) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(ms % 1000):03d}Z"


def parse_iso_ms(value: object) -> Optional[float]:
    """An ISO moment as the server writes it (``2030-01-01T00:00:00.000Z``), in ms; None if it is not one."""
    if not isinstance(value, str):
        return None
    try:
        text = value[:-1] + "+00:00" if value.endswith("Z") else value
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return round(moment.timestamp() * 1000)


class TrustedClock:
    def __init__(self, store: TokenStore, now_ms: Callable[[], float]) -> None:
        self._store = store
        self._now = now_ms

    def latest(self) -> float:
        try:
            stored = float(self._store.get(TRUSTED_TIME_ID) or "nan")
        except ValueError:
            return 0
        return stored if math.isfinite(stored) and stored > 0 else 0

    def see(self, *moments: Optional[float]) -> None:
        """Records moments the server signed (ms)."""
        at = max([0.0] + [m for m in moments if m is not None and math.isfinite(m)])
        if at > self.latest():
            self._store.set(TRUSTED_TIME_ID, str(int(at)) if at == int(at) else str(at))

    def read(self) -> ClockReading:
        now = self._now()
        trusted = self.latest()
        if now < trusted - CLOCK_SKEW_MS:
            return ClockReading(True, now, trusted)
        return ClockReading(False, max(now, trusted), trusted)


def clock_behind_detail(reading: ClockReading) -> str:
    return (
        f"This device's clock ({iso(reading.now)}) is behind a time the licensing server signed "
        f"({iso(reading.trusted)}): set the clock right"
    )
