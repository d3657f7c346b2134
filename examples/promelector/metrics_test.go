package promelector

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/s3lease/s3lease/protocol"
)

// The hooks land in the collectors: every declared transition is a series
// from the start, a transition, a request and a term count where they
// should.
func TestCollectors(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := New(reg, "test")
	if n := testutil.CollectAndCount(c.Transitions); n != len(protocol.Transitions()) {
		t.Errorf("%d transition series, want %d", n, len(protocol.Transitions()))
	}
	m := c.Metrics()
	tr := protocol.Transition{From: protocol.PhaseAcquiring, Cause: protocol.CauseOK, To: protocol.PhaseLeading}
	m.Transition(tr)
	m.Request(protocol.Request{Op: "PutObject", Purpose: protocol.PurposeAcquire, Answer: protocol.CauseConflict, Latency: 30 * time.Millisecond})
	m.TermStarted(protocol.Lease{Token: 7})
	if got := testutil.ToFloat64(c.Leader); got != 1 {
		t.Errorf("leader gauge %v during a term", got)
	}
	m.TermEnded(protocol.TermEnd{Token: 7, Held: 3 * time.Second, Cause: protocol.CauseShutdown})
	if got := testutil.ToFloat64(c.Leader); got != 0 {
		t.Errorf("leader gauge %v after the term", got)
	}
	if got := testutil.ToFloat64(c.Transitions.WithLabelValues("acquiring", "ok", "leading")); got != 1 {
		t.Errorf("acquiring --ok--> leading counted %v", got)
	}
	if got := testutil.ToFloat64(c.Requests.WithLabelValues("PutObject", "acquire", "409")); got != 1 {
		t.Errorf("acquire conflicts counted %v", got)
	}
}
