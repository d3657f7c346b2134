package harness

import (
	"context"
	"runtime"
	"sync"
)

// Work is the one worker pool of the harness: run, campaign, zoo and bench
// all use it. It calls job on workers goroutines (GOMAXPROCS if workers <
// 1) for every index next hands out, until next has no more, ctx ends or a
// job fails, and returns the first job error. Each job runs its own worlds,
// so jobs in parallel do not disturb each other's determinism. next is
// called under a lock.
func Work(ctx context.Context, workers int, next func() (uint64, bool), job func(k uint64) error) error {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	take := func() (uint64, bool) {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil || firstErr != nil {
			return 0, false
		}
		return next()
	}
	for range workers {
		wg.Go(func() {
			for {
				k, ok := take()
				if !ok {
					return
				}
				if err := job(k); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					cancel()
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}

// Count hands out 0, 1, ..., n-1: a next function for Work.
func Count(n uint64) func() (uint64, bool) {
	var k uint64
	return func() (uint64, bool) {
		if k >= n {
			return 0, false
		}
		k++
		return k - 1, true
	}
}
