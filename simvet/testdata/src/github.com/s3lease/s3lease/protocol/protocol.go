// Package protocol stands in for github.com/s3lease/s3lease/protocol: its
// Ticker, as the checked packages use it.
package protocol

import (
	"context"
	"time"
)

// Ticker is protocol.Ticker.
type Ticker struct{ C <-chan time.Time }

// Next is protocol.Ticker.Next.
func (t *Ticker) Next(ctx context.Context) <-chan time.Time { return t.C }

// Stop is protocol.Ticker.Stop.
func (t *Ticker) Stop() {}
