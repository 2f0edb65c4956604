package keypanel

// Code is a result's code. The server's codes are what the licensing API answers in a signed body
// (KeyPanel's worker/platform/vocabulary.ts, which the OpenAPI document lists; a test fails when the
// two differ); the client codes are what the SDK decides itself.
type Code string

// The licensing API's codes.
const (
	Valid               Code = "VALID"
	NotFound            Code = "NOT_FOUND"
	Revoked             Code = "REVOKED"
	Expired             Code = "EXPIRED"
	NotActivated        Code = "NOT_ACTIVATED"
	DeviceLimitReached  Code = "DEVICE_LIMIT_REACHED"
	ProductInactive     Code = "PRODUCT_INACTIVE"
	Deactivated         Code = "DEACTIVATED"
	KeyRegenerated      Code = "KEY_REGENERATED"
	NoSeatAvailable     Code = "NO_SEAT_AVAILABLE"
	LeaseExpired        Code = "LEASE_EXPIRED"
	SeatReleased        Code = "SEAT_RELEASED"
	BorrowNotAllowed    Code = "BORROW_NOT_ALLOWED"
	DeviceReplaced      Code = "DEVICE_REPLACED"
	SwapBudgetExhausted Code = "SWAP_BUDGET_EXHAUSTED"
	TrialStarted        Code = "TRIAL_STARTED"
	TrialAlreadyUsed    Code = "TRIAL_ALREADY_USED"
	TrialNotOffered     Code = "TRIAL_NOT_OFFERED"
	Consumed            Code = "CONSUMED"
	UsageExhausted      Code = "USAGE_EXHAUSTED"
	UsageNotMetered     Code = "USAGE_NOT_METERED"
	OfflineActivated    Code = "OFFLINE_ACTIVATED"
	NonceAlreadyUsed    Code = "NONCE_ALREADY_USED"
	// UpdatesEnded: a perpetual-fallback key past its expiry, validated by a release dated before
	// it (Request.ReleaseDate): the release keeps working (valid), but updates have ended.
	UpdatesEnded Code = "UPDATES_ENDED"
)

// What the SDK decides itself.
const (
	// InvalidSignature: an answer (or the token in it) not signed by the pinned key, or not the
	// answer to this request (another nonce, key or device). Never trusted.
	InvalidSignature Code = "INVALID_SIGNATURE"
	// Unreachable: no answer (network, timeout, 5xx after every retry) and no good offline token.
	Unreachable Code = "UNREACHABLE"
	// RateLimited: the last answer was a 429; Result.RetryAfter says when to come back.
	RateLimited Code = "RATE_LIMITED"
	// Rejected: the API refused the request itself (a malformed key or fingerprint).
	Rejected Code = "REJECTED"
	// ClockBehind: the device's clock is behind a time a signed answer or token showed it.
	ClockBehind Code = "CLOCK_BEHIND"
	// NotThisRequest: an air-gapped response that does not answer this device's last request.
	NotThisRequest Code = "NOT_THIS_REQUEST"
)

// ServerCodes lists what the licensing API answers.
var ServerCodes = []Code{
	Valid, NotFound, Revoked, Expired, NotActivated, DeviceLimitReached, ProductInactive, Deactivated,
	KeyRegenerated, NoSeatAvailable, LeaseExpired, SeatReleased, BorrowNotAllowed, DeviceReplaced,
	SwapBudgetExhausted, TrialStarted, TrialAlreadyUsed, TrialNotOffered, Consumed, UsageExhausted,
	UsageNotMetered, OfflineActivated, NonceAlreadyUsed, UpdatesEnded,
}

// ClientCodes lists what the SDK decides itself.
var ClientCodes = []Code{InvalidSignature, Unreachable, RateLimited, Rejected, ClockBehind, NotThisRequest}

// ValidCodes are the codes of a valid answer: the device may use the software.
var ValidCodes = []Code{Valid, DeviceReplaced, TrialStarted, Consumed, OfflineActivated, UpdatesEnded}

// IsServerCode reports whether c is one of the licensing API's codes.
func (c Code) IsServerCode() bool { return contains(ServerCodes, c) }

// IsValid reports whether c grants use of the software.
func (c Code) IsValid() bool { return contains(ValidCodes, c) }

func contains(list []Code, c Code) bool {
	for _, x := range list {
		if x == c {
			return true
		}
	}
	return false
}
