package elector_test

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// missingOnFailure answers every failed read as a missing object: an
// elector that takes a check read it could not make for a deletion, and
// steps down.
type missingOnFailure struct{ sim.S3Client }

func (s missingOnFailure) GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	out, err := s.S3Client.GetObject(ctx, in, opts...)
	if err != nil && protocol.ClassifyError(err) != protocol.ClassNotFound {
		return nil, &types.NoSuchKey{}
	}
	return out, err
}

// releasing is the state of one incarnation's store: whether it has sent
// a release write.
type releasing struct{ began, failed bool }

// isRelease reports whether in writes a released record.
func isRelease(in *s3.PutObjectInput) ([]byte, bool) {
	body, _ := io.ReadAll(in.Body)
	in.Body = bytes.NewReader(body)
	return body, bytes.Contains(body, []byte(`"released":true`))
}

// unboundedRelease lets every call from the first release write on run
// for the whole request timeout, whatever the context it was given: an
// elector whose release calls outlive the term's local deadline.
type unboundedRelease struct {
	sim.S3Client
	clock   protocol.Clock
	timeout time.Duration
	st      *releasing
}

func (s unboundedRelease) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	if _, ok := isRelease(in); ok {
		s.st.began = true
	}
	if s.st.began {
		c, cancel := s.clock.WithTimeout(context.WithoutCancel(ctx), s.timeout)
		defer cancel()
		ctx = c
	}
	return s.S3Client.PutObject(ctx, in, opts...)
}

func (s unboundedRelease) GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	if s.st.began {
		c, cancel := s.clock.WithTimeout(context.WithoutCancel(ctx), s.timeout)
		defer cancel()
		ctx = c
	}
	return s.S3Client.GetObject(ctx, in, opts...)
}

// oneRelease refuses, without sending it, every release write after one
// that was not answered with success: an elector that gives up its
// release after the first attempt, whatever its check read showed.
type oneRelease struct {
	sim.S3Client
	st *releasing
}

func (s oneRelease) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	_, rel := isRelease(in)
	if rel && s.st.failed {
		return nil, &types.NoSuchBucket{} // not sent; an answer the elector gives up on
	}
	out, err := s.S3Client.PutObject(ctx, in, opts...)
	if rel && err != nil {
		s.st.failed = true
	}
	return out, err
}

// TestPaceCatchesStepDownsAndReleases: an elector that steps down when a
// check read fails breaks RulePaceStepDown, one whose release calls
// outlive the local deadline and one that gives up its release after the
// first inconclusive attempt break RulePaceRelease, each within the
// swarm's first seeds and judged Liveness; the production elector as it
// is breaks neither on seeds 1..300.
func TestPaceCatchesStepDownsAndReleases(t *testing.T) {
	s := elector.DefaultSettings
	for _, c := range []struct {
		name  string
		wrap  func(env sim.Env) sim.S3Client
		rule  string
		seeds uint64
	}{
		{"as it is", func(env sim.Env) sim.S3Client { return env.Store }, "", 300},
		{"a failed read taken for a deletion", func(env sim.Env) sim.S3Client { return missingOnFailure{env.Store} },
			elector.RulePaceStepDown, 100},
		{"release calls that outlive the deadline", func(env sim.Env) sim.S3Client {
			return unboundedRelease{env.Store, env.Clock, s.RequestTimeout, &releasing{}}
		}, elector.RulePaceRelease, 3000},
		{"a release given up after one attempt", func(env sim.Env) sim.S3Client { return oneRelease{env.Store, &releasing{}} },
			elector.RulePaceRelease, 1000},
	} {
		p := elector.Protocol(s)
		p.Configure = nil // every node with the settings above
		p.Candidate = func(ctx context.Context, env sim.Env) error {
			env.Store = c.wrap(env)
			return elector.Candidate(s)(ctx, env)
		}
		sc := harness.Swarm("pace-rules-test", p)
		caught := ""
		for seed := uint64(1); seed <= c.seeds && caught == ""; seed++ {
			o, err := harness.RunSeed(sc, seed, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range o.Violations {
				if v.Checker != elector.PaceCheck || v.Rule != elector.RulePaceStepDown && v.Rule != elector.RulePaceRelease {
					continue
				}
				if o.Verdict != harness.Liveness {
					t.Errorf("%s: seed %d judged %s with %v", c.name, seed, o.Verdict, v)
				}
				if caught == "" || v.Rule == c.rule {
					caught = v.Rule
				}
				t.Logf("%s: seed %d: %v", c.name, seed, v)
			}
		}
		if caught != c.rule {
			t.Errorf("%s: pace rule %q within seeds 1..%d; want %q", c.name, caught, c.seeds, c.rule)
		}
	}
}
