package protocol

import (
	"testing"

	"pgregory.net/rapid"
)

func TestTmpStats(t *testing.T) {
	var n, fast, ok int
	rapid.Check(t, func(t *rapid.T) {
		b := []byte(nearRecordBody().Draw(t, "body"))
		n++
		if _, f := decodeRecordFast(b); f {
			fast++
		}
		if _, err := decodeRecordJSON(b); err == nil {
			ok++
		}
	})
	t.Logf("n=%d fast=%d ok=%d", n, fast, ok)
	n, fast, ok = 0, 0, 0
	rapid.Check(t, func(t *rapid.T) {
		r := record().Draw(t, "r")
		n++
		b, err := r.Encode()
		if err == nil {
			ok++
			if _, f := decodeRecordFast(b); f {
				fast++
			}
		}
	})
	t.Logf("records n=%d encodeOK=%d fast=%d", n, ok, fast)
}
