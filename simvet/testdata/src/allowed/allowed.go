// Package allowed does only what simvet lets through.
package allowed

import (
	"context"
	"math/rand"
	randv2 "math/rand/v2"
	"sync"
	"time"

	"github.com/s3lease/s3lease/protocol"
)

// Clock is a stand-in for protocol.Clock.
type Clock interface {
	Sleep(ctx context.Context, d time.Duration) error
	Go(f func())
}

func poll(ctx context.Context, ch chan int) (int, bool) {
	select {
	case v := <-ch:
		return v, true
	case <-ctx.Done():
		return 0, false
	case ch <- 1:
		return 1, true
	default:
		return 0, false
	}
}

func seeded(seed int64) int {
	r := rand.New(rand.NewSource(seed))
	r2 := randv2.New(randv2.NewPCG(uint64(seed), 1))
	return r.Intn(10) + r2.IntN(10)
}

func viaClock(ctx context.Context, c Clock, mu *sync.Mutex) time.Duration {
	done, cancel := context.WithCancel(ctx)
	c.Go(func() {
		defer cancel()
		mu.Lock()
		mu.Unlock()
	})
	_ = c.Sleep(done, time.Hour)
	d := 3 * time.Second
	var t time.Time
	return d + t.Sub(t)
}

func iterate(seq func(func(int) bool), n int) (sum int) {
	for v := range seq {
		sum += v
	}
	for i := range n {
		sum += i
	}
	return sum
}

// A select with default: a non-blocking receive.
func drain(ch <-chan int) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// A ticker's select: ctx.Done() and Next(ctx) alone.
func ticks(ctx context.Context, t *protocol.Ticker) int {
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n
		case v := <-t.Next(ctx):
			_ = v
			n++
		}
	}
}
