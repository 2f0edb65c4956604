package keypanel

import (
	"context"
	"sync"
	"time"
)

// HeartbeatOptions tune StartHeartbeat.
type HeartbeatOptions struct {
	// OnResult gets every heartbeat's result as it comes (valid or not).
	OnResult func(*Result, error)
	// MinInterval is the shortest wait between heartbeats (default 5 s).
	MinInterval time.Duration
	// RetryInterval is the wait after an unreachable server or no lease in the answer (default 60 s;
	// sooner while the last lease runs out).
	RetryInterval time.Duration
}

// HeartbeatLoop is a running heartbeat; Stop ends it.
type HeartbeatLoop struct {
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// Stop ends the heartbeats and waits for the loop to return (the seat is kept until its lease runs out).
func (h *HeartbeatLoop) Stop() {
	h.once.Do(h.cancel)
	<-h.done
}

// Done is closed when the loop has returned: stopped, its context ended, or the server said no.
func (h *HeartbeatLoop) Done() <-chan struct{} { return h.done }

// StartHeartbeat renews a floating seat on a goroutine: each heartbeat at half of what is left of
// the lease (at least MinInterval), sooner after an unreachable server. It stops by itself when the
// server says no (the seat is gone: LEASE_EXPIRED, REVOKED...), when ctx ends, and with Stop.
func (c *Client) StartHeartbeat(ctx context.Context, req Request, o HeartbeatOptions) *HeartbeatLoop {
	if o.MinInterval == 0 {
		o.MinInterval = 5 * time.Second
	}
	if o.RetryInterval == 0 {
		o.RetryInterval = 60 * time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &HeartbeatLoop{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		var lease *time.Time
		for {
			result, err := c.Heartbeat(ctx, Request{Key: req.Key, Fingerprint: req.Fingerprint})
			if ctx.Err() != nil {
				return
			}
			if o.OnResult != nil {
				o.OnResult(result, err)
			}
			if err == nil && result.Source == Online && !result.Valid {
				return
			}
			wait := o.RetryInterval
			if err == nil && result.Source == Online && result.LeaseExpiresAt != nil {
				lease = result.LeaseExpiresAt
				wait = lease.Sub(c.now()) / 2
			} else if lease != nil {
				if left := lease.Sub(c.now()) / 4; left < wait {
					wait = left
				}
			}
			if wait < o.MinInterval {
				wait = o.MinInterval
			}
			if sleepContext(ctx, wait) != nil {
				return
			}
		}
	}()
	return h
}
