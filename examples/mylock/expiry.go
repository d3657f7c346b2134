//go:build !broken

package mylock

import "time"

// expired reports whether a follower may take over a record that has kept
// its ETag for seenFor, measured on the follower's own monotonic clock from
// the first read that returned it: after a full lease.
func (n *node) expired(_ record, seenFor time.Duration) bool {
	return seenFor >= n.cfg.Lease
}
