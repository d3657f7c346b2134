package faults_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
)

// TestSwarmDrawsLeasesAtTheLimit: across seeds, records before the run
// state leases in (MaxLease - 1 h, MaxLease), exactly MaxLease and a
// millisecond more, only on seeds with foreign writes during the run;
// each is released, not edited and below the top of the token space (a
// record the elector times would hold the nodes off past the run),
// the one beyond the limit is foreign; and each plan reads back from JSON
// exactly.
func TestSwarmDrawsLeasesAtTheLimit(t *testing.T) {
	seen := map[string]int{}
	for seed := uint64(1); seed <= 6000; seed++ {
		p := swarm(seed)
		o := p.Initial
		if o == nil || o.Record == nil || o.Record.Lease.D() <= 20*time.Second {
			continue
		}
		r := o.Record
		kind := "near"
		switch l := r.Lease.D(); {
		case l == faults.MaxLease:
			kind = "at"
		case l == faults.MaxLease+time.Millisecond:
			kind = "over"
			if !o.Foreign() {
				t.Errorf("seed %d: a record of %v is not foreign", seed, l)
			}
		case l <= faults.MaxLease-time.Hour || l > faults.MaxLease || l%time.Millisecond != 0:
			t.Fatalf("seed %d: a record of %v", seed, l)
		}
		seen[kind]++
		if !r.Released || o.Edit != 0 || r.Token > faults.MaxNativeToken {
			t.Errorf("seed %d: a record of %v, released %v, edit %d, token %d", seed, r.Lease, r.Released, o.Edit, r.Token)
		}
		writes := false
		for _, e := range p.Events {
			writes = writes || e.Kind == faults.DeleteLock || e.Kind == faults.Overwrite || e.Kind == faults.Restore
		}
		if !writes {
			t.Errorf("seed %d: a record of %v on a seed without foreign writes", seed, r.Lease)
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		back, err := faults.Decode(bytes.NewReader(b))
		if err != nil || !reflect.DeepEqual(p, back) {
			t.Fatalf("seed %d: the plan does not read back as written (%v)", seed, err)
		}
	}
	t.Logf("%v", seen)
	for _, kind := range []string{"near", "at", "over"} {
		if seen[kind] < 20 {
			t.Errorf("%s the limit: %d records in 6000 seeds", kind, seen[kind])
		}
	}
}

// TestSwarmDrawsWatermarksAcrossTheCalendar: the watermarks records
// publish before the run fall in every month, on month ends, and in the
// years before 2000, not only near the run's start.
func TestSwarmDrawsWatermarksAcrossTheCalendar(t *testing.T) {
	months := map[time.Month]bool{}
	monthEnds, before2000 := 0, 0
	for seed := uint64(1); seed <= 3000; seed++ {
		o := swarm(seed).Initial
		if o == nil || o.Record == nil || o.Record.Watermark.IsZero() {
			continue
		}
		w := o.Record.Watermark
		months[w.Month()] = true
		if w.AddDate(0, 0, 1).Day() == 1 {
			monthEnds++
		}
		if w.Year() < 2000 {
			before2000++
		}
	}
	if len(months) < 12 || monthEnds == 0 || before2000 == 0 {
		t.Errorf("watermarks in 3000 draws: %d months, %d on a month's last day, %d before 2000", len(months), monthEnds, before2000)
	}
}
