package sim

import (
	"context"
	"encoding/binary"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// mixedWaits is a candidate whose tasks wait on the simulator's contexts
// and on their own, nested and derived, and cancel them from other tasks at
// instants drawn from the node's entropy: the cases the two lists of
// waiting tasks must order as one.
func mixedWaits(ctx context.Context, env Env) error {
	var b [8]byte
	draw := func(n int64) time.Duration {
		_, _ = io.ReadFull(env.Entropy, b[:])
		return time.Duration(binary.LittleEndian.Uint64(b[:])%uint64(n)) * time.Millisecond
	}
	for ctx.Err() == nil {
		own, cancelOwn := context.WithCancel(ctx)
		tc, cancelTC := env.Clock.WithTimeout(ctx, draw(50)+time.Millisecond)
		nested, cancelNested := env.Clock.WithTimeout(tc, draw(50)+time.Millisecond)
		derived, cancelDerived := context.WithCancel(nested)
		// Tasks that wait in an interleaved order on both kinds of
		// context, then each make an S3 call, which the trace shows in the
		// order they woke.
		for i, c := range []context.Context{own, tc, nested, derived, ctx, own, nested} {
			env.Clock.Go(func() {
				_ = env.Clock.Sleep(c, draw(60)+time.Duration(i))
				if i%2 == 0 {
					_ = env.Clock.Sleep(ctx, draw(5))
				}
				_, _ = env.Store.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String("task" + strconv.Itoa(i))})
				// A wait on nothing, then on the node's context again: the
				// task leaves the lists and joins them anew, at their end.
				_ = env.Clock.Sleep(context.Background(), draw(3))
				_ = env.Clock.Sleep(ctx, draw(100))
				_, _ = env.Store.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String("again" + strconv.Itoa(i))})
			})
		}
		env.Clock.Go(func() {
			_ = env.Clock.Sleep(ctx, draw(40))
			// Both kinds at once: the woken tasks must be taken in the
			// order they began waiting.
			cancelOwn()
			cancelNested()
		})
		_ = env.Clock.Sleep(ctx, draw(30))
		cancelDerived()
		_ = env.Clock.Sleep(ctx, draw(70))
		cancelTC()
	}
	return nil
}

// TestPollListsAreOneList checks that polling the tasks waiting on the
// simulator's contexts only when one of those is cancelled wakes the same
// tasks in the same order as polling every waiting task after every step:
// the same traces, with crashes and stops of nodes among them.
func TestPollListsAreOneList(t *testing.T) {
	run := func(seed uint64) *Result {
		cfg := testConfig(3, 3*time.Second, mixedWaits)
		cfg.Seed = seed
		cfg.Setup = func(w *World) {
			w.At(time.Second, -1, func() { w.Node(1).Stop() })
			w.At(1500*time.Millisecond, -1, func() { w.Node(2).Crash() })
			w.At(2*time.Second, -1, func() { w.Node(2).Restart("") })
		}
		return mustRun(t, cfg)
	}
	for seed := uint64(1); seed <= 20; seed++ {
		got := run(seed)
		pollEverything = true
		want := run(seed)
		pollEverything = false
		if got.Hash() != want.Hash() || got.Steps != want.Steps {
			t.Fatalf("seed %d: hash %x, %d steps; polling everything %x, %d steps", seed, got.Hash(), got.Steps, want.Hash(), want.Steps)
		}
		if seed == 1 && got.Steps < 1000 {
			t.Fatalf("only %d steps: the candidate does not exercise the lists", got.Steps)
		}
	}
}
