package elector_test

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// floorBody is a valid record of holder with token, as json.Marshal writes
// it, and its ETag.
func floorBody(t *testing.T, holder string, token uint64) (body, etag string) {
	t.Helper()
	b, err := json.Marshal(protocol.Record{Holder: holder, Token: token, LeaseDurationMS: 6000,
		AcquireTime: sim.Epoch, RenewTime: sim.Epoch, Nonce: strings.Repeat("a", protocol.NonceLen)})
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum(b)
	return string(b), `"` + hex.EncodeToString(sum[:]) + `"`
}

// TestRecordFloorRule: node 0 reads a record with token 50, the object is
// deleted, and node 0 creates it again. With token 40 it breaks the floor
// rule; with 51 it does not; after a crash in between, its memory is new
// and 40 breaks nothing, also when the process restarted at the instant
// its read returned. The largest token, when 50 is the highest it
// saw, breaks it too.
func TestRecordFloorRule(t *testing.T) {
	other, otherTag := floorBody(t, "n1", 50)
	for _, c := range []struct {
		name  string
		token uint64
		crash bool
		want  bool
	}{
		{"below a token it read", 40, false, true},
		{"equal to a token it read", 50, false, true},
		{"above it", 51, false, false},
		{"below it after a crash", 40, true, false},
		{"below it after a restart the instant its read returned", 40, false, false},
		{"the largest token", math.MaxUint64, false, true},
	} {
		mine, mineTag := floorBody(t, "n0", c.token)
		h := &sim.History{Nodes: 2, End: 10 * time.Second, S3: []sim.S3Op{
			{Node: 1, Identity: "n1", Op: "PutObject", IfNoneMatch: "*", BodyETag: otherTag, Call: 1, Return: 2, Status: 200, ETag: otherTag, Body: other},
			{Node: 0, Identity: "n0", Incarnation: 1, Op: "GetObject", Call: 3, Return: 4, Status: 200, ETag: otherTag},
			{Node: -1, Op: "DeleteObject", Call: 5, Return: 5, Status: 204},
			{Node: 0, Identity: "n0", Incarnation: 1, Op: "PutObject", IfNoneMatch: "*", BodyETag: mineTag, Call: 7, Return: 8, Status: 200, ETag: mineTag, Body: mine},
		}}
		switch {
		case c.crash:
			h.Faults = []sim.FaultSpan{{Kind: "crash", Node: 0, From: 5, To: 6}}
			h.S3[3].Incarnation = 2
		case strings.Contains(c.name, "the instant"):
			// The read was answered, and the process restarted, at 4:
			// the next process sends its first request at that instant.
			h.Faults = []sim.FaultSpan{{Kind: "restart", Node: 0, From: 4, To: 4}}
			h.S3[3].Incarnation = 2
			h.S3 = slices.Insert(h.S3, 2, sim.S3Op{Node: 0, Identity: "n0", Incarnation: 2, Op: "GetObject", Call: 4, Return: 5, Status: 404, Code: "NoSuchKey"})
		}
		got := false
		for _, v := range elector.AuditRecords(h) {
			if v.Rule == elector.RuleRecordFloor {
				got = true
				t.Logf("%s: %v", c.name, v)
			} else {
				t.Errorf("%s: another rule: %v", c.name, v)
			}
		}
		if got != c.want {
			t.Errorf("%s: floor violation %v, want %v", c.name, got, c.want)
		}
	}
}
