//go:build broken

package mylock

import "time"

// expired, broken: it judges expiry by the writer's wall clock, stored in
// the record, plus the lease, against the reader's own wall clock, as many
// published S3 locks do. Two machines' wall clocks differ by any amount, so
// a follower whose clock runs ahead takes over a live lease.
func (n *node) expired(rec record, _ time.Duration) bool {
	return n.clk.Now().After(rec.WrittenAt.Add(time.Duration(rec.LeaseMS) * time.Millisecond))
}
