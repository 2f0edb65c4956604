package keypanel

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math"
	"regexp"
	"strings"
	"time"
)

// TokenIssuer is the issuer the server signs offline tokens with.
const TokenIssuer = "keypanel"

// ed25519Verify is the one signature check (a test swaps it for one that skips the signature, to
// prove the conformance vectors catch it).
var ed25519Verify = ed25519.Verify

var (
	base64Pattern    = regexp.MustCompile(`^[A-Za-z0-9+/]+={0,2}$`)
	base64URLPattern = regexp.MustCompile(`^[A-Za-z0-9_-]*$`)
)

// NormalizeKey: license keys are compared as the server stores them, trimmed and upper case.
func NormalizeKey(key string) string { return strings.ToUpper(strings.TrimSpace(key)) }

// ParsePublicKey reads the pinned key: the PEM (SPKI) or the JWK that GET /api/v1/licenses/public-key gives.
func ParsePublicKey(text string) (ed25519.PublicKey, error) {
	bad := errors.New("keypanel: the public key must be the Ed25519 public key of the KeyPanel server, as PEM (SPKI) or JWK")
	trimmed := strings.TrimSpace(text)
	if strings.HasPrefix(trimmed, "-----BEGIN PUBLIC KEY-----") {
		block, _ := pem.Decode([]byte(trimmed))
		if block == nil {
			return nil, bad
		}
		parsed, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, bad
		}
		key, ok := parsed.(ed25519.PublicKey)
		if !ok {
			return nil, bad
		}
		return key, nil
	}
	var jwk map[string]interface{}
	if err := json.Unmarshal([]byte(trimmed), &jwk); err != nil {
		return nil, bad
	}
	x, _ := jwk["x"].(string)
	if _, private := jwk["d"]; jwk["kty"] != "OKP" || jwk["crv"] != "Ed25519" || x == "" || private {
		return nil, bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(x)
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, bad
	}
	return ed25519.PublicKey(raw), nil
}

// VerifySignature reports whether signature (standard base64, as in X-Signature) signs exactly data.
func VerifySignature(key ed25519.PublicKey, data []byte, signature string) bool {
	if signature == "" || !base64Pattern.MatchString(signature) {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(signature)
	if err != nil {
		return false
	}
	return ed25519Verify(key, data, raw)
}

// OfflineToken is a verified offline token's claims.
type OfflineToken struct {
	Token        string
	Key          string
	Fingerprint  string
	KeyTag       string
	IssuedAt     time.Time
	ExpiresAt    time.Time
	Entitlements []string
}

// TokenExpectation names the key and device a token must be for (empty: not checked).
type TokenExpectation struct {
	Key         string
	Fingerprint string
}

func decodeSegment(text string, into interface{}) error {
	if !base64URLPattern.MatchString(text) {
		return errors.New("not base64url")
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(text, "="))
	if err != nil {
		return err
	}
	if into == nil {
		return nil
	}
	return json.Unmarshal(raw, into)
}

func number(v interface{}) (float64, bool) {
	f, ok := v.(float64)
	return f, ok && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// VerifyOfflineToken checks a token: signature (EdDSA only, whatever the header claims), issuer,
// expiry against now, and the key and device it must be for. The error is a *TokenError.
func VerifyOfflineToken(key ed25519.PublicKey, token string, now time.Time, expect TokenExpectation) (*OfflineToken, error) {
	parts := strings.Split(strings.TrimSpace(token), ".")
	if len(parts) != 3 {
		return nil, tokenError(ProblemMalformed)
	}
	var header map[string]interface{}
	var claims map[string]interface{}
	if decodeSegment(parts[0], &header) != nil || decodeSegment(parts[1], &claims) != nil || !base64URLPattern.MatchString(parts[2]) {
		return nil, tokenError(ProblemMalformed)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, tokenError(ProblemMalformed)
	}
	// The algorithm is pinned: a token naming another (or "none") is refused before any check.
	if header == nil || header["alg"] != "EdDSA" || claims == nil {
		return nil, tokenError(ProblemMalformed)
	}
	if !ed25519Verify(key, []byte(parts[0]+"."+parts[1]), sig) {
		return nil, tokenError(ProblemSignature)
	}
	sub, okSub := claims["sub"].(string)
	fp, okFp := claims["fp"].(string)
	exp, okExp := number(claims["exp"])
	iat, okIat := number(claims["iat"])
	if !okSub || !okFp || !okExp || !okIat {
		return nil, tokenError(ProblemMalformed)
	}
	if claims["iss"] != TokenIssuer {
		return nil, tokenError(ProblemIssuer)
	}
	if exp*1000 <= float64(now.UnixMilli()) {
		return nil, tokenError(ProblemExpired)
	}
	if expect.Key != "" && sub != NormalizeKey(expect.Key) {
		return nil, tokenError(ProblemKey)
	}
	if expect.Fingerprint != "" && fp != expect.Fingerprint {
		return nil, tokenError(ProblemFingerprint)
	}
	out := &OfflineToken{
		Token:        strings.TrimSpace(token),
		Key:          sub,
		Fingerprint:  fp,
		IssuedAt:     time.UnixMilli(int64(iat * 1000)).UTC(),
		ExpiresAt:    time.UnixMilli(int64(exp * 1000)).UTC(),
		Entitlements: []string{},
	}
	if tag, ok := claims["product"].(string); ok {
		out.KeyTag = tag
	}
	if ent, ok := claims["ent"].([]interface{}); ok {
		for _, e := range ent {
			if s, ok := e.(string); ok {
				out.Entitlements = append(out.Entitlements, s)
			}
		}
	}
	return out, nil
}
