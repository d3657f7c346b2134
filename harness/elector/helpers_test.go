package elector_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// misreadingStore hands the elector every body it reads as a reader with
// the wrong rules would see it: misread rewrites it between S3 and the
// elector. What the elector then writes shows what it read.
type misreadingStore struct {
	sim.S3Client
	misread func([]byte) []byte
}

func (s misreadingStore) GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	out, err := s.S3Client.GetObject(ctx, in, opts...)
	if err != nil || out.Body == nil {
		return out, err
	}
	body, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, err
	}
	body = s.misread(body)
	cp := *out
	cp.Body = io.NopCloser(bytes.NewReader(body))
	n := int64(len(body))
	cp.ContentLength = &n
	return &cp, nil
}

// wrappedSwarm is the elector's swarm with every node's store wrapped.
func wrappedSwarm(name string, wrap func(sim.S3Client) sim.S3Client) harness.Scenario {
	sc := harness.Swarm(name, elector.Protocol(elector.DefaultSettings))
	build := sc.Build
	sc.Build = func(seed uint64) harness.Setup {
		s := build(seed)
		s.Config.WrapStore = wrap
		return s
	}
	return sc
}

// misreadingSwarm is the elector's swarm with every body it reads
// misread.
func misreadingSwarm(name string, misread func([]byte) []byte) harness.Scenario {
	return wrappedSwarm(name, func(st sim.S3Client) sim.S3Client { return misreadingStore{st, misread} })
}

// unsafeLink is the first violation of RuleRecordLink of a run judged
// Unsafe.
func unsafeLink(o *harness.Outcome) (linearizability.Violation, bool) {
	for _, v := range o.Violations {
		if v.Checker == elector.RecordAuditCheck && v.Rule == elector.RuleRecordLink && o.Verdict == harness.Unsafe {
			return v, true
		}
	}
	return linearizability.Violation{}, false
}

// linkCaught reports whether sc breaks RuleRecordLink, judged Unsafe, on
// one of seeds 1..seeds.
func linkCaught(t *testing.T, sc harness.Scenario, seeds uint64) bool {
	t.Helper()
	for seed := uint64(1); seed <= seeds; seed++ {
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := unsafeLink(o); ok {
			t.Logf("seed %d: %v", seed, v)
			return true
		}
	}
	return false
}
