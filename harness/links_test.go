package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// misreadingStore hands the elector every body it reads as a reader with
// the wrong rules would see it: misread rewrites it between S3 and the
// elector. What the elector then writes shows what it read.
type misreadingStore struct {
	sim.S3Client
	misread func([]byte) []byte
}

func (s misreadingStore) GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	out, err := s.S3Client.GetObject(ctx, in, opts...)
	if err != nil || out.Body == nil {
		return out, err
	}
	body, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, err
	}
	cp := *out
	cp.Body = io.NopCloser(bytes.NewReader(s.misread(body)))
	return &cp, nil
}

// withoutFields returns the JSON object body without the named fields
// for which drop says so; anything else as it is.
func withoutFields(body []byte, drop func(name string, value json.RawMessage, doc map[string]json.RawMessage) bool) []byte {
	var doc map[string]json.RawMessage
	if json.Unmarshal(body, &doc) != nil {
		return body
	}
	changed := false
	for name, v := range doc {
		if drop(name, v, doc) {
			delete(doc, name)
			changed = true
		}
	}
	if !changed {
		return body
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return body
	}
	return out
}

// The misreadings, as the mutants of the record format's rules read.
var (
	// ignoresLinkRules takes a record whose link breaks the format's rules
	// (a token not below the record's, an unknown ending, updates over the
	// limit) as valid: it reads such a link as absent.
	ignoresLinkRules = func(body []byte) []byte {
		return withoutFields(body, func(name string, v json.RawMessage, doc map[string]json.RawMessage) bool {
			var p protocol.PreviousTerm
			var token uint64
			if name != "previous" || json.Unmarshal(v, &p) != nil || json.Unmarshal(doc["token"], &token) != nil {
				return false
			}
			return p.Token >= token || p.Ended != protocol.EndedReleased && p.Ended != protocol.EndedExpired || len(p.Updates) > protocol.MaxUpdatesLen
		})
	}
	// readsPastTheLimit takes a body over 64 KiB as the record it holds.
	readsPastTheLimit = func(body []byte) []byte {
		if len(body) <= faults.MaxBodyLen {
			return body
		}
		return withoutFields(body, func(name string, _ json.RawMessage, _ map[string]json.RawMessage) bool { return name == "x-padding" })
	}
	// refusesNearTheLimit takes a body over 63 KiB as no record.
	refusesNearTheLimit = func(body []byte) []byte {
		if len(body) > 63<<10 {
			return []byte("{")
		}
		return body
	}
)

// misreadingSwarm is the elector's swarm with every body it reads
// misread.
func misreadingSwarm(name string, misread func([]byte) []byte) harness.Scenario {
	sc := harness.Swarm(name, harness.Elector(harness.DefaultElectorSettings))
	build := sc.Build
	sc.Build = func(seed uint64) harness.Setup {
		s := build(seed)
		s.Config.WrapStore = func(st sim.S3Client) sim.S3Client { return misreadingStore{st, misread} }
		return s
	}
	return sc
}

// lenientLinks is registered so that its reproducers run.
var lenientLinks = harness.MustRegister(misreadingSwarm("test-lenient-links", ignoresLinkRules))

// TestRecordAuditCatchesLinksToInvalidRecords: an elector that reads a
// record before the run by the wrong rules (a link the format refuses
// taken as valid, a body over 64 KiB read, one over 63 KiB refused) is
// judged unsafe by the record audit's link rule, on one of the first 15
// swarm seeds whose record before the run is such a body (seeds
// 1..6000): the takeover links where the format allows no link, or links
// to nothing where it requires one. The correct elector passes those
// seeds.
func TestRecordAuditCatchesLinksToInvalidRecords(t *testing.T) {
	plain := harness.Swarm("links-control", harness.Elector(harness.DefaultElectorSettings))
	for _, c := range []struct {
		name    string
		sc      harness.Scenario
		applies func(o *faults.Object) bool
	}{
		{"a link the format refuses taken as valid", lenientLinks, func(o *faults.Object) bool {
			r := o.Record
			return r.Previous != nil && r.Token <= faults.MaxNativeToken && o.Size <= faults.MaxBodyLen &&
				len(r.Updates) <= faults.MaxUpdatesLen && !r.Native()
		}},
		{"a body over 64 KiB read", misreadingSwarm("over-the-limit", readsPastTheLimit), func(o *faults.Object) bool {
			return o.Size > faults.MaxBodyLen && o.Record.Token <= faults.MaxNativeToken
		}},
		{"a body over 63 KiB refused", misreadingSwarm("near-the-limit", refusesNearTheLimit), func(o *faults.Object) bool {
			return o.Size > 63<<10 && o.Size <= faults.MaxBodyLen && o.Record.Token <= faults.MaxNativeToken
		}},
	} {
		tried, caught := 0, uint64(0)
		for seed := uint64(1); seed <= 6000 && tried < 15 && caught == 0; seed++ {
			o := harness.SwarmPlan(seed, 5, harness.Elector(harness.DefaultElectorSettings)).Initial
			if o == nil || o.Record == nil || o.Edit != 0 || !c.applies(o) {
				continue
			}
			tried++
			if ok, err := harness.RunSeed(plain, seed, false); err != nil || ok.Verdict != harness.Pass {
				t.Fatalf("%s: seed %d: the correct elector: %v %v", c.name, seed, ok.Verdict, err)
			}
			out, err := harness.RunSeed(c.sc, seed, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range out.Violations {
				if v.Checker == harness.RecordAuditCheck && v.Rule == harness.RuleRecordLink && out.Verdict == harness.Unsafe {
					t.Logf("%s: seed %d: %v", c.name, seed, v)
					caught = seed
					break
				}
			}
		}
		if caught == 0 {
			t.Errorf("%s: no record-audit link violation on %d seeds that draw such a body", c.name, tried)
		}
	}
}

// TestShrinkSimplifiesTheRecordBeforeTheRun: the shrinker takes from the
// record before the run what the failure does not need (its padding, what
// it publishes) and keeps what it does (the link the elector misreads).
func TestShrinkSimplifiesTheRecordBeforeTheRun(t *testing.T) {
	for seed := uint64(1); seed <= 6000; seed++ {
		plan := harness.SwarmPlan(seed, 5, harness.Elector(harness.DefaultElectorSettings))
		o := plan.Initial
		if o == nil || o.Record == nil || o.Edit != 0 || o.Size != 0 || o.Record.Previous == nil || o.Record.Native() ||
			o.Record.Token > faults.MaxNativeToken || len(o.Record.Holder) > faults.MaxIdentityLen || len(o.Record.Updates) > faults.MaxUpdatesLen {
			continue
		}
		// The same record, padded to the limit and publishing a watermark
		// and updates: none of it matters to the misreading.
		rec := *o.Record
		rec.Watermark, rec.Updates = rec.Previous.Watermark.Add(1), "log/padded"
		plan.Initial = &faults.Object{Record: &rec, Spelling: o.Spelling, Size: faults.MaxBodyLen}
		r := &harness.Reproducer{Version: harness.ReproVersion, Scenario: lenientLinks.Name, Seed: seed, Plan: plan}
		out, err := r.Run(false)
		if err != nil {
			t.Fatal(err)
		}
		if out.Verdict != harness.Unsafe {
			continue
		}
		sig := harness.SignatureOf(out)
		r.Expect = &sig
		small, _, err := harness.Shrink(r, 120)
		if err != nil {
			t.Fatal(err)
		}
		in := small.Plan.Initial
		if in == nil || in.Record == nil || in.Record.Previous == nil {
			t.Fatalf("seed %d: the shrunk plan lost the link the failure needs: %+v", seed, in)
		}
		if in.Size != 0 || !in.Record.Watermark.Equal(in.Record.Previous.Watermark) || in.Record.Updates != "" {
			t.Errorf("seed %d: the shrunk record keeps padding %d, watermark %v (handed %v), updates %q",
				seed, in.Size, in.Record.Watermark, in.Record.Previous.Watermark, in.Record.Updates)
		}
		if rec.Updates != "log/padded" || r.Plan.Initial.Size != faults.MaxBodyLen {
			t.Errorf("seed %d: shrinking changed the reproducer it was given", seed)
		}
		t.Logf("seed %d: shrunk to %+v", seed, *in.Record)
		return
	}
	t.Fatal("no seed of 1..6000 draws a link the misreading elector fails on")
}
