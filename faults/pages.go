package faults

import (
	"fmt"

	"github.com/s3lease/s3lease/sim"
)

// streamPages is the stream that draws the proxy's error pages, and
// streamHTMLPages the one that draws pages the SDK cannot read.
const (
	streamPages     = 0x70616765_73212121
	streamHTMLPages = 0x68746d6c_70616765
)

// SwarmErrorPages draws how the nodes receive S3's error answers
// (Plan.ErrorPages). On one seed in six a proxy answers every error with a
// plain page of its own, which keeps the status but not S3's error code:
// the SDK derives the code from the status text ("Conflict",
// "InternalServerError"). On one of the other seeds in ten its pages are
// HTML the SDK cannot read at all ("html"): the nodes see the status and
// no code, so a missing lock object reads as a 404 without a code
// (docs/s3-semantics.md, "Error pages"). On the rest the nodes read S3's
// own error documents (""). The HTML pages are drawn from a stream of
// their own, so the seeds that draw plain pages are the same as before.
func SwarmErrorPages(seed uint64, sp SwarmSpace) string {
	if newStream(seed, streamPages, sp).on(6) {
		return sim.ErrorPagesPlain.String()
	}
	if newStream(seed, streamHTMLPages, sp).on(10) {
		return sim.ErrorPagesHTML.String()
	}
	return ""
}

// errorPages is the plan's Plan.ErrorPages, checked.
func (p *Plan) errorPages() (sim.ErrorPages, error) {
	pages, err := sim.ParseErrorPages(p.ErrorPages)
	if err != nil {
		return pages, fmt.Errorf("errorPages: %w", err)
	}
	return pages, nil
}
