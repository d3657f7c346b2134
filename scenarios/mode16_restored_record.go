package scenarios

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// modeBRestoredRecord is the body an outside tool restores, twice: an old,
// valid-looking record of n0's first term, as a backup would hold it.
const modeBRestoredRecord = `{"holder":"n0","token":1,"leaseDurationMs":6000,"acquireTime":"2000-01-01T00:00:00Z","renewTime":"2000-01-01T00:00:00Z","nonce":"0123456789abcdef"}`

// RestoredRecord is ABA on If-Match (docs/failure-modes.md#16-aba-on-if-match):
// S3's ETag is the MD5 of the body, so writing the same bytes twice gives the
// same ETag twice.
// The electors' own records never repeat (each carries a fresh nonce); an
// outside writer that restores one body twice does make an ETag come back,
// though not its Last-Modified, which followers compare too.
var RestoredRecord = harness.Drawn(harness.Scenario{
	Name: "restored-record",
	Doc: "An outside tool restores an old record of n0's over the lock object, and again 6-8 s later, byte for byte: " +
		"both writes have the same ETag but not the same Last-Modified. A candidate that timed the first restore sees the second " +
		"as a new state of the object and times it afresh, so it no longer takes it at once beside the leader whose record it overwrote. " +
		"What If-Match cannot see remains: a takeover decided on a read of the first restore that lands after the second succeeds against it (a race of one round trip). " +
		"Foreign writes leave the elector's assumptions; no stale write may be accepted.",
	Expect: harness.Fenced,
	Draw: func(seed uint64, src *faults.Source) harness.Setup {
		p := elector.Protocol(elector.DefaultSettings)
		cfg := harness.World(seed)
		cfg.Duration = 40 * time.Second
		c := src.Sub("restored-record")
		first := 4*time.Second + time.Duration(c.Choose(uint64(2*time.Second)))
		second := first + 6*time.Second + time.Duration(c.Choose(uint64(2*time.Second)))
		plan := &faults.Plan{HealAt: faults.Duration(second + time.Second), Events: []faults.Event{
			{Kind: faults.Overwrite, At: faults.Duration(first), Body: modeBRestoredRecord},
			{Kind: faults.Overwrite, At: faults.Duration(second), Body: modeBRestoredRecord},
		}}
		return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
	},
})
