package harness_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sim"
)

// ownRead is a leader's read that checks a renewal answered 412 and shows
// one of the leader's own writes: Back writes back in its incarnation (1:
// the renewal itself).
type ownRead struct {
	Node, Back int
	At         time.Duration
	// Sent is how many writes the node had sent in its incarnation then.
	Sent int
}

// ownCheckReads finds, in a history, the reads by which leaders checked a
// renewal answered 412 and found one of their own writes of the current
// incarnation, by its ETag (the MD5 of the body, which S3 gives the same
// bytes whoever writes them). A node's writes are its PutObjects since its
// last restart, a write of the same bytes as the one before counted once
// (the SDK's retries).
func ownCheckReads(h *sim.History) []ownRead {
	leading := func(node int, at time.Duration) bool {
		for _, t := range h.Terms {
			if t.Node == node && t.Start <= at && (t.Open || at < t.End) {
				return true
			}
		}
		return false
	}
	restarted := func(node int, from, to time.Duration) bool {
		for _, f := range h.Faults {
			if f.Kind == string(faults.Restart) && f.Node == node && f.From > from && f.From <= to {
				return true
			}
		}
		return false
	}
	var out []ownRead
	for node := range h.Nodes {
		var writes []string
		var prev *sim.S3Op
		last := time.Duration(-1)
		for i := range h.S3 {
			op := &h.S3[i]
			if op.Node != node {
				continue
			}
			if restarted(node, last, op.Call) {
				writes, prev = nil, nil
			}
			last = op.Call
			switch op.Op {
			case sim.OpPutObject:
				if len(writes) == 0 || writes[len(writes)-1] != op.BodyETag {
					writes = append(writes, op.BodyETag)
				}
			case sim.OpGetObject:
				if prev != nil && prev.Op == sim.OpPutObject && prev.Status == 412 && prev.IfMatch != "" && op.Status == 200 && leading(node, prev.Call) {
					for k := 1; k <= len(writes); k++ {
						if writes[len(writes)-k] == op.ETag {
							out = append(out, ownRead{Node: node, Back: k, At: op.Call, Sent: len(writes)})
							break
						}
					}
				}
			}
			prev = op
		}
	}
	return out
}

// restoresOwn returns the restore-own faults of a history.
func restoresOwn(h *sim.History) []sim.FaultSpan {
	var out []sim.FaultSpan
	for _, f := range h.Faults {
		if f.Kind == string(faults.RestoreOwn) {
			out = append(out, f)
		}
	}
	return out
}

// TestRestoreOwnSixteenBack: a restore of the leader's 16th newest write,
// as its renewal lands, is what the read that checks that renewal shows;
// the elector, which remembers its last 16 writes, keeps leading on it,
// once it has sent more than that (so that its memory has forgotten some).
func TestRestoreOwnSixteenBack(t *testing.T) {
	p := elector.Protocol(elector.DefaultSettings)
	cfg := harness.World(7)
	plan := &faults.Plan{HealAt: faults.Duration(45 * time.Second),
		Events: []faults.Event{{Kind: faults.RestoreOwn, Role: faults.RoleRenewer, Back: 16, At: faults.Duration(30 * time.Second)}}}
	o, err := harness.RunSetup(harness.Setup{Config: cfg, Plan: plan, Protocol: p}, false)
	if err != nil {
		t.Fatal(err)
	}
	h := o.Result.History
	fs := restoresOwn(h)
	if len(fs) != 1 || fs[0].By != 16 || fs[0].Node != -1 {
		t.Fatalf("restore-own faults %v, want one on the lock object, 16 back", fs)
	}
	reads := ownCheckReads(h)
	if len(reads) != 1 || reads[0].Back != 16 || reads[0].At < fs[0].From {
		t.Fatalf("leaders' check reads showing their own writes: %+v, want one, 16 writes back, after the restore at %v", reads, fs[0].From)
	}
	if reads[0].Sent <= 17 {
		t.Fatalf("n%d had sent %d writes: too few for an elector that remembers 16 to have forgotten any", reads[0].Node, reads[0].Sent)
	}
	// The bytes restored are the leader's own, sent before.
	var restored string
	for _, op := range h.S3 {
		if op.Node == -1 && op.Op == sim.OpPutObject && op.Call == fs[0].From {
			restored = op.Body
		}
	}
	sentBefore := false
	for _, op := range h.S3 {
		if op.Node == reads[0].Node && op.Op == sim.OpPutObject && op.Body == restored && op.Call < fs[0].From {
			sentBefore = true
		}
	}
	if restored == "" || !sentBefore {
		t.Fatalf("restored %q, not a body n%d's writes stored before", restored, reads[0].Node)
	}
	if !leadsAt(h, reads[0].Node, reads[0].At+2*time.Second) {
		t.Errorf("n%d stepped down on its own write 16 back, which the elector remembers", reads[0].Node)
	}
	if o.Verdict != harness.Pass {
		t.Errorf("verdict %s: %v", o.Verdict, o.Violations)
	}
}

// leadsAt reports whether node is in a term at true time at.
func leadsAt(h *sim.History, node int, at time.Duration) bool {
	for _, t := range h.Terms {
		if t.Node == node && t.Start <= at && (t.Open || at < t.End) {
			return true
		}
	}
	return false
}

// restoreOwnSwarm is the elector's swarm.
var restoreOwnSwarm = harness.Swarm("test-restore-own", elector.Protocol(elector.DefaultSettings))

// TestSwarmRestoreOwnFires: the swarm draws restores of the leader's own
// writes on some seeds, and each that fires writes back the renewer's
// write exactly as many writes back as drawn, which its check read then
// shows. A reproducer of such a run, through JSON, replays it to the same
// trace hash.
func TestSwarmRestoreOwnFires(t *testing.T) {
	sc := restoreOwnSwarm
	drawn, fired, shown := 0, 0, 0
	replayed := false
	for seed := uint64(1); seed <= 400 && (shown < 3 || !replayed); seed++ {
		s := sc.Build(seed)
		var back int
		for _, e := range s.Plan.Events {
			if e.Kind == faults.RestoreOwn {
				back = e.Back
			}
		}
		if back == 0 {
			continue
		}
		drawn++
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		if o.Verdict != harness.Pass {
			t.Fatalf("seed %d: verdict %s: %v", seed, o.Verdict, o.Violations)
		}
		h := o.Result.History
		fs := restoresOwn(h)
		if len(fs) == 0 {
			continue
		}
		fired++
		if len(fs) != 1 || fs[0].By != int64(back) {
			t.Fatalf("seed %d: restore-own faults %v, want one %d back", seed, fs, back)
		}
		for _, r := range ownCheckReads(h) {
			if r.At >= fs[0].From && r.Back == back {
				shown++
				break
			}
		}
		if !replayed {
			replayed = true
			r := harness.ReproducerFor(restoreOwnSwarm, o)
			data, err := r.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			back, err := harness.LoadReproducer(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			again, err := back.Run(restoreOwnSwarm, false)
			if err != nil {
				t.Fatal(err)
			}
			if again.Result.Hash() != o.Result.Hash() {
				t.Fatalf("seed %d: the reproducer replays to trace hash %x, the run had %x", seed, again.Result.Hash(), o.Result.Hash())
			}
		}
	}
	t.Logf("restore-own drawn on %d seeds, fired on %d, shown to the leader as drawn on %d", drawn, fired, shown)
	if shown < 3 {
		t.Fatalf("restore-own drawn on %d seeds, fired on %d, its write shown to the leader's check read on %d; want 3", drawn, fired, shown)
	}
}
