package keypanel

// The Go SDK against the conformance vectors (sdk/conformance/), as the TypeScript and Python SDKs
// run them: each case on a fresh device (its own store), the HTTP client answering with the
// vector's answer, the clock the step's now. And a verifier that skips the signature, which must fail them.

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"testing"
	"time"
)

var vectorFiles = []string{"answers.json", "tokens.json", "scenarios.json", "air-gapped.json"}

type vectorFile struct {
	PublicKey struct {
		Pem string `json:"pem"`
	} `json:"publicKey"`
	Cases []vectorCase `json:"cases"`
}

type vectorCase struct {
	Name   string       `json:"name"`
	Code   *string      `json:"code"`
	Tamper *string      `json:"tamper"`
	Steps  []vectorStep `json:"steps"`
}

type vectorStep struct {
	Do      string `json:"do"`
	Action  string `json:"action"`
	Request struct {
		Key             string `json:"key"`
		Fingerprint     string `json:"fingerprint"`
		Nonce           string `json:"nonce"`
		KeyTag          string `json:"keyTag"`
		Hours           int    `json:"hours"`
		Amount          *int   `json:"amount"`
		IdempotencyKey  string `json:"idempotencyKey"`
		ReplaceDeviceID string `json:"replaceDeviceId"`
		ReleaseDate     string `json:"releaseDate"`
	} `json:"request"`
	Now  int64 `json:"now"`
	Sent struct {
		Path           string                 `json:"path"`
		Body           map[string]interface{} `json:"body"`
		IdempotencyKey *string                `json:"idempotencyKey"`
	} `json:"sent"`
	Answer *struct {
		Status    int     `json:"status"`
		Body      string  `json:"body"`
		Signature *string `json:"signature"`
	} `json:"answer"`
	Key         string          `json:"key"`
	Fingerprint string          `json:"fingerprint"`
	Token       string          `json:"token"`
	Nonce       string          `json:"nonce"`
	DeviceKey   string          `json:"deviceKey"`
	PrivateKey  string          `json:"privateKey"`
	Response    string          `json:"response"`
	Expect      json.RawMessage `json:"expect"`
}

func loadVectors(t testing.TB) map[string]vectorFile {
	out := map[string]vectorFile{}
	for _, name := range vectorFiles {
		raw, err := os.ReadFile(filepath.Join("..", "conformance", name))
		if err != nil {
			t.Fatal(err)
		}
		var f vectorFile
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		out[name] = f
	}
	return out
}

func ms(t *time.Time) interface{} {
	if t == nil {
		return nil
	}
	return float64(t.UnixMilli())
}

func claims(t *OfflineToken) map[string]interface{} {
	ent := make([]interface{}, 0, len(t.Entitlements))
	for _, e := range t.Entitlements {
		ent = append(ent, e)
	}
	return map[string]interface{}{
		"key": t.Key, "fingerprint": t.Fingerprint, "keyTag": t.KeyTag,
		"issuedAt": float64(t.IssuedAt.UnixMilli()), "expiresAt": float64(t.ExpiresAt.UnixMilli()), "entitlements": ent,
	}
}

func outcome(r *Result) map[string]interface{} {
	o := map[string]interface{}{
		"valid": r.Valid, "code": string(r.Code), "source": string(r.Source), "licenseKey": nil, "usageRemaining": nil,
		"leaseExpiresAt": ms(r.LeaseExpiresAt), "slotFreesAt": ms(r.SlotFreesAt), "borrowedUntil": ms(r.BorrowedUntil),
		"nextSwapAt": ms(r.NextSwapAt), "deviceIds": []interface{}{}, "offlineToken": nil,
	}
	if r.License != nil {
		o["licenseKey"] = r.License.Key
		if r.License.Usage != nil {
			o["usageRemaining"] = float64(r.License.Usage.Remaining)
		}
	}
	ids := []interface{}{}
	for _, d := range r.Devices {
		ids = append(ids, d.ID)
	}
	o["deviceIds"] = ids
	if r.OfflineToken != nil {
		o["offlineToken"] = claims(r.OfflineToken)
	}
	return o
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// runCase runs one vector: the first mismatch, or "" when every step gave what it expects.
func runCase(c vectorCase, pem string) string {
	var step *vectorStep
	var now int64
	var problem string
	store := NewMemoryStore()
	transport := roundTrip(func(r *http.Request) (*http.Response, error) {
		body, _ := io.ReadAll(r.Body)
		var sent map[string]interface{}
		_ = json.Unmarshal(body, &sent)
		switch {
		case r.URL.Path != step.Sent.Path:
			problem = fmt.Sprintf("sent to %s, not %s", r.URL.Path, step.Sent.Path)
		case !reflect.DeepEqual(sent, step.Sent.Body):
			problem = fmt.Sprintf("sent %v, not %v", sent, step.Sent.Body)
		case step.Sent.IdempotencyKey != nil && r.Header.Get("Idempotency-Key") != *step.Sent.IdempotencyKey:
			problem = fmt.Sprintf("sent Idempotency-Key %q, not %q", r.Header.Get("Idempotency-Key"), *step.Sent.IdempotencyKey)
		}
		if step.Answer == nil {
			return nil, errors.New("the vector has no answer: the network is down")
		}
		data, _ := base64.StdEncoding.DecodeString(step.Answer.Body)
		header := http.Header{}
		if step.Answer.Signature != nil {
			header.Set("X-Signature", *step.Answer.Signature)
		}
		return &http.Response{StatusCode: step.Answer.Status, Header: header, Body: io.NopCloser(bytes.NewReader(data)), Request: r}, nil
	})
	client, err := New(Options{
		URL: "https://keypanel.invalid", PublicKey: pem, Store: store, HTTPClient: &http.Client{Transport: transport},
		Retry: &Retry{Retries: -1}, Now: func() time.Time { return time.UnixMilli(now) },
	})
	if err != nil {
		return err.Error()
	}
	ctx := context.Background()
	for i := range c.Steps {
		s := &c.Steps[i]
		where := fmt.Sprintf("step %d (%s)", i+1, s.Do)
		var got interface{}
		now = s.Now
		switch s.Do {
		case "plantOfflineRequest":
			keys, _ := json.Marshal(deviceKeys{Nonce: s.Nonce, DeviceKey: s.DeviceKey, PrivateKey: s.PrivateKey})
			_ = store.Set(pendingID(s.Key, s.Fingerprint), string(keys))
			continue
		case "call":
			step, problem = s, ""
			q := s.Request
			req := Request{Key: q.Key, Fingerprint: q.Fingerprint, Nonce: q.Nonce, ReleaseDate: q.ReleaseDate}
			var r *Result
			switch s.Action {
			case "activate":
				r, err = client.Activate(ctx, req)
			case "validate":
				r, err = client.Validate(ctx, req)
			case "deactivate":
				r, err = client.Deactivate(ctx, req)
			case "heartbeat":
				r, err = client.Heartbeat(ctx, req)
			case "borrow":
				r, err = client.Borrow(ctx, req, q.Hours)
			case "replace-device":
				r, err = client.ReplaceDevice(ctx, req, q.ReplaceDeviceID)
			case "trial":
				r, err = client.StartTrial(ctx, q.KeyTag, req)
			case "consume":
				amount := 1
				if q.Amount != nil {
					amount = *q.Amount
				}
				r, err = client.Consume(ctx, req, amount, q.IdempotencyKey)
			default:
				return where + ": unknown action " + s.Action
			}
			if err != nil {
				return where + ": " + err.Error()
			}
			if problem != "" {
				return where + ": " + problem
			}
			got = outcome(r)
		case "checkOffline":
			r, err := client.CheckOffline(s.Key, s.Fingerprint)
			if err != nil {
				return where + ": " + err.Error()
			}
			got = outcome(r)
		case "verifyToken":
			token, err := client.VerifyToken(s.Token, TokenExpectation{Key: s.Key, Fingerprint: s.Fingerprint})
			var tokenErr *TokenError
			switch {
			case err == nil:
				got = map[string]interface{}{"ok": true, "token": claims(token)}
			case errors.As(err, &tokenErr):
				got = map[string]interface{}{"ok": false, "problem": string(tokenErr.Problem)}
			default:
				return where + ": " + err.Error()
			}
		case "applyOfflineResponse":
			r, err := client.ApplyOfflineResponse([]byte(s.Response), s.Fingerprint)
			if err != nil {
				return where + ": " + err.Error()
			}
			got = outcome(r)
		default:
			return where + ": unknown step"
		}
		var expect interface{}
		_ = json.Unmarshal(s.Expect, &expect)
		// Through JSON, as the vector was read: numbers as float64, lists as []interface{}.
		gotJSON, _ := json.Marshal(got)
		var gotBack interface{}
		_ = json.Unmarshal(gotJSON, &gotBack)
		if !reflect.DeepEqual(gotBack, expect) {
			return fmt.Sprintf("%s: expected %s, got %s", where, s.Expect, gotJSON)
		}
	}
	return ""
}

func TestConformanceVectors(t *testing.T) {
	for name, file := range loadVectors(t) {
		for _, c := range file.Cases {
			c, pem := c, file.PublicKey.Pem
			t.Run(name+": "+c.Name, func(t *testing.T) {
				if problem := runCase(c, pem); problem != "" {
					t.Fatal(problem)
				}
			})
		}
	}
}

func TestCodesAreTheAPIsAndTheVectorsCoverThem(t *testing.T) {
	source, err := os.ReadFile(filepath.Join("..", "..", "worker", "platform", "vocabulary.ts"))
	if err != nil {
		t.Fatal(err)
	}
	listed := regexp.MustCompile(`(?s)export const LICENSE_CODES = \[(.*?)\] as const`).FindSubmatch(source)
	var api []string
	for _, m := range regexp.MustCompile(`'([A-Z_]+)'`).FindAllSubmatch(listed[1], -1) {
		api = append(api, string(m[1]))
	}
	var ours []string
	for _, c := range ServerCodes {
		ours = append(ours, string(c))
	}
	sort.Strings(api)
	sort.Strings(ours)
	if !reflect.DeepEqual(api, ours) {
		t.Fatalf("ServerCodes %v differ from the API's %v", ours, api)
	}
	covered := map[string]bool{}
	for _, file := range loadVectors(t) {
		for _, c := range file.Cases {
			if c.Tamper == nil && c.Code != nil {
				covered[*c.Code] = true
			}
		}
	}
	for _, code := range api {
		if !covered[code] {
			t.Errorf("no vector for %s", code)
		}
	}
}

func TestAVerifierThatSkipsTheSignatureFailsTheSuite(t *testing.T) {
	// Every Ed25519 check says yes: what a hand-rolled offline check that forgets the signature does.
	ed25519Verify = func(ed25519.PublicKey, []byte, []byte) bool { return true }
	defer func() { ed25519Verify = ed25519.Verify }()
	signed := map[string]bool{"changed-byte": true, "changed-signature": true, "wrong-key": true, "forged-valid": true}
	tampered, passedAnyway := 0, []string{}
	for name, file := range loadVectors(t) {
		for _, c := range file.Cases {
			if c.Tamper == nil || !signed[*c.Tamper] {
				continue
			}
			tampered++
			if runCase(c, file.PublicKey.Pem) == "" {
				passedAnyway = append(passedAnyway, name+": "+c.Name)
			}
		}
	}
	if tampered < 100 || len(passedAnyway) > 0 {
		t.Fatalf("%d tampered vectors; passed with the signature skipped: %v", tampered, passedAnyway)
	}
}
