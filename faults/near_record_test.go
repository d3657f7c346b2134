package faults

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/s3lease/s3lease/protocol"
)

// nearRecords are every body nearRecord can draw.
func nearRecords() []string {
	base := nearRecordBase
	var out []string
	for _, t := range badTimes {
		out = append(out, strings.Replace(base, nearRecordTime, t, 1))
	}
	for k := range 14 {
		for c := range notDigits {
			out = append(out, strings.Replace(base, nearRecordTime, badDigit(nearRecordTime, k, c), 1))
		}
	}
	for _, e := range badEscapes {
		out = append(out, strings.Replace(base, `\u00e9`, e, 1))
	}
	for _, n := range badNonces {
		out = append(out, strings.Replace(base, nearRecordNonce, n, 1))
	}
	for n := 1; n < len(base); n++ {
		out = append(out, base[:n])
	}
	return out
}

// TestNearRecordsAreNoRecords: the base of the near records is a valid
// record, and each near record is one mistake from it that
// protocol.DecodeRecord refuses, and encoding/json too but for a nonce the
// record format forbids, in valid UTF-8 (a plan's JSON holds it exactly).
func TestNearRecordsAreNoRecords(t *testing.T) {
	if _, err := protocol.DecodeRecord([]byte(nearRecordBase)); err != nil {
		t.Fatalf("the base of the near records: %v", err)
	}
	for _, v := range nearRecordValues {
		if !strings.Contains(nearRecordBase, v) {
			t.Errorf("the base of the near records holds no %s", v)
		}
	}
	bodies := nearRecords()
	for _, b := range bodies {
		var r protocol.Record
		if !utf8.ValidString(b) {
			t.Errorf("%q is no UTF-8", b)
		}
		badNonce := false
		for _, n := range badNonces {
			badNonce = badNonce || strings.Contains(b, `"nonce":`+n+`}`)
		}
		if json.Unmarshal([]byte(b), &r) == nil && !badNonce { // a bad nonce is valid JSON, in a record the format forbids
			t.Errorf("encoding/json reads %q", b)
		}
		if _, err := protocol.DecodeRecord([]byte(b)); err == nil {
			t.Errorf("protocol.DecodeRecord reads %q", b)
		}
	}
	for _, want := range []string{`"2025-02-29T03`, `T03:04:05.Z"`, `"2025-01-02T03:04:0:`, `"2025-/1-02`, `\u00g9`, `"0123456789ABCDEF"`, `"intruder-\u00e`} {
		n := 0
		for _, b := range bodies {
			if strings.Contains(b, want) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("no near record holds %s", want)
		}
	}
}

// TestSwarmDrawsNearRecords: near records come in the swarm's draws, as
// the content before the run and as foreign writes, each one nearRecord
// gives, and of every kind.
func TestSwarmDrawsNearRecords(t *testing.T) {
	all := map[string]bool{}
	for _, b := range nearRecords() {
		all[b] = true
	}
	seen := map[string]bool{}
	initial, written := 0, 0
	for seed := uint64(1); seed <= 20000; seed++ {
		p := Draw(NewSource(seed), Space{Nodes: 5, HealAt: 45e9, Bounds: Bounds{Assumptions: protocol.Assumptions{MaxPause: 2e9, Lease: 6e9}}})
		var bodies []string
		if o := p.Initial; o != nil && o.Record == nil {
			bodies = append(bodies, o.Body)
		}
		for _, e := range p.Events {
			if e.Kind == Overwrite && e.Record == nil {
				bodies = append(bodies, e.Body)
			}
		}
		for i, b := range bodies {
			if !strings.HasPrefix(b, `{"holder":"intruder-`) {
				continue
			}
			if !all[b] {
				t.Fatalf("seed %d: %q is no near record", seed, b)
			}
			if i == 0 && p.Initial != nil && p.Initial.Record == nil {
				initial++
			} else {
				written++
			}
			seen[b] = true
		}
	}
	if initial == 0 || written == 0 {
		t.Errorf("near records in 20000 draws: %d before the run, %d written during it", initial, written)
	}
	kinds := map[string]int{}
	for b := range seen {
		switch {
		case !strings.HasSuffix(b, "}"):
			kinds["cut"]++
		case !strings.Contains(b, `\u00e9`):
			kinds["escape"]++
		default:
			kinds["time"]++
		}
	}
	if kinds["cut"] < 20 || kinds["escape"] < 5 || kinds["time"] < 40 {
		t.Errorf("distinct near records in 20000 draws by kind: %v", kinds)
	}
}
