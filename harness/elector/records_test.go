package elector_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// corruptingStore rewrites every record the elector sends, as a broken
// codec would.
type corruptingStore struct {
	sim.S3Client
	corrupt func(r *protocol.Record, body []byte) []byte
}

func (s *corruptingStore) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	body, err := io.ReadAll(in.Body)
	if err != nil {
		return nil, err
	}
	var r protocol.Record
	if json.Unmarshal(body, &r) == nil {
		body = s.corrupt(&r, body)
	}
	cp := *in
	cp.Body = bytes.NewReader(body)
	return s.S3Client.PutObject(ctx, &cp, opts...)
}

// TestRecordAuditCatchesBrokenRecords: the production elector's swarm
// runs, with every record it sends rewritten on the way to S3 as a broken
// codec would write it, are judged unsafe by the record audit, with the
// rule the mistake breaks, within the first 30 seeds; sent as written,
// no record of seeds 1..200 breaks a rule.
func TestRecordAuditCatchesBrokenRecords(t *testing.T) {
	remarshal := func(change func(r *protocol.Record) bool) func(*protocol.Record, []byte) []byte {
		return func(r *protocol.Record, body []byte) []byte {
			if !change(r) {
				return body
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	for _, c := range []struct {
		name    string
		corrupt func(*protocol.Record, []byte) []byte
		rule    string
	}{
		{"as written", func(_ *protocol.Record, b []byte) []byte { return b }, ""},
		{"a space after the object", func(_ *protocol.Record, b []byte) []byte { return append(b, ' ') }, elector.RuleRecordCanonical},
		{"keys in another order", func(r *protocol.Record, b []byte) []byte {
			return bytes.Replace(b, []byte(`{"holder":`+string(mustJSON(t, r.Holder))+`,"token":`+string(mustJSON(t, r.Token))),
				[]byte(`{"token":`+string(mustJSON(t, r.Token))+`,"holder":`+string(mustJSON(t, r.Holder))), 1)
		}, elector.RuleRecordCanonical},
		{"a lease a millisecond short", remarshal(func(r *protocol.Record) bool { r.LeaseDurationMS--; return true }), elector.RuleRecordLease},
		{"another holder", remarshal(func(r *protocol.Record) bool { r.Holder += "-x"; return true }), elector.RuleRecordHolder},
		{"a takeover that forgets its link", remarshal(func(r *protocol.Record) bool {
			forget := r.Previous != nil && r.AcquireTime.Equal(r.RenewTime)
			r.Previous = nil
			return forget
		}), elector.RuleRecordLink},
		{"a link ended the other way", remarshal(func(r *protocol.Record) bool {
			if r.Previous == nil {
				return false
			}
			r.Previous.Ended = map[protocol.Ending]protocol.Ending{protocol.EndedExpired: protocol.EndedReleased, protocol.EndedReleased: protocol.EndedExpired}[r.Previous.Ended]
			return true
		}), elector.RuleRecordLink},
		{"a renewal that drops the link", remarshal(func(r *protocol.Record) bool {
			drop := r.Previous != nil && !r.AcquireTime.Equal(r.RenewTime)
			r.Previous = nil
			return drop
		}), elector.RuleRecordLink},
	} {
		sc := wrappedSwarm("records-test", func(st sim.S3Client) sim.S3Client { return &corruptingStore{st, c.corrupt} })
		seeds := uint64(30)
		if c.rule == "" {
			seeds = 200
		}
		caught := ""
		for seed := uint64(1); seed <= seeds && caught == ""; seed++ {
			o, err := harness.RunSeed(sc, seed, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range o.Violations {
				if v.Checker == elector.RecordAuditCheck {
					if o.Verdict != harness.Unsafe {
						t.Errorf("%s: seed %d judged %s with %v", c.name, seed, o.Verdict, v)
					}
					caught = v.Rule
					t.Logf("%s: seed %d: %v", c.name, seed, v)
					break
				}
			}
		}
		if caught != c.rule {
			t.Errorf("%s: record-audit rule %q within seeds 1..%d; want %q", c.name, caught, seeds, c.rule)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstWins rewrites a JSON object so that each field has its first value,
// as a reader that takes the first of a field written twice would see it
// (encoding/json, and so the record format, takes the last): a codec's
// misreading;
// anything else is returned as it is.
func firstWins(body []byte) []byte {
	d := json.NewDecoder(bytes.NewReader(body))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return body
	}
	fields := map[string]json.RawMessage{}
	for d.More() {
		key, err := d.Token()
		if err != nil {
			return body
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return body
		}
		if _, seen := fields[key.(string)]; !seen {
			fields[key.(string)] = v
		}
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return body
	}
	return out
}

// TestRecordAuditSeesMisreadRecords: an elector that reads a field written
// twice by its first value, where the record format (encoding/json) takes
// the last, is judged unsafe by the record audit within the swarm's first
// 400 seeds: the swarm edits records before the run (a field twice among
// the edits), and the takeover's link shows what the elector read. The
// misreading is excused nowhere: the record before the run is a foreign
// write, but what a node wrote after reading it is its own.
func TestRecordAuditSeesMisreadRecords(t *testing.T) {
	if !linkCaught(t, misreadingSwarm("misread-test", firstWins), 400) {
		t.Fatal("no record-audit link violation within seeds 1..400")
	}
}
