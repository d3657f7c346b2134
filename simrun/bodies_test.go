package simrun

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/s3lease/s3lease/internal/schema"
)

// TestReplayBodies: replay -bodies prints the body of every PutObject sent
// and GetObject answered on its trace line, in text and in -json, and the
// same hash as without; without it, no body.
func TestReplayBodies(t *testing.T) {
	plain := simrunOK(t, nil, 0, "replay", "-scenario", "reference", "-seed", "1")
	bodies := simrunOK(t, nil, 0, "replay", "-scenario", "reference", "-seed", "1", "-bodies")
	if strings.Contains(plain, " body=") {
		t.Error("replay without -bodies prints bodies")
	}
	var sends, returns int
	for _, line := range strings.Split(bodies, "\n") {
		switch {
		case strings.Contains(line, "s3.send") && strings.Contains(line, "PutObject") && strings.Contains(line, ` body={"`):
			sends++
		case strings.Contains(line, "s3.return") && strings.Contains(line, "GetObject -> 200 body={"):
			returns++
		}
	}
	if sends == 0 || returns == 0 {
		t.Errorf("replay -bodies shows %d PutObject bodies sent and %d GetObject bodies answered", sends, returns)
	}
	hash := func(out string) string { _, h, _ := strings.Cut(out, "\nhash: "); return h }
	if hash(plain) == "" || hash(plain) != hash(bodies) {
		t.Errorf("hashes differ: %q and %q", hash(plain), hash(bodies))
	}
	for _, withBodies := range []bool{false, true} {
		args := []string{"replay", "-scenario", "reference", "-seed", "1", "-json"}
		if withBodies {
			args = append(args, "-bodies")
		}
		var doc schema.Replay
		if err := json.Unmarshal([]byte(simrunOK(t, nil, 0, args...)), &doc); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range doc.Events {
			if e.Body != "" {
				n++
			}
		}
		if (n > 0) != withBodies {
			t.Errorf("replay -json (-bodies %v): %d events with a body", withBodies, n)
		}
	}
}
