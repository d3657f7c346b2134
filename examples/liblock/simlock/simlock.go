// Package simlock puts liblock under the s3lease harness: the library's
// description (Protocol) and what each simulated node runs (Candidate).
package simlock

import (
	"context"
	"time"

	"example.com/liblock"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// Protocol is liblock with its defaults, its S3 client timing out each attempt
// after a second (three attempts with backoff: 9s at most). A term ends
// by Term + Interval + 9s after its last successful write was sent; the
// rest of the TTL, less two wall-clock steps of 100ms, is for pauses. The
// lock knows a missing object by S3's own NoSuchKey: no proxy pages.
func Protocol() harness.Protocol {
	const ttl, step, ppm = 20 * time.Second, 100 * time.Millisecond, 1000
	reach := 3*time.Second + time.Second + 9*time.Second + 2*step
	return harness.Protocol{Name: "liblock", Candidate: Candidate, Key: liblock.Key("orders"),
		S3ClientTimeout: time.Second, Without: []string{"pages"}, LivenessBound: 2 * ttl,
		Assumptions: protocol.Assumptions{Lease: ttl, Term: reach, MaxDriftPPM: ppm, MaxWallStep: step,
			MaxPause: protocol.PauseBound(ttl, reach, ppm)}}
}

// Candidate runs liblock on a node, with the node's clock and S3 client;
// each term it leads is the node's application's.
func Candidate(ctx context.Context, env sim.Env) error {
	stop := func() {}
	return liblock.New(liblock.Options{Client: env.Store, Bucket: env.Bucket, Name: "orders", Owner: env.Identity, Clock: env.Clock,
		OnElected: func(token uint64) {
			var lead context.Context
			lead, stop = context.WithCancel(ctx)
			env.Clock.Go(func() { env.Lead(lead, token) })
		},
		OnOusted: func() { stop() },
	}).Run(ctx)
}
