"""A stable device fingerprint from the operating system's machine id (Linux and the BSDs: the
machine-id files; macOS: IOPlatformUUID; Windows: MachineGuid), hashed with an app-chosen salt so
the raw id never leaves the machine and two apps see different values. The same machine gives the
same fingerprint in every KeyPanel SDK."""
from __future__ import annotations

import hashlib
import platform
import re
import socket
import subprocess
import sys
import uuid
from typing import Dict, Optional


def machine_id(system: Optional[str] = None) -> Optional[str]:
    """The OS's own machine id: stable across reboots and reinstalls of the app; None if none can be read."""
    system = system or sys.platform
    try:
        if system.startswith("linux") or "bsd" in system:
            for path in ("/etc/machine-id", "/var/lib/dbus/machine-id", "/etc/hostid"):
                try:
                    with open(path, encoding="utf-8") as f:
                        value = f.read().strip()
                    if value:
                        return value
                except OSError:
                    continue
            return None
        if system == "darwin":
            out = subprocess.run(["ioreg", "-rd1", "-c", "IOPlatformExpertDevice"], capture_output=True, text=True, timeout=10).stdout
            found = re.search(r'"IOPlatformUUID"\s*=\s*"([^"]+)"', out)
            return found.group(1) if found else None
        if system in ("win32", "cygwin"):
            import winreg  # type: ignore[import-not-found]

            with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, r"SOFTWARE\Microsoft\Cryptography", 0, winreg.KEY_READ | winreg.KEY_WOW64_64KEY) as k:
                return str(winreg.QueryValueEx(k, "MachineGuid")[0])
    except (OSError, subprocess.SubprocessError, ImportError):
        return None
    return None


def _fallback_id() -> str:
    return "|".join([socket.gethostname(), platform.machine(), platform.processor(), f"{uuid.getnode():012x}"])


def device_fingerprint(salt: str = "") -> str:
    """A fingerprint for ``activate``/``validate``: 64 hex characters, the same on every run on this machine."""
    ident = machine_id() or _fallback_id()
    return hashlib.sha256(f"keypanel-device:{salt}:{ident}".encode("utf-8")).hexdigest()


def device_info() -> Dict[str, str]:
    """What the owner sees for this device in the admin area (activate's ``device_info``)."""
    return {
        "model": f"{platform.system()} {platform.release()}"[:200],
        "device": socket.gethostname()[:200],
        "cpuAbi": platform.machine()[:200],
    }
