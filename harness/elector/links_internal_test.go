package elector

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
)

// TestRecordFormatBoundsAgree: the bounds package faults draws records
// around are the elector's: its identity and updates limits, its endings,
// its longest lease (the audit's too), and the longest body it reads (a valid record padded to MaxBodyLen
// decodes, one byte more does not).
func TestRecordFormatBoundsAgree(t *testing.T) {
	if faults.MaxIdentityLen != protocol.MaxIdentityLen || faults.MaxUpdatesLen != protocol.MaxUpdatesLen {
		t.Errorf("faults' bounds %d, %d; the elector's %d, %d", faults.MaxIdentityLen, faults.MaxUpdatesLen, protocol.MaxIdentityLen, protocol.MaxUpdatesLen)
	}
	if recordMaxLeaseMillis*time.Millisecond != protocol.MaxLeaseDuration || faults.MaxLease != protocol.MaxLeaseDuration {
		t.Errorf("the audit's and faults' longest lease %v, %v; the elector's %v", recordMaxLeaseMillis*time.Millisecond, faults.MaxLease, protocol.MaxLeaseDuration)
	}
	if faults.EndedReleased != string(protocol.EndedReleased) || faults.EndedExpired != string(protocol.EndedExpired) {
		t.Error("faults' endings are not the elector's")
	}
	body := DefaultSettings.EncodeRecord(faults.Record{Holder: "gone", Token: 5})
	for size, ok := range map[int]bool{faults.MaxBodyLen: true, faults.MaxBodyLen + 1: false} {
		padded, err := faults.Pad(body, size)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := protocol.DecodeRecord(padded); (err == nil) != ok {
			t.Errorf("a valid record padded to %d bytes: DecodeRecord says %v", size, err)
		}
		if b := readRecord(string(padded)); (b.bad == "") != ok {
			t.Errorf("a valid record padded to %d bytes: the audit reads %q", size, b.bad)
		}
	}
}

// TestAuditReadsInitialRecordsAsTheElector: every record the swarm writes
// before the run (seeds 1..4000), in the elector's format, its spelling,
// its edit and its padding, is a valid record to the record audit exactly
// when it is one to protocol.DecodeRecord, the same record; a native one
// as written is valid, and one whose link or updates no elector writes is
// not. (The audit applies the format's rules on its own; this holds it to
// the elector's codec on the bodies the swarm makes.)
func TestAuditReadsInitialRecordsAsTheElector(t *testing.T) {
	enc := DefaultSettings.EncodeRecord
	seen := map[string]int{}
	for seed := uint64(1); seed <= 4000; seed++ {
		o := harness.SwarmPlan(seed, 5, Protocol(DefaultSettings)).Initial
		if o == nil || o.Record == nil {
			continue
		}
		body := faults.Edit(faults.Respell(enc(*o.Record), o.Spelling), o.Edit)
		if o.Size != 0 {
			body, _ = faults.Pad(body, o.Size)
		}
		rec, err := protocol.DecodeRecord(body)
		b := readRecord(string(body))
		if (err == nil) != (b.bad == "") {
			t.Errorf("seed %d: DecodeRecord says %v, the audit %q, of %.300q", seed, err, b.bad, body)
			continue
		}
		if err == nil {
			want, _ := json.Marshal(rec)
			got, _ := json.Marshal(b.rec)
			if string(want) != string(got) {
				t.Errorf("seed %d: DecodeRecord reads %.300s, the audit %.300s", seed, want, got)
			}
		}
		r := o.Record
		plain := o.Edit == 0 && o.Size <= faults.MaxBodyLen
		switch {
		case plain && r.Native() && err != nil:
			t.Errorf("seed %d: a native record, as written, is refused: %v", seed, err)
		case plain && r.Previous != nil && !r.Native() && len(r.Holder) <= faults.MaxIdentityLen && r.Token <= faults.MaxNativeToken && err == nil:
			t.Errorf("seed %d: a record with a link no elector writes is read as valid: %.300q", seed, body)
		case err == nil && r.Previous != nil:
			seen["valid with a link"]++
		case err != nil && r.Previous != nil:
			seen["invalid with a link"]++
		}
		if err == nil && o.Size > 0 {
			seen["valid padded"]++
		}
		if err == nil && len(r.Holder) > faults.MaxIdentityLen && strings.HasPrefix(rec.Holder, r.Holder[:8]) {
			seen["valid long holder"]++
		}
	}
	t.Logf("%v", seen)
	for _, k := range []string{"valid with a link", "invalid with a link", "valid padded", "valid long holder"} {
		if seen[k] == 0 {
			t.Errorf("no seed of 1..4000 drew a record %s", k)
		}
	}
}
