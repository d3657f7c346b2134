package faults

import (
	"fmt"

	"github.com/s3lease/s3lease/sim"
)

// streamPages is the stream that draws the proxy's error pages.
const streamPages = 0x70616765_73212121

// SwarmErrorPages draws how the nodes receive S3's error answers
// (Plan.ErrorPages): on five seeds in six S3's own error documents (""); on
// the others through a proxy that answers every error with a plain page
// of its own, which keeps the status but not S3's error code: the SDK
// derives the code from the status text ("Conflict",
// "InternalServerError"). Pages the SDK cannot read at all ("html") are
// not drawn: behind them a missing lock object reads as a 404 without a
// code, which the elector takes for a refusal, not for "not found", and
// it never creates the object (docs/s3-semantics.md, "Error pages").
func SwarmErrorPages(seed uint64, sp SwarmSpace) string {
	s := newStream(seed, streamPages, sp)
	if !s.on(6) {
		return ""
	}
	return sim.ErrorPagesPlain.String()
}

// errorPages is the plan's Plan.ErrorPages, checked.
func (p *Plan) errorPages() (sim.ErrorPages, error) {
	pages, err := sim.ParseErrorPages(p.ErrorPages)
	if err != nil {
		return pages, fmt.Errorf("errorPages: %w", err)
	}
	return pages, nil
}
