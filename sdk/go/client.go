// Package keypanel is the licensing client for Go apps: activate, validate and deactivate KeyPanel
// license keys (with heartbeats, borrowing, device swaps, trials, metered usage and air-gapped
// activation), every answer and offline token verified against the server's public key pinned in
// the app, and the last good offline token kept in a Store to answer from while the server cannot
// be reached. It needs nothing outside the standard library.
package keypanel

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Options configure a Client.
type Options struct {
	// URL of the KeyPanel server, e.g. https://keys.example.com.
	URL string
	// PublicKey is the server's licensing public key shipped inside the app (PEM or JWK): never fetched.
	PublicKey string
	// Store keeps the last good offline token; memory by default.
	Store Store
	// HTTPClient sends the requests (http.DefaultClient by default).
	HTTPClient *http.Client
	// Timeout per attempt (default 10 s).
	Timeout time.Duration
	Retry   *Retry
	// Now is the device's clock (time.Now by default).
	Now func() time.Time
	// Sleep waits between retries (tests pass one that does not).
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client is safe for concurrent use.
type Client struct {
	base    string
	key     ed25519.PublicKey
	store   Store
	http    *http.Client
	timeout time.Duration
	retry   Retry
	now     func() time.Time
	sleep   func(ctx context.Context, d time.Duration) error
	clock   trustedClock
}

// New makes a Client; it fails only when the public key is not an Ed25519 public key.
func New(o Options) (*Client, error) {
	key, err := ParsePublicKey(o.PublicKey)
	if err != nil {
		return nil, err
	}
	c := &Client{base: strings.TrimRight(o.URL, "/"), key: key, store: o.Store, http: o.HTTPClient, timeout: o.Timeout, now: o.Now, sleep: o.Sleep}
	if c.store == nil {
		c.store = NewMemoryStore()
	}
	if c.http == nil {
		c.http = http.DefaultClient
	}
	if c.timeout == 0 {
		c.timeout = 10 * time.Second
	}
	c.retry = Retry{Retries: 3, BaseDelay: 500 * time.Millisecond, MaxDelay: 30 * time.Second}
	if o.Retry != nil {
		c.retry = *o.Retry
		if c.retry.BaseDelay == 0 {
			c.retry.BaseDelay = 500 * time.Millisecond
		}
		if c.retry.MaxDelay == 0 {
			c.retry.MaxDelay = 30 * time.Second
		}
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.sleep == nil {
		c.sleep = sleepContext
	}
	c.clock = trustedClock{store: c.store, now: c.now}
	return c, nil
}

// Request names the key and this device. Nonce is echoed inside the signed answer and checked: a
// fresh random one when empty (never reuse one). ReleaseDate, sent by Validate only when set, is this
// build's release date (ISO 8601, like 2026-03-01): a perpetual-fallback key past its expiry still
// answers valid (UpdatesEnded) for a release dated before the expiry.
type Request struct {
	Key         string
	Fingerprint string
	Nonce       string
	DeviceInfo  *DeviceInfo
	ReleaseDate string
}

// DeviceInfo is what the owner sees for the device in the admin area.
type DeviceInfo struct {
	Manufacturer string `json:"manufacturer,omitempty"`
	Model        string `json:"model,omitempty"`
	Device       string `json:"device,omitempty"`
	CPUAbi       string `json:"cpuAbi,omitempty"`
	Fingerprint  string `json:"fingerprint,omitempty"`
}

// Usage is a metered key's uses, as the signed answer says them.
type Usage struct {
	Allowance    int        `json:"allowance"`
	Remaining    int        `json:"remaining"`
	RefillAmount *int       `json:"refillAmount"`
	RefillDays   *int       `json:"refillDays"`
	NextRefillAt *time.Time `json:"-"`
}

// License is the key as the answer describes it.
type License struct {
	Key             string
	Status          string
	ProductName     string
	KeyTag          string
	ProductType     string
	ExpiresAt       *time.Time
	MaxActivations  int
	ActivationCount int
	LicenseModel    string
	Trial           bool
	Entitlements    []string
	Usage           *Usage
}

// BoundDevice is a device the key is bound to, as a refusal because the key is full lists it.
type BoundDevice struct {
	ID             string
	Name           *string
	Model          *string
	LastSeenAt     *time.Time
	LeaseExpiresAt *time.Time
}

// Source says where a Result comes from.
type Source string

// The sources.
const (
	// Online: a verified answer to this request.
	Online Source = "online"
	// Offline: the kept offline token.
	Offline Source = "offline"
	// None: neither.
	None Source = "none"
)

// Result is what a call concludes.
type Result struct {
	// Valid is true only for a valid code: a verified answer now, or a verified offline token not yet expired.
	Valid        bool
	Code         Code
	Detail       string
	Source       Source
	Nonce        string
	License      *License
	OfflineToken *OfflineToken
	SlotFreesAt  *time.Time
	// LeaseExpiresAt: a floating seat's lease.
	LeaseExpiresAt *time.Time
	BorrowedUntil  *time.Time
	NextSwapAt     *time.Time
	Devices        []BoundDevice
	// RetryAfter is in seconds, after a 429.
	RetryAfter *int
}

// Err is nil for a valid result, else a *ResultError matching ErrNetwork, ErrSignature,
// ErrClockBehind or ErrRefused (errors.Is).
func (r *Result) Err() error {
	if r.Valid {
		return nil
	}
	kind := ErrRefused
	switch r.Code {
	case Unreachable, RateLimited:
		kind = ErrNetwork
	case InvalidSignature, NotThisRequest:
		kind = ErrSignature
	case ClockBehind:
		kind = ErrClockBehind
	}
	return &ResultError{Code: r.Code, Detail: r.Detail, kind: kind}
}

type wireDevice struct {
	ID             string  `json:"id"`
	Name           *string `json:"name"`
	Model          *string `json:"model"`
	LastSeenAt     *string `json:"lastSeenAt"`
	LeaseExpiresAt *string `json:"leaseExpiresAt"`
}

type wireLicense struct {
	Key     string `json:"key"`
	Status  string `json:"status"`
	Product struct {
		Name        string `json:"name"`
		KeyTag      string `json:"keyTag"`
		ProductType string `json:"productType"`
	} `json:"product"`
	ExpiresAt       *string  `json:"expiresAt"`
	MaxActivations  int      `json:"maxActivations"`
	ActivationCount int      `json:"activationCount"`
	LicenseModel    string   `json:"licenseModel"`
	Trial           bool     `json:"trial"`
	Entitlements    []string `json:"entitlements"`
	Usage           *struct {
		Usage
		NextRefillAt *string `json:"nextRefillAt"`
	} `json:"usage"`
	Token *string `json:"token"`
}

type wireAnswer struct {
	Valid             *bool           `json:"valid"`
	Code              *string         `json:"code"`
	Detail            *string         `json:"detail"`
	Nonce             *string         `json:"nonce"`
	Ts                *string         `json:"ts"`
	SlotFreesAt       json.RawMessage `json:"slotFreesAt"`
	LeaseExpiresAt    json.RawMessage `json:"leaseExpiresAt"`
	BorrowedUntil     json.RawMessage `json:"borrowedUntil"`
	NextSwapAt        json.RawMessage `json:"nextSwapAt"`
	Devices           []wireDevice    `json:"devices"`
	License           *wireLicense    `json:"license"`
	DeviceFingerprint *string         `json:"deviceFingerprint"`
	DeviceKey         *string         `json:"deviceKey"`
}

func momentOf(s *string) *time.Time {
	if s == nil {
		return nil
	}
	if t, ok := parseMoment(*s); ok {
		return &t
	}
	return nil
}

func momentRaw(raw json.RawMessage) *time.Time {
	var s *string
	if len(raw) == 0 || json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return momentOf(s)
}

func (w *wireLicense) license() *License {
	l := &License{
		Key: w.Key, Status: w.Status, ProductName: w.Product.Name, KeyTag: w.Product.KeyTag, ProductType: w.Product.ProductType,
		ExpiresAt: momentOf(w.ExpiresAt), MaxActivations: w.MaxActivations, ActivationCount: w.ActivationCount,
		LicenseModel: w.LicenseModel, Trial: w.Trial, Entitlements: w.Entitlements,
	}
	if l.LicenseModel == "" {
		l.LicenseModel = "node-locked"
	}
	if l.Entitlements == nil {
		l.Entitlements = []string{}
	}
	if w.Usage != nil {
		u := w.Usage.Usage
		u.NextRefillAt = momentOf(w.Usage.NextRefillAt)
		l.Usage = &u
	}
	return l
}

// fill sets the answer's optional moments and devices on r.
func (a *wireAnswer) fill(r *Result) {
	r.SlotFreesAt = momentRaw(a.SlotFreesAt)
	r.LeaseExpiresAt = momentRaw(a.LeaseExpiresAt)
	r.BorrowedUntil = momentRaw(a.BorrowedUntil)
	r.NextSwapAt = momentRaw(a.NextSwapAt)
	for _, d := range a.Devices {
		r.Devices = append(r.Devices, BoundDevice{ID: d.ID, Name: d.Name, Model: d.Model, LastSeenAt: momentOf(d.LastSeenAt), LeaseExpiresAt: momentOf(d.LeaseExpiresAt)})
	}
}

func randomNonce() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

func slot(key, fingerprint string) string { return NormalizeKey(key) + "|" + fingerprint }

// keptToken is the kept token verified again; one that no longer holds is dropped (kept while the clock reads behind).
func (c *Client) keptToken(key, fingerprint string) (*OfflineToken, error) {
	token, ok, err := c.store.Get(slot(key, fingerprint))
	if err != nil || !ok || token == "" {
		return nil, err
	}
	reading, err := c.clock.read()
	if err != nil || reading.behind {
		return nil, err
	}
	verified, verr := VerifyOfflineToken(c.key, token, time.UnixMilli(reading.now), TokenExpectation{Key: key, Fingerprint: fingerprint})
	if verr != nil {
		return nil, c.store.Delete(slot(key, fingerprint))
	}
	return verified, nil
}

// offline answers from the kept token when no trustworthy answer came, else says why not.
func (c *Client) offline(key, fingerprint string, why Result) (*Result, error) {
	// A clock wound back would keep an expired token alive: nothing offline is believed then.
	reading, err := c.clock.read()
	if err != nil {
		return nil, err
	}
	if reading.behind {
		return &Result{Code: ClockBehind, Detail: clockBehindDetail(reading), Source: None}, nil
	}
	token, err := c.keptToken(key, fingerprint)
	if err != nil {
		return nil, err
	}
	if token != nil {
		detail := "Offline: the last verified token holds until " + token.ExpiresAt.Format("2006-01-02T15:04:05.000Z")
		return &Result{Valid: true, Code: Valid, Detail: detail, Source: Offline, OfflineToken: token}, nil
	}
	why.Source = None
	return &why, nil
}

func forged(detail string) *Result {
	return &Result{Code: InvalidSignature, Detail: detail, Source: None}
}

var fallbackActions = map[string]bool{"activate": true, "validate": true, "heartbeat": true, "borrow": true}

// call sends one licensing call and concludes from its answer. The error is non-nil only when the
// context ended or the store failed; every other outcome is a Result.
func (c *Client) call(ctx context.Context, action string, req Request, extra map[string]interface{}, headers map[string]string) (*Result, error) {
	// A fresh nonce per call, echoed inside the signed body: an old signed answer replayed does not match.
	nonce := req.Nonce
	if nonce == "" {
		nonce = randomNonce()
	}
	trial := action == "trial"
	body := map[string]interface{}{"deviceFingerprint": req.Fingerprint, "nonce": nonce}
	if !trial {
		body["key"] = req.Key
	}
	if req.DeviceInfo != nil {
		body["deviceInfo"] = req.DeviceInfo
	}
	for k, v := range extra {
		body[k] = v
	}
	raw, err := c.post(ctx, c.base+"/api/v1/licenses/"+action, body, headers)
	if err != nil {
		return nil, err
	}
	// No answer, or one that grants nothing (throttled, server down): these need no signature.
	if raw == nil || raw.status >= 500 || raw.status == http.StatusTooManyRequests {
		why := Result{Code: Unreachable, Detail: "The licensing server could not be reached"}
		if raw != nil && raw.status == http.StatusTooManyRequests {
			why = Result{Code: RateLimited, Detail: "Too many licensing requests", RetryAfter: raw.retryAfter}
		} else if raw != nil {
			why.Detail = fmt.Sprintf("The licensing server answered %d", raw.status)
		}
		if fallbackActions[action] {
			return c.offline(req.Key, req.Fingerprint, why)
		}
		why.Source = None
		why.OfflineToken, err = c.keptToken(req.Key, req.Fingerprint)
		return &why, err
	}
	// Anything acted upon must carry the server's signature over its exact bytes.
	if !VerifySignature(c.key, raw.body, raw.signature) {
		return forged("The answer is not signed by the pinned public key"), nil
	}
	if raw.status != http.StatusOK {
		var envelope struct {
			Message *string `json:"message"`
		}
		detail := fmt.Sprintf("HTTP %d", raw.status)
		if json.Unmarshal(raw.body, &envelope) == nil && envelope.Message != nil {
			detail = *envelope.Message
		}
		return &Result{Code: Rejected, Detail: detail, Source: None}, nil
	}
	var answer wireAnswer
	if json.Unmarshal(raw.body, &answer) != nil || answer.Code == nil || !Code(*answer.Code).IsServerCode() || answer.Detail == nil {
		return forged("The signed answer is not a licensing answer"), nil
	}
	if answer.Nonce == nil || *answer.Nonce != nonce {
		return forged("The signed answer is not the answer to this request (nonce)"), nil
	}
	if answer.License != nil && !trial && answer.License.Key != NormalizeKey(req.Key) {
		return forged("The signed answer is about another license key"), nil
	}
	code := Code(*answer.Code)
	if answer.Valid == nil || *answer.Valid != code.IsValid() {
		return forged("The signed answer is not a licensing answer"), nil
	}
	key := req.Key
	// A trial's answer is about the key it made: from here on, that key is the request's.
	if trial && answer.License != nil {
		key = answer.License.Key
	}
	// The answer's signed time is trusted from now on: a clock wound back behind it is seen offline.
	if ts := momentOf(answer.Ts); ts != nil {
		if err := c.clock.see(ts.UnixMilli()); err != nil {
			return nil, err
		}
	}
	var token *OfflineToken
	switch {
	case action == "consume":
		// A debit says nothing about the device's standing: the kept token stays as it is.
		if token, err = c.keptToken(key, req.Fingerprint); err != nil {
			return nil, err
		}
	case code.IsValid() && answer.License != nil && answer.License.Token != nil && *answer.License.Token != "":
		latest, err := c.clock.latest()
		if err != nil {
			return nil, err
		}
		at := c.now().UnixMilli()
		if latest > at {
			at = latest
		}
		verified, verr := VerifyOfflineToken(c.key, *answer.License.Token, time.UnixMilli(at), TokenExpectation{Key: key, Fingerprint: req.Fingerprint})
		var tokenErr *TokenError
		if verr != nil && !(errors.As(verr, &tokenErr) && tokenErr.Problem == ProblemExpired) {
			// Signed, but not a token for this device: refused (an expired one, from a clock ahead, is just not kept).
			return forged("The offline token in the answer is not valid: " + tokenErr.Message), nil
		}
		token = verified
		if token != nil {
			err = c.store.Set(slot(key, req.Fingerprint), token.Token)
		} else {
			err = c.store.Delete(slot(key, req.Fingerprint))
		}
		if err != nil {
			return nil, err
		}
	case !trial || answer.License != nil:
		// The server said no (or gave no token): nothing kept may answer for this device any more.
		if err := c.store.Delete(slot(key, req.Fingerprint)); err != nil {
			return nil, err
		}
	}
	result := &Result{Valid: code.IsValid(), Code: code, Detail: *answer.Detail, Source: Online, Nonce: nonce, OfflineToken: token}
	if answer.License != nil {
		result.License = answer.License.license()
	}
	answer.fill(result)
	return result, nil
}

// Activate takes a device slot (activating the same device again takes none).
func (c *Client) Activate(ctx context.Context, req Request) (*Result, error) {
	return c.call(ctx, "activate", req, nil, nil)
}

// Validate asks the server; when it cannot answer, the last good offline token does until it
// expires. It sends req.ReleaseDate when set.
func (c *Client) Validate(ctx context.Context, req Request) (*Result, error) {
	req.DeviceInfo = nil
	var extra map[string]interface{}
	if req.ReleaseDate != "" {
		extra = map[string]interface{}{"releaseDate": req.ReleaseDate}
	}
	return c.call(ctx, "validate", req, extra, nil)
}

// Deactivate releases the device (a floating one checks its seat in); its kept token goes once the server confirms.
func (c *Client) Deactivate(ctx context.Context, req Request) (*Result, error) {
	req.DeviceInfo = nil
	return c.call(ctx, "deactivate", req, nil, nil)
}

// Heartbeat renews a floating seat's lease once (StartHeartbeat keeps it renewed).
func (c *Client) Heartbeat(ctx context.Context, req Request) (*Result, error) {
	req.DeviceInfo = nil
	return c.call(ctx, "heartbeat", req, nil, nil)
}

// Borrow takes a floating seat for offline use for hours: the kept token lives until the borrow ends.
func (c *Client) Borrow(ctx context.Context, req Request, hours int) (*Result, error) {
	req.DeviceInfo = nil
	return c.call(ctx, "borrow", req, map[string]interface{}{"hours": hours}, nil)
}

// ReplaceDevice gives this device the slot of the key's device replaceDeviceID (from a refusal's
// Devices), within the swap budget.
func (c *Client) ReplaceDevice(ctx context.Context, req Request, replaceDeviceID string) (*Result, error) {
	return c.call(ctx, "replace-device", req, map[string]interface{}{"replaceDeviceId": replaceDeviceID}, nil)
}

// StartTrial starts this device's trial of the product keyTag: the answer's License.Key is the trial key from then on.
func (c *Client) StartTrial(ctx context.Context, keyTag string, req Request) (*Result, error) {
	req.Key = ""
	return c.call(ctx, "trial", req, map[string]interface{}{"keyTag": keyTag}, nil)
}

// Consume debits amount uses from a metered key. idempotencyKey (a fresh one when empty; pass one
// you keep to retry across restarts) goes with every retry, so the debit happens once.
func (c *Client) Consume(ctx context.Context, req Request, amount int, idempotencyKey string) (*Result, error) {
	if idempotencyKey == "" {
		idempotencyKey = randomNonce()
	}
	req.DeviceInfo = nil
	return c.call(ctx, "consume", req, map[string]interface{}{"amount": amount}, map[string]string{"Idempotency-Key": idempotencyKey})
}

// CheckOffline answers from the kept offline token alone, without the network.
func (c *Client) CheckOffline(key, fingerprint string) (*Result, error) {
	return c.offline(key, fingerprint, Result{Code: Unreachable, Detail: "No offline token is kept for this key and device"})
}

// HasEntitlement reports whether the key has entitlement name, from the kept token (so it holds offline).
func (c *Client) HasEntitlement(key, fingerprint, name string) (bool, error) {
	token, err := c.keptToken(key, fingerprint)
	if err != nil || token == nil {
		return false, err
	}
	for _, e := range token.Entitlements {
		if e == name {
			return true, nil
		}
	}
	return false, nil
}

// VerifyToken checks any offline token against the pinned key and the trusted time; the error is a *TokenError.
func (c *Client) VerifyToken(token string, expect TokenExpectation) (*OfflineToken, error) {
	reading, err := c.clock.read()
	if err != nil {
		return nil, err
	}
	if reading.behind {
		return nil, &TokenError{Problem: ProblemClock, Message: clockBehindDetail(reading)}
	}
	return VerifyOfflineToken(c.key, token, time.UnixMilli(reading.now), expect)
}

// TrustedTime is the latest time the server signed that this device has seen (zero when none yet).
func (c *Client) TrustedTime() (time.Time, error) {
	ms, err := c.clock.latest()
	if err != nil || ms == 0 {
		return time.Time{}, err
	}
	return time.UnixMilli(ms).UTC(), nil
}
