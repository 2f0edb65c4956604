"""KeyPanel licensing for Python apps: activate, validate and deactivate license keys, every answer
and offline token verified against the server's public key pinned in the app."""
from .client import BoundDevice, Heartbeat, LicenseInfo, LicenseResult, Licensing, Usage
from .codes import CLIENT_CODES, SERVER_CODES, VALID_CODES, Code
from .device import device_fingerprint, device_info, machine_id
from .errors import ClockBehindError, KeyPanelError, LicenseError, NetworkError, SignatureError, TokenError
from .http import Retry, parse_retry_after
from .offline import OFFLINE_PROOF_TYPE, OFFLINE_REQUEST_TYPE, OFFLINE_RESPONSE_TYPE
from .store import FileStore, MemoryStore, TokenStore
from .trusted_time import CLOCK_SKEW_MS
from .verify import TOKEN_ISSUER, OfflineToken, load_public_key, normalize_key, verify_offline_token, verify_signature

__all__ = [
    "BoundDevice",
    "CLIENT_CODES",
    "CLOCK_SKEW_MS",
    "ClockBehindError",
    "Code",
    "FileStore",
    "Heartbeat",
    "KeyPanelError",
    "LicenseError",
    "LicenseInfo",
    "LicenseResult",
    "Licensing",
    "MemoryStore",
    "NetworkError",
    "OFFLINE_PROOF_TYPE",
    "OFFLINE_REQUEST_TYPE",
    "OFFLINE_RESPONSE_TYPE",
    "OfflineToken",
    "Retry",
    "SERVER_CODES",
    "SignatureError",
    "TOKEN_ISSUER",
    "TokenError",
    "TokenStore",
    "Usage",
    "VALID_CODES",
    "device_fingerprint",
    "device_info",
    "load_public_key",
    "machine_id",
    "normalize_key",
    "parse_retry_after",
    "verify_offline_token",
    "verify_signature",
]
__version__ = "0.1.0"
