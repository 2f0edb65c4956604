package keypanel

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// Retry says how a call is sent again after a 429, a 5xx or no answer at all: Retry-After when the
// server says it, else an exponential backoff with jitter. Every licensing call is safe to repeat,
// and a debit's Idempotency-Key goes with every attempt.
type Retry struct {
	// Retries after the first attempt (default 3; negative: none).
	Retries int
	// BaseDelay is the first backoff, doubled each time (default 500 ms).
	BaseDelay time.Duration
	// MaxDelay caps a single wait; a Retry-After beyond it ends the retries (default 30 s).
	MaxDelay time.Duration
}

type rawAnswer struct {
	status     int
	body       []byte
	signature  string
	retryAfter *int
}

var digits = regexp.MustCompile(`^\d+$`)

// ParseRetryAfter reads Retry-After in seconds, from either form HTTP allows.
func ParseRetryAfter(value string, now time.Time) (int, bool) {
	if value == "" {
		return 0, false
	}
	if digits.MatchString(value) {
		n, err := strconv.Atoi(value)
		return n, err == nil
	}
	at, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	seconds := int((at.Sub(now) + time.Second - 1) / time.Second)
	if seconds < 0 {
		seconds = 0
	}
	return seconds, true
}

func (c *Client) post(ctx context.Context, url string, payload interface{}, headers map[string]string) (*rawAnswer, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, err
	}
	var last *rawAnswer
	for attempt := 0; ; attempt++ {
		last = c.once(ctx, url, body, headers)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if last != nil && last.status != http.StatusTooManyRequests && last.status < 500 {
			return last, nil
		}
		if attempt >= c.retry.Retries {
			return last, nil
		}
		backoff := c.retry.BaseDelay << attempt
		if backoff > c.retry.MaxDelay || backoff <= 0 {
			backoff = c.retry.MaxDelay
		}
		wait := time.Duration(float64(backoff) * (0.5 + rand.Float64()/2))
		if last != nil && last.retryAfter != nil {
			wait = time.Duration(*last.retryAfter) * time.Second
		}
		if wait > c.retry.MaxDelay {
			return last, nil
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func (c *Client) once(ctx context.Context, url string, body []byte, headers map[string]string) *rawAnswer {
	attemptCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(attemptCtx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil
	}
	answer := &rawAnswer{status: res.StatusCode, body: data, signature: res.Header.Get("X-Signature")}
	if seconds, ok := ParseRetryAfter(res.Header.Get("Retry-After"), time.Now()); ok {
		answer.retryAfter = &seconds
	}
	return answer
}

func sleepContext(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
