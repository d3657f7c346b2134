package lockkit

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/s3lease/s3lease/protocol"
	"pgregory.net/rapid"
)

// TestTimingsCheck: Check refuses, naming the field, every lease, drift
// bound and renew deadline out of range or without a margin, and accepts
// only timings whose term and pause bound (protocol.TermLength and
// protocol.PauseBound, exact for leases up to protocol.MaxLeaseDuration)
// are there: a term after the drift margin, which is there whenever the
// drift bound is, and room for a pause.
func TestTimingsCheck(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lease := time.Duration(rapid.OneOf(rapid.Int64Range(-1, int64(protocol.MaxLeaseDuration)+1), rapid.Int64Range(1, int64(time.Minute)),
			rapid.Just(int64(protocol.MaxLeaseDuration))).Draw(t, "lease"))
		tm := Timings{Lease: lease, Fields: [3]string{"L", "R", "D"},
			RenewDeadline: time.Duration(rapid.Int64Range(-1, max(int64(lease), 0)+1).Draw(t, "renew deadline")),
			DriftPPM:      rapid.OneOf(rapid.Int64Range(-1, protocol.MaxClockDriftPPM), rapid.Int64Range(0, 5000)).Draw(t, "ppm")}
		err := tm.Check()
		var ce *protocol.ConfigError
		if err != nil && (!errors.As(err, &ce) || !slices.Contains(tm.Fields[:], ce.Field)) {
			t.Fatalf("Check: %v, not a ConfigError naming a field", err)
		}
		inRange := lease > 0 && lease <= protocol.MaxLeaseDuration && tm.DriftPPM >= 0 && tm.DriftPPM < protocol.MaxClockDriftPPM && tm.RenewDeadline > 0
		if !inRange {
			if err == nil {
				t.Fatalf("Check accepted %+v", tm)
			}
			return
		}
		a := tm.Assumptions()
		term := protocol.TermLength(lease, tm.RenewDeadline, tm.DriftPPM)
		if a.Lease != lease || a.Term != term || tm.Term() != term || a.MaxDriftPPM != tm.DriftPPM ||
			a.MaxPause != protocol.PauseBound(lease, term, tm.DriftPPM) {
			t.Fatalf("Assumptions %+v of %+v are not the protocol's derivation", a, tm)
		}
		if (err == nil) != (a.MaxPause > 0 && a.Term > 0) {
			t.Fatalf("Check: %v, with a pause bound of %v", err, a.MaxPause)
		}
		margin := protocol.DriftMargin(lease, tm.DriftPPM)
		if err == nil && (a.Term <= 0 || a.Term > lease-margin || (margin > 0) != (tm.DriftPPM > 0)) {
			t.Fatalf("Check accepted %+v: term %v, margin %v", tm, a.Term, margin)
		}
	})
}
