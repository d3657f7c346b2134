package live

import (
	"encoding/json"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// count fills in what the history shows of the phase: its requests, races,
// contests, reads racing writes, torn reads and terms.
func (p *PhaseStats) count(h *sim.History) {
	in := func(at time.Duration) bool { return at >= p.From && at < p.To }
	end := func(op *sim.S3Op) time.Duration {
		if op.Return < 0 {
			return h.End
		}
		return op.Return
	}
	atOnce := func(a, b *sim.S3Op) bool { return a.Call < end(b) && b.Call < end(a) }

	// Conditional writes by key and condition: creates under "*", If-Match
	// writes under their ETag.
	type contest struct{ key, cond string }
	groups := make(map[contest][]int)
	var order []contest // groups in order of first request, for a deterministic count
	for i := range h.S3 {
		op := &h.S3[i]
		if !in(op.Call) {
			continue
		}
		p.Requests++
		if op.TornBodyETag != "" {
			p.TornReads++
		}
		if op.Op != sim.OpPutObject || (op.IfMatch == "" && op.IfNoneMatch != "*") {
			continue
		}
		g := contest{op.Key, "if-match " + op.IfMatch}
		if op.IfMatch == "" {
			g.cond = "create"
		}
		if groups[g] == nil {
			order = append(order, g)
		}
		groups[g] = append(groups[g], i)
	}
	for _, g := range order {
		racing := 0
		for _, i := range groups[g] {
			a := &h.S3[i]
			for _, j := range groups[g] {
				if b := &h.S3[j]; b.Node != a.Node && atOnce(a, b) {
					racing++
					break
				}
			}
		}
		if racing == 0 {
			continue
		}
		if g.cond == "create" {
			p.CreationRaces++
			p.RacingCreates += racing
		} else {
			p.IfMatchContests++
			p.ContestedIfMatch += racing
		}
	}

	puts := make(map[string][]int) // every PutObject by key, from any phase
	for i := range h.S3 {
		if op := &h.S3[i]; op.Op == sim.OpPutObject {
			puts[op.Key] = append(puts[op.Key], i)
		}
	}
	for i := range h.S3 {
		r := &h.S3[i]
		if !in(r.Call) || r.Op != sim.OpGetObject || r.Return < 0 || r.Status != 200 {
			continue
		}
		for _, j := range puts[r.Key] {
			if atOnce(r, &h.S3[j]) {
				p.ReadsRacingWrites++
				break
			}
		}
	}
	for _, t := range h.Terms {
		if in(t.Start) {
			p.Terms++
		}
	}
}

// MarshalJSON writes the phase with camelCase names and times as text.
func (p PhaseStats) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Kind              PhaseKind   `json:"kind"`
		From              string      `json:"from"`
		To                string      `json:"to"`
		Rounds            int         `json:"rounds,omitempty"`
		Restarts          int         `json:"restarts,omitempty"`
		Crashes           int         `json:"crashes,omitempty"`
		Requests          int         `json:"requests"`
		CreationRaces     int         `json:"creationRaces"`
		RacingCreates     int         `json:"racingCreates"`
		IfMatchContests   int         `json:"ifMatchContests"`
		ContestedIfMatch  int         `json:"contestedIfMatch"`
		ReadsRacingWrites int         `json:"readsRacingWrites"`
		TornReads         int         `json:"tornReads"`
		Terms             int         `json:"terms"`
		Faults            FaultCounts `json:"faults"`
	}{p.Kind, p.From.String(), p.To.String(), p.Rounds, p.Restarts, p.Crashes, p.Requests, p.CreationRaces, p.RacingCreates,
		p.IfMatchContests, p.ContestedIfMatch, p.ReadsRacingWrites, p.TornReads, p.Terms, p.Faults})
}
