package keypanel

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"
)

// Air-gapped activation. The device writes a request (its key, fingerprint, a one-time nonce and
// the public half of an Ed25519 key pair of its own); the key's holder turns it into a signed
// response on a connected machine (My Keys, or `keypanel license offline-activate`) and carries it
// back; the device believes it only when the pinned key signed it and it answers the request this
// device wrote last, once. Later the device writes a deactivation proof signed with its private
// key, erasing its offline token as it does; the proof brought back frees the slot.
const (
	OfflineRequestType  = "keypanel.offline-activation-request"
	OfflineResponseType = "keypanel.offline-activation-response"
	OfflineProofType    = "keypanel.offline-deactivation-proof"
)

const (
	usedNoncesID   = "keypanel:offline-nonces"
	usedNoncesKept = 50
)

// OfflineRequest is what the device writes for its holder to carry (JSON).
type OfflineRequest struct {
	Type              string      `json:"type"`
	Key               string      `json:"key"`
	DeviceFingerprint string      `json:"deviceFingerprint"`
	Nonce             string      `json:"nonce"`
	DeviceKey         string      `json:"deviceKey"`
	DeviceInfo        *DeviceInfo `json:"deviceInfo,omitempty"`
	CreatedAt         string      `json:"createdAt"`
}

// OfflineResponse is what the holder brings back: the signed answer's JSON text and its signature.
type OfflineResponse struct {
	Type      string `json:"type"`
	Answer    string `json:"answer"`
	Signature string `json:"signature"`
}

// DeactivationProof is what the device writes to free its slot, signed with its device key.
type DeactivationProof struct {
	Type      string `json:"type"`
	Proof     string `json:"proof"`
	Signature string `json:"signature"`
}

type deviceKeys struct {
	Nonce      string `json:"nonce"`
	DeviceKey  string `json:"deviceKey"`
	PrivateKey string `json:"privateKey"`
}

func pendingID(key, fingerprint string) string {
	return "keypanel:offline-request:" + slot(key, fingerprint)
}
func deviceID(key, fingerprint string) string {
	return "keypanel:offline-device:" + slot(key, fingerprint)
}

func (c *Client) readKeys(id string) (*deviceKeys, error) {
	text, ok, err := c.store.Get(id)
	if err != nil || !ok || text == "" {
		return nil, err
	}
	var keys deviceKeys
	if json.Unmarshal([]byte(text), &keys) != nil || keys.Nonce == "" || keys.DeviceKey == "" || keys.PrivateKey == "" {
		return nil, nil
	}
	return &keys, nil
}

func (c *Client) usedNonces() ([]string, error) {
	text, ok, err := c.store.Get(usedNoncesID)
	if err != nil || !ok {
		return nil, err
	}
	var list []interface{}
	var out []string
	if json.Unmarshal([]byte(text), &list) == nil {
		for _, n := range list {
			if s, ok := n.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// CreateOfflineRequest writes an activation request for this device (no network needed). Writing
// another replaces the one before (its response is then refused).
func (c *Client) CreateOfflineRequest(req Request) (*OfflineRequest, error) {
	public, private, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	keys := deviceKeys{Nonce: hex.EncodeToString(nonce), DeviceKey: base64.RawURLEncoding.EncodeToString(public), PrivateKey: base64.RawURLEncoding.EncodeToString(private.Seed())}
	text, _ := json.Marshal(keys)
	if err := c.store.Set(pendingID(req.Key, req.Fingerprint), string(text)); err != nil {
		return nil, err
	}
	return &OfflineRequest{
		Type: OfflineRequestType, Key: NormalizeKey(req.Key), DeviceFingerprint: req.Fingerprint, Nonce: keys.Nonce,
		DeviceKey: keys.DeviceKey, DeviceInfo: req.DeviceInfo, CreatedAt: isoMillis(c.now().UnixMilli()),
	}, nil
}

func refusal(code Code, detail string) *Result {
	return &Result{Code: code, Detail: detail, Source: None}
}

// ApplyOfflineResponse verifies the response (its JSON text) to this device's last request,
// offline: signed by the pinned key, for this fingerprint, this request's nonce and device key, never
// applied before, and not from a time this device's clock is behind. Valid: its token is kept.
func (c *Client) ApplyOfflineResponse(response []byte, fingerprint string) (*Result, error) {
	var file struct {
		Type      string  `json:"type"`
		Answer    *string `json:"answer"`
		Signature *string `json:"signature"`
	}
	if json.Unmarshal(response, &file) != nil {
		return refusal(InvalidSignature, "This is not an offline activation response (not JSON)"), nil
	}
	if file.Type != OfflineResponseType || file.Answer == nil || file.Signature == nil {
		return refusal(InvalidSignature, "This is not an offline activation response"), nil
	}
	if !VerifySignature(c.key, []byte(*file.Answer), *file.Signature) {
		return refusal(InvalidSignature, "The response is not signed by the pinned public key"), nil
	}
	var answer wireAnswer
	if json.Unmarshal([]byte(*file.Answer), &answer) != nil || answer.Code == nil || !Code(*answer.Code).IsServerCode() ||
		answer.Detail == nil || answer.License == nil || answer.Nonce == nil || *answer.Nonce == "" {
		return refusal(InvalidSignature, "The signed response is not a licensing answer"), nil
	}
	if answer.DeviceFingerprint == nil || *answer.DeviceFingerprint != fingerprint {
		return refusal(NotThisRequest, "This response was written for another device (its fingerprint differs)"), nil
	}
	key := answer.License.Key
	used, err := c.usedNonces()
	if err != nil {
		return nil, err
	}
	for _, n := range used {
		if n == *answer.Nonce {
			return refusal(NotThisRequest, "This response was applied on this device before (its nonce is accepted once)"), nil
		}
	}
	pending, err := c.readKeys(pendingID(key, fingerprint))
	if err != nil {
		return nil, err
	}
	if pending == nil || pending.Nonce != *answer.Nonce || answer.DeviceKey == nil || pending.DeviceKey != *answer.DeviceKey {
		return refusal(NotThisRequest, "This response does not answer the request this device wrote last (another nonce)"), nil
	}
	var ts int64
	if t := momentOf(answer.Ts); t != nil {
		ts = t.UnixMilli()
	}
	code := Code(*answer.Code)
	result := &Result{Code: code, Detail: *answer.Detail, Source: Online, Nonce: *answer.Nonce, License: answer.License.license()}
	answer.fill(result)
	if !code.IsValid() || answer.License.Token == nil || *answer.License.Token == "" {
		// Refused (the key is full, revoked...): the request may be brought again, unless its nonce is spent.
		if code == NonceAlreadyUsed {
			if err := c.store.Delete(pendingID(key, fingerprint)); err != nil {
				return nil, err
			}
		}
		return result, c.clock.see(ts)
	}
	at := c.now().UnixMilli()
	if ts > at {
		at = ts
	}
	token, verr := VerifyOfflineToken(c.key, *answer.License.Token, time.UnixMilli(at), TokenExpectation{Key: key, Fingerprint: fingerprint})
	if verr != nil {
		return refusal(InvalidSignature, "The offline token in the response is not valid: "+verr.(*TokenError).Message), nil
	}
	// The response's signed times are trusted from here on; a clock behind them is refused (the request stays).
	if err := c.clock.see(ts, token.IssuedAt.UnixMilli()); err != nil {
		return nil, err
	}
	reading, err := c.clock.read()
	if err != nil {
		return nil, err
	}
	if reading.behind {
		return refusal(ClockBehind, clockBehindDetail(reading)), nil
	}
	if token.ExpiresAt.UnixMilli() <= reading.now {
		return refusal(InvalidSignature, "The offline token in the response has expired"), nil
	}
	used = append(used, *answer.Nonce)
	if len(used) > usedNoncesKept {
		used = used[len(used)-usedNoncesKept:]
	}
	list, _ := json.Marshal(used)
	kept, _ := json.Marshal(pending)
	for _, write := range []func() error{
		func() error { return c.store.Set(usedNoncesID, string(list)) },
		func() error { return c.store.Set(slot(key, fingerprint), token.Token) },
		func() error { return c.store.Set(deviceID(key, fingerprint), string(kept)) },
		func() error { return c.store.Delete(pendingID(key, fingerprint)) },
	} {
		if err := write(); err != nil {
			return nil, err
		}
	}
	result.Valid = true
	result.OfflineToken = token
	return result, nil
}

// ErrNoOfflineActivation: no air-gapped activation of this key is kept on this device.
var ErrNoOfflineActivation = errors.New("keypanel: no offline activation of this key is kept on this device: nothing to deactivate")

// CreateDeactivationProof writes the proof that frees this device's slot, signed with the key of
// its offline activation, and erases the device's offline token and that key.
func (c *Client) CreateDeactivationProof(req Request) (*DeactivationProof, error) {
	keys, err := c.readKeys(deviceID(req.Key, req.Fingerprint))
	if err != nil {
		return nil, err
	}
	if keys == nil {
		return nil, ErrNoOfflineActivation
	}
	seed, err := base64.RawURLEncoding.DecodeString(keys.PrivateKey)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, ErrNoOfflineActivation
	}
	proof, _ := json.Marshal(struct {
		Type              string `json:"type"`
		Key               string `json:"key"`
		DeviceFingerprint string `json:"deviceFingerprint"`
		Nonce             string `json:"nonce"`
		DeactivatedAt     string `json:"deactivatedAt"`
	}{OfflineProofType, NormalizeKey(req.Key), req.Fingerprint, keys.Nonce, isoMillis(c.now().UnixMilli())})
	signature := base64.StdEncoding.EncodeToString(ed25519.Sign(ed25519.NewKeyFromSeed(seed), proof))
	if err := c.store.Delete(slot(req.Key, req.Fingerprint)); err != nil {
		return nil, err
	}
	if err := c.store.Delete(deviceID(req.Key, req.Fingerprint)); err != nil {
		return nil, err
	}
	return &DeactivationProof{Type: OfflineProofType, Proof: string(proof), Signature: signature}, nil
}
