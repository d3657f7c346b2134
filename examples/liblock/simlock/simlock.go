// Package simlock puts liblock under the s3lease harness.
package simlock

import (
	"context"
	"time"

	"example.com/liblock"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// Protocol is liblock with its defaults and an S3 client timeout of 1s (three attempts: 9s): a term
// ends by Term + Interval + 9s after its last write's send. It knows no missing object but NoSuchKey.
func Protocol() harness.Protocol {
	const ttl, step, ppm = 20 * time.Second, 100 * time.Millisecond, 1000
	reach := 3*time.Second + time.Second + 9*time.Second + 2*step // and two wall-clock steps
	return harness.Protocol{Name: "liblock", Candidate: Candidate, Key: liblock.Key("orders"),
		S3ClientTimeout: time.Second, Without: []string{"pages"}, LivenessBound: 2 * ttl, // no proxy pages
		Assumptions: protocol.Assumptions{Lease: ttl, Term: reach, MaxDriftPPM: ppm, MaxWallStep: step,
			MaxPause: protocol.PauseBound(ttl, reach, ppm)}}
}

// Candidate runs liblock on a node: each term it leads is the application's.
func Candidate(ctx context.Context, env sim.Env) error {
	var stop func() // liblock calls OnOusted only after OnElected
	return liblock.New(liblock.Options{Client: env.Store, Bucket: env.Bucket, Name: "orders", Owner: env.Identity,
		Clock: env.Clock, OnElected: func(token uint64) { stop = env.StartLead(ctx, token) }, OnOusted: func() { stop() }}).Run(ctx)
}
