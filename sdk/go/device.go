package keypanel

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"sort"
	"strings"
)

// MachineID is the operating system's own machine id (Linux and the BSDs: the machine-id files;
// macOS: IOPlatformUUID; Windows: MachineGuid): stable across reboots and reinstalls of the app.
// Empty when none can be read.
func MachineID() string {
	switch runtime.GOOS {
	case "darwin":
		out, err := exec.Command("ioreg", "-rd1", "-c", "IOPlatformExpertDevice").Output()
		if err == nil {
			if m := regexp.MustCompile(`"IOPlatformUUID"\s*=\s*"([^"]+)"`).FindSubmatch(out); m != nil {
				return string(m[1])
			}
		}
	case "windows":
		out, err := exec.Command("reg", "query", `HKLM\SOFTWARE\Microsoft\Cryptography`, "/v", "MachineGuid").Output()
		if err == nil {
			if m := regexp.MustCompile(`MachineGuid\s+REG_SZ\s+(\S+)`).FindSubmatch(out); m != nil {
				return string(m[1])
			}
		}
	default:
		for _, file := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id", "/etc/hostid"} {
			if raw, err := os.ReadFile(file); err == nil {
				if id := strings.TrimSpace(string(raw)); id != "" {
					return id
				}
			}
		}
	}
	return ""
}

func fallbackID() string {
	host, _ := os.Hostname()
	var macs []string
	if ifaces, err := net.Interfaces(); err == nil {
		for _, i := range ifaces {
			if i.Flags&net.FlagLoopback == 0 && len(i.HardwareAddr) > 0 {
				macs = append(macs, i.HardwareAddr.String())
			}
		}
	}
	sort.Strings(macs)
	return strings.Join(append([]string{host, runtime.GOARCH}, macs...), "|")
}

// DeviceFingerprint is a fingerprint for Activate and Validate: 64 hex characters, the same on every
// run on this machine, the machine id hashed with an app-chosen salt (so the raw id never leaves the
// machine and two apps see different values). The same machine gives the same value in every
// KeyPanel SDK.
func DeviceFingerprint(salt string) string {
	id := MachineID()
	if id == "" {
		id = fallbackID()
	}
	sum := sha256.Sum256([]byte("keypanel-device:" + salt + ":" + id))
	return hex.EncodeToString(sum[:])
}

// CurrentDeviceInfo is what the owner sees for this device in the admin area.
func CurrentDeviceInfo() *DeviceInfo {
	host, _ := os.Hostname()
	return &DeviceInfo{Model: runtime.GOOS, Device: truncate(host, 200), CPUAbi: runtime.GOARCH}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
