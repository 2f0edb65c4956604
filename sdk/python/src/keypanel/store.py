"""Where the last good offline token is kept, per license key and device, with the latest time the
server signed and an air-gapped request still unanswered. Memory by default; ``FileStore`` keeps
them across restarts. Whatever comes back from a store is verified again before it is believed.

The ids and values are the same in every KeyPanel SDK (sdk/conformance/README.md)."""
from __future__ import annotations

import json
import os
import tempfile
import threading
from typing import Dict, Optional

try:  # Python 3.8+: typing.Protocol
    from typing import Protocol
except ImportError:  # pragma: no cover
    Protocol = object  # type: ignore


class TokenStore(Protocol):
    def get(self, id: str) -> Optional[str]: ...

    def set(self, id: str, value: str) -> None: ...

    def delete(self, id: str) -> None: ...


class MemoryStore:
    """Kept while the process lives."""

    def __init__(self) -> None:
        self._entries: Dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, id: str) -> Optional[str]:
        with self._lock:
            return self._entries.get(id)

    def set(self, id: str, value: str) -> None:
        with self._lock:
            self._entries[id] = value

    def delete(self, id: str) -> None:
        with self._lock:
            self._entries.pop(id, None)


class FileStore:
    """One JSON file (mode 0600, replaced whole on each change): the same file the TypeScript SDK's
    ``fileStore`` writes."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._entries: Optional[Dict[str, str]] = None

    def _load(self) -> Dict[str, str]:
        if self._entries is None:
            try:
                with open(self.path, encoding="utf-8") as f:
                    data = json.load(f)
                self._entries = {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}
            except (OSError, ValueError):
                self._entries = {}
        return self._entries

    def _save(self) -> None:
        folder = os.path.dirname(os.path.abspath(self.path))
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".keypanel-")
        try:
            os.chmod(tmp, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(self._entries, f)
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def get(self, id: str) -> Optional[str]:
        with self._lock:
            return self._load().get(id)

    def set(self, id: str, value: str) -> None:
        with self._lock:
            self._load()[id] = value
            self._save()

    def delete(self, id: str) -> None:
        with self._lock:
            if self._load().pop(id, None) is not None:
                self._save()
