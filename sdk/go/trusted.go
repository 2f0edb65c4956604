package keypanel

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// ClockSkew is how far behind the trusted time a device's clock may read.
const ClockSkew = 5 * time.Minute

const trustedTimeID = "keypanel:trusted-time"

// The latest time the server has vouched for: every verified answer's signed ts (and an air-gapped
// response's token's issue time) moves it forward, never back. A device whose clock reads earlier,
// beyond ClockSkew, had its clock wound back: nothing offline is believed until it is set right; a
// token's expiry is checked against the later of the device's clock and this time.
type trustedClock struct {
	store Store
	now   func() time.Time
}

type clockReading struct {
	behind  bool
	now     int64
	trusted int64
}

func (t trustedClock) latest() (int64, error) {
	v, ok, err := t.store.Get(trustedTimeID)
	if err != nil || !ok {
		return 0, err
	}
	f, perr := strconv.ParseFloat(v, 64)
	if perr != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
		return 0, nil
	}
	return int64(f), nil
}

func (t trustedClock) see(moments ...int64) error {
	var at int64
	for _, m := range moments {
		if m > at {
			at = m
		}
	}
	latest, err := t.latest()
	if err != nil {
		return err
	}
	if at > latest {
		return t.store.Set(trustedTimeID, strconv.FormatInt(at, 10))
	}
	return nil
}

func (t trustedClock) read() (clockReading, error) {
	now := t.now().UnixMilli()
	trusted, err := t.latest()
	if err != nil {
		return clockReading{}, err
	}
	if now < trusted-ClockSkew.Milliseconds() {
		return clockReading{behind: true, now: now, trusted: trusted}, nil
	}
	if trusted > now {
		now = trusted
	}
	return clockReading{now: now, trusted: trusted}, nil
}

func isoMillis(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") }

func clockBehindDetail(r clockReading) string {
	return fmt.Sprintf("This device's clock (%s) is behind a time the licensing server signed (%s): set the clock right", isoMillis(r.now), isoMillis(r.trusted))
}

// parseMoment reads an ISO moment as the server writes it; ok is false when it is not one.
func parseMoment(v string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}
