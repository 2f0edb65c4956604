package keypanel

import (
	"errors"
	"fmt"
)

// The calls answer with a Result whatever happens (its Code says why it is not valid); Result.Err
// turns a refusal into one of these errors, which errors.Is and errors.As recognise.
var (
	// ErrNetwork: no trustworthy answer came (unreachable, 5xx, 429).
	ErrNetwork = errors.New("keypanel: the licensing server could not be reached")
	// ErrSignature: an answer, token or response not signed by the pinned key, or not for this request.
	ErrSignature = errors.New("keypanel: not signed by the pinned licensing key")
	// ErrClockBehind: the device's clock reads behind a time the server signed.
	ErrClockBehind = errors.New("keypanel: the device's clock is behind the trusted time")
	// ErrRefused: the server refused (revoked, expired, the key full...).
	ErrRefused = errors.New("keypanel: the license is not valid")
)

// ResultError is a refused Result as an error: Is matches one of the Err* values above.
type ResultError struct {
	Code   Code
	Detail string
	kind   error
}

func (e *ResultError) Error() string { return fmt.Sprintf("keypanel: %s: %s", e.Code, e.Detail) }
func (e *ResultError) Unwrap() error { return e.kind }

// TokenProblem says why an offline token does not hold.
type TokenProblem string

// The problems TokenError names.
const (
	ProblemMalformed   TokenProblem = "malformed"
	ProblemSignature   TokenProblem = "signature"
	ProblemExpired     TokenProblem = "expired"
	ProblemIssuer      TokenProblem = "issuer"
	ProblemKey         TokenProblem = "key"
	ProblemFingerprint TokenProblem = "fingerprint"
	ProblemClock       TokenProblem = "clock"
)

var tokenMessages = map[TokenProblem]string{
	ProblemMalformed:   "it is malformed",
	ProblemSignature:   "the signature does not match this public key",
	ProblemExpired:     "it has expired",
	ProblemIssuer:      "its iss claim is wrong",
	ProblemKey:         "it was issued for another license key",
	ProblemFingerprint: "it was issued for another device fingerprint",
	ProblemClock:       "this device's clock is behind a time the licensing server signed",
}

// TokenError is an offline token that does not hold; it unwraps to ErrSignature.
type TokenError struct {
	Problem TokenProblem
	Message string
}

func (e *TokenError) Error() string { return "keypanel: offline token: " + e.Message }
func (e *TokenError) Unwrap() error { return ErrSignature }

func tokenError(p TokenProblem) *TokenError {
	return &TokenError{Problem: p, Message: tokenMessages[p]}
}
