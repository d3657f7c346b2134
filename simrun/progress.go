package simrun

import (
	"fmt"
	"sync/atomic"
	"time"
)

// runProgress counts the seeds of a run as they finish, for the progress
// line `simrun run` draws on a terminal.
type runProgress struct {
	scenario string
	total    uint64
	start    time.Time
	done     atomic.Uint64
	failed   atomic.Uint64
}

// add counts one finished seed. A nil runProgress counts nothing.
func (p *runProgress) add(failed bool) {
	if p == nil {
		return
	}
	p.done.Add(1)
	if failed {
		p.failed.Add(1)
	}
}

// line is the progress so far: seeds done of the total, rate, failures and
// the time left at this rate.
func (p *runProgress) line() string {
	done, failed := p.done.Load(), p.failed.Load()
	elapsed := time.Since(p.start)
	rate := float64(done) / max(elapsed.Seconds(), 1e-9)
	s := fmt.Sprintf("%s: %d/%d seeds, %.0f seeds/s, %d failures, elapsed %v", p.scenario, done, p.total, rate, failed, elapsed.Round(time.Second))
	if done > 0 && done < p.total {
		eta := time.Duration(float64(p.total-done) / rate * float64(time.Second))
		s += fmt.Sprintf(", eta %v", eta.Round(time.Second))
	}
	return s
}
