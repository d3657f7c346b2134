package linearizability

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// TestS3TornReadIsLeftOut: a GetObject whose answer carried the body of
// one version and the ETag of another (S3Op.TornBodyETag) says nothing a
// state of the object explains, and is the store's fault: both checkers
// leave it out. Read by its ETag alone, this one (the ETag of a version
// replaced before it was sent) would make the history illegal.
func TestS3TornReadIsLeftOut(t *testing.T) {
	torn := get(at{1, 40, 50}, "a") // ETag of a, after b replaced it
	torn.TornBodyETag = etagOf("b") // ... with b's body
	h := s3History(put(at{0, 0, 10}, "a"), put(at{0, 20, 30}, "b"), torn)
	if r := CheckS3Fast(h); r.Verdict != FastOk || r.Ops != 2 {
		t.Errorf("fast checker: %s over %d requests (%s), want ok over 2", r.Verdict, r.Ops, r.Reason)
	}
	if r := CheckS3Porcupine(h, 10*time.Second); r.Result != porcupine.Ok || r.Ops != 2 {
		t.Errorf("porcupine: %s over %d requests, want ok over 2", r.Result, r.Ops)
	}
	torn.TornBodyETag = ""
	mustCheckS3(t, s3History(put(at{0, 0, 10}, "a"), put(at{0, 20, 30}, "b"), torn), "Illegal")
}
