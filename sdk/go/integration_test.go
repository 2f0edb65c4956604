package keypanel

// The Go SDK against a real local KeyPanel (scripts/sdk-languages.ts starts it, as the CLI tests
// start theirs, and makes a customer with a key of each kind): activate, validate, go offline, wind
// the clock back, heartbeat a floating seat, borrow, start a trial, consume with a retried
// Idempotency-Key, refuse a tampered answer, deactivate, and activate air-gapped.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

type integrationFixtures struct {
	URL           string `json:"url"`
	PublicKeyPem  string `json:"publicKeyPem"`
	CustomerToken string `json:"customerToken"`
	Keys          struct {
		NodeLocked string `json:"nodeLocked"`
		Metered    string `json:"metered"`
		Floating   string `json:"floating"`
		AirGapped  string `json:"airGapped"`
		Tampered   string `json:"tampered"`
	} `json:"keys"`
	MeteredAllowance int    `json:"meteredAllowance"`
	TrialKeyTag      string `json:"trialKeyTag"`
}

func fixtures(t *testing.T) integrationFixtures {
	path := os.Getenv("KEYPANEL_TEST_FIXTURES")
	if path == "" {
		if os.Getenv("KEYPANEL_REQUIRE_INTEGRATION") != "" {
			t.Fatal("KEYPANEL_TEST_FIXTURES is not set: run through `npm run test:sdks`")
		}
		t.Skip("no local KeyPanel: `npm run test:sdks` (or `npm test`) starts one for this test")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f integrationFixtures
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

func newClient(t *testing.T, f integrationFixtures, o Options) *Client {
	if o.URL == "" {
		o.URL = f.URL
	}
	o.PublicKey = f.PublicKeyPem
	if o.Retry == nil {
		o.Retry = &Retry{Retries: 2, BaseDelay: 10 * time.Millisecond, MaxDelay: time.Second}
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func must(t *testing.T) func(*Result, error) *Result {
	return func(r *Result, err error) *Result {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
}

func expectCode(t *testing.T, r *Result, valid bool, code Code, source Source) {
	t.Helper()
	if r.Valid != valid || r.Code != code || r.Source != source {
		t.Fatalf("expected %v %s %s, got %v %s %s: %s", valid, code, source, r.Valid, r.Code, r.Source, r.Detail)
	}
}

// holderCall is the key's holder, signed in on a connected machine (what My Keys or the CLI does).
func holderCall(t *testing.T, f integrationFixtures, path string, body interface{}) map[string]interface{} {
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, f.URL+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+f.CustomerToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("%s: %d %s", path, res.StatusCode, data)
	}
	var out map[string]interface{}
	_ = json.Unmarshal(data, &out)
	return out
}

func TestIntegrationActivateValidateOfflineClockAndDeactivate(t *testing.T) {
	f := fixtures(t)
	ctx := context.Background()
	key, fp := f.Keys.NodeLocked, DeviceFingerprint("go-integration")
	file := filepath.Join(t.TempDir(), "license.json")
	c := newClient(t, f, Options{Store: NewFileStore(file)})

	expectCode(t, must(t)(c.Validate(ctx, Request{Key: key, Fingerprint: fp})), false, NotActivated, Online)
	activated := must(t)(c.Activate(ctx, Request{Key: strings.ToLower(key), Fingerprint: fp, DeviceInfo: CurrentDeviceInfo()}))
	expectCode(t, activated, true, Valid, Online)
	if activated.License.Key != key || activated.OfflineToken == nil || activated.OfflineToken.Fingerprint != fp {
		t.Fatalf("activation: %+v", activated)
	}
	expectCode(t, must(t)(c.Validate(ctx, Request{Key: key, Fingerprint: fp})), true, Valid, Online)
	if ok, _ := c.HasEntitlement(key, fp, "pro"); !ok {
		t.Fatal("the key's entitlement pro is not seen offline")
	}

	// The server out of reach: the kept token answers, from the file, in a new client.
	down := newClient(t, f, Options{URL: "http://127.0.0.1:9", Store: NewFileStore(file), Retry: &Retry{Retries: -1}})
	expectCode(t, must(t)(down.Validate(ctx, Request{Key: key, Fingerprint: fp})), true, Valid, Offline)
	// The clock wound back a day: nothing offline is believed.
	rewound := newClient(t, f, Options{URL: "http://127.0.0.1:9", Store: NewFileStore(file), Retry: &Retry{Retries: -1}, Now: func() time.Time { return time.Now().Add(-24 * time.Hour) }})
	behind := must(t)(rewound.Validate(ctx, Request{Key: key, Fingerprint: fp}))
	expectCode(t, behind, false, ClockBehind, None)
	if !errors.Is(behind.Err(), ErrClockBehind) {
		t.Fatalf("Err: %v", behind.Err())
	}

	full := must(t)(newClient(t, f, Options{}).Activate(ctx, Request{Key: key, Fingerprint: fp + "-other"}))
	if full.Code != DeviceLimitReached || len(full.Devices) != 1 || !errors.Is(full.Err(), ErrRefused) {
		t.Fatalf("second device: %+v", full)
	}
	gone := must(t)(c.Deactivate(ctx, Request{Key: key, Fingerprint: fp}))
	expectCode(t, gone, false, Deactivated, Online)
	expectCode(t, must(t)(c.CheckOffline(key, fp)), false, Unreachable, None)
}

func TestIntegrationATamperedAnswerIsRefusedAndChangesNothing(t *testing.T) {
	f := fixtures(t)
	ctx := context.Background()
	key, fp := f.Keys.Tampered, DeviceFingerprint("go-tampered")
	store := NewMemoryStore()
	expectCode(t, must(t)(newClient(t, f, Options{Store: store}).Activate(ctx, Request{Key: key, Fingerprint: fp})), true, Valid, Online)
	tampering := roundTrip(func(r *http.Request) (*http.Response, error) {
		res, err := http.DefaultTransport.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(bytes.Replace(data, []byte(`"valid":true`), []byte(`"valid":false`), 1)))
		return res, nil
	})
	forgedResult := must(t)(newClient(t, f, Options{Store: store, HTTPClient: &http.Client{Transport: tampering}}).Validate(ctx, Request{Key: key, Fingerprint: fp}))
	expectCode(t, forgedResult, false, InvalidSignature, None)
	if !errors.Is(forgedResult.Err(), ErrSignature) {
		t.Fatal("a forged answer's error is not ErrSignature")
	}
	expectCode(t, must(t)(newClient(t, f, Options{Store: store}).CheckOffline(key, fp)), true, Valid, Offline)
}

func TestIntegrationConsumeReusesItsIdempotencyKeyOnRetry(t *testing.T) {
	f := fixtures(t)
	ctx := context.Background()
	key, fp := f.Keys.Metered, DeviceFingerprint("go-metered")
	expectCode(t, must(t)(newClient(t, f, Options{}).Activate(ctx, Request{Key: key, Fingerprint: fp})), true, Valid, Online)
	var sent []string
	var attempts int32
	flaky := roundTrip(func(r *http.Request) (*http.Response, error) {
		sent = append(sent, r.Header.Get("Idempotency-Key"))
		// The first attempt never reaches the server; the retry does, with the same Idempotency-Key.
		if atomic.AddInt32(&attempts, 1) == 1 {
			return nil, errors.New("connection reset")
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	c := newClient(t, f, Options{HTTPClient: &http.Client{Transport: flaky}})
	debit := must(t)(c.Consume(ctx, Request{Key: key, Fingerprint: fp}, 3, "go-debit-1"))
	expectCode(t, debit, true, Consumed, Online)
	if len(sent) != 2 || sent[0] != "go-debit-1" || sent[1] != "go-debit-1" || debit.License.Usage.Remaining != f.MeteredAllowance-3 {
		t.Fatalf("sent %v, remaining %d", sent, debit.License.Usage.Remaining)
	}
	again := must(t)(newClient(t, f, Options{}).Consume(ctx, Request{Key: key, Fingerprint: fp}, 3, "go-debit-1"))
	if again.Code != Consumed || again.License.Usage.Remaining != f.MeteredAllowance-3 {
		t.Fatalf("the same Idempotency-Key debited again: %+v", again.License.Usage)
	}
	expectCode(t, must(t)(newClient(t, f, Options{}).Consume(ctx, Request{Key: key, Fingerprint: fp}, 1000, "")), false, UsageExhausted, Online)
}

func TestIntegrationAFloatingSeatHeartbeatsAndBorrows(t *testing.T) {
	f := fixtures(t)
	ctx := context.Background()
	key, fp := f.Keys.Floating, DeviceFingerprint("go-floating")
	c := newClient(t, f, Options{})
	taken := must(t)(c.Activate(ctx, Request{Key: key, Fingerprint: fp}))
	expectCode(t, taken, true, Valid, Online)
	if taken.LeaseExpiresAt == nil {
		t.Fatal("no lease")
	}
	expectCode(t, must(t)(newClient(t, f, Options{}).Activate(ctx, Request{Key: key, Fingerprint: fp + "-other"})), false, NoSeatAvailable, Online)
	beats := make(chan *Result, 4)
	loop := c.StartHeartbeat(ctx, Request{Key: key, Fingerprint: fp}, HeartbeatOptions{OnResult: func(r *Result, err error) {
		if err == nil {
			beats <- r
		}
	}})
	select {
	case beat := <-beats:
		expectCode(t, beat, true, Valid, Online)
		if beat.LeaseExpiresAt.Before(*taken.LeaseExpiresAt) {
			t.Fatal("the heartbeat did not renew the lease")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no heartbeat within 30 s")
	}
	loop.Stop()
	select {
	case <-loop.Done():
	default:
		t.Fatal("the heartbeat loop still runs after Stop")
	}
	borrowed := must(t)(c.Borrow(ctx, Request{Key: key, Fingerprint: fp}, 2))
	expectCode(t, borrowed, true, Valid, Online)
	if borrowed.BorrowedUntil == nil || borrowed.OfflineToken.ExpiresAt.Before(borrowed.BorrowedUntil.Truncate(time.Second)) {
		t.Fatalf("borrow: %+v", borrowed)
	}
	expectCode(t, must(t)(c.Deactivate(ctx, Request{Key: key, Fingerprint: fp})), false, SeatReleased, Online)
}

func TestIntegrationATrial(t *testing.T) {
	f := fixtures(t)
	ctx := context.Background()
	fp := DeviceFingerprint("go-trial-" + time.Now().String())
	started := must(t)(newClient(t, f, Options{}).StartTrial(ctx, f.TrialKeyTag, Request{Fingerprint: fp}))
	expectCode(t, started, true, TrialStarted, Online)
	if !started.License.Trial {
		t.Fatal("not a trial key")
	}
	expectCode(t, must(t)(newClient(t, f, Options{}).StartTrial(ctx, f.TrialKeyTag, Request{Fingerprint: fp})), false, TrialAlreadyUsed, Online)
}

func TestIntegrationAirGappedActivationAndDeactivation(t *testing.T) {
	f := fixtures(t)
	key, fp := f.Keys.AirGapped, DeviceFingerprint("go-air-gapped")
	device := newClient(t, f, Options{URL: "http://offline.invalid", Retry: &Retry{Retries: -1}})
	request, err := device.CreateOfflineRequest(Request{Key: key, Fingerprint: fp, DeviceInfo: CurrentDeviceInfo()})
	if err != nil || request.Type != OfflineRequestType || request.Key != key {
		t.Fatalf("request: %+v %v", request, err)
	}
	response, _ := json.Marshal(holderCall(t, f, "/api/users/my-keys/offline-activations", request))
	applied := must(t)(device.ApplyOfflineResponse(response, fp))
	expectCode(t, applied, true, OfflineActivated, Online)
	expectCode(t, must(t)(device.CheckOffline(key, fp)), true, Valid, Offline)
	expectCode(t, must(t)(device.ApplyOfflineResponse(response, fp)), false, NotThisRequest, None)

	proof, err := device.CreateDeactivationProof(Request{Key: key, Fingerprint: fp})
	if err != nil {
		t.Fatal(err)
	}
	expectCode(t, must(t)(device.CheckOffline(key, fp)), false, Unreachable, None)
	receipt := holderCall(t, f, "/api/users/my-keys/offline-deactivations", proof)
	var answer struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal([]byte(receipt["answer"].(string)), &answer)
	if answer.Code != "DEACTIVATED" {
		t.Fatalf("receipt: %v", receipt)
	}
}
