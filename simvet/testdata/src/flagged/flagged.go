// Package flagged does everything simvet reports.
package flagged

import (
	"context"
	"math/rand"
	"sync"
	"time"

	"github.com/s3lease/s3lease/protocol"
)

var start = time.Now() // want `time.Now reads the real clock`

func clock(ctx context.Context) time.Duration {
	time.Sleep(time.Millisecond)                         // want `time.Sleep waits on a real timer; use the protocol.Clock \(Now/Monotonic/Sleep/WithTimeout/NewTicker\)`
	ctx, cancel := context.WithTimeout(ctx, time.Second) // want `context.WithTimeout waits on a real timer; use Clock.WithTimeout`
	defer cancel()
	t := time.NewTimer(time.Second) // want `time.NewTimer waits on a real timer`
	t.Stop()
	now := time.Now                              // want `time.Now reads the real clock`
	return time.Since(now()) + time.Until(start) // want `time.Since reads` `time.Until reads`
}

func random() int {
	rand.Shuffle(3, func(i, j int) {}) // want `math/rand.Shuffle draws from the global generator; take randomness from an io.Reader passed in \(as protocol.Config.Entropy does\)`
	return rand.Intn(10)               // want `math/rand.Intn draws from the global generator`
}

func goroutines(f func()) {
	go f() // want `go statement starts a goroutine the simulator does not schedule; use Clock.Go`
	var wg sync.WaitGroup
	wg.Go(f)  // want `sync.WaitGroup.Go starts a goroutine`
	wg.Wait() // want `sync.WaitGroup.Wait blocks outside the simulator; wait with Clock.Sleep\(ctx, d\) \(a context cancelled elsewhere is a join\)`
}

func blocking(ctx context.Context, ch chan int, c *sync.Cond) {
	<-ctx.Done()  // want `channel receive blocks outside the simulator`
	ch <- 1       // want `channel send blocks outside the simulator`
	v, ok := <-ch // want `channel receive blocks`
	_, _ = v, ok
	for range ch { // want `range over a channel blocks outside the simulator`
	}
	select { // want `select without a default clause blocks outside the simulator`
	case <-ctx.Done():
	case ch <- 2:
	case x := <-ch:
		_ = x
	}
	select {} // want `select without a default clause`
	c.Wait()  // want `sync.Cond.Wait blocks outside the simulator`
}

type embedded struct{ sync.WaitGroup }

func promoted(e *embedded) {
	e.Wait() // want `sync.WaitGroup.Wait blocks`
}

func generic[C ~chan int | ~chan<- int | ~<-chan int](c <-chan int) {
	for range c { // want `range over a channel`
	}
}

func tickers(ctx, other context.Context, t *protocol.Ticker, ch chan int) {
	tk := time.NewTicker(time.Second) // want `time.NewTicker waits on a real timer; use the protocol.Clock \(Now/Monotonic/Sleep/WithTimeout/NewTicker\)`
	tk.Stop()
	select { // want `select without a default clause blocks outside the simulator; .* or select on ctx.Done\(\) and a protocol.Ticker's Next\(ctx\) alone`
	case <-ctx.Done():
	case <-t.C:
	}
	select { // want `select without a default clause`
	case <-other.Done():
	case <-t.Next(ctx):
	}
	select { // want `select without a default clause`
	case <-ctx.Done():
	case <-t.Next(ctx):
	case <-ch:
	}
	<-t.Next(ctx) // want `channel receive blocks outside the simulator`
}
