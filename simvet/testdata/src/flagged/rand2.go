package flagged

import (
	crand "crypto/rand"
	"io"
	"math/rand/v2"
)

func moreRandom(b []byte) (int, string) {
	crand.Read(b)                  // want `crypto/rand.Read draws real randomness; take randomness from an io.Reader passed in`
	var r io.Reader = crand.Reader // want `crypto/rand.Reader draws real randomness`
	_ = r
	return rand.N(10), crand.Text() // want `math/rand/v2.N draws from the global generator` `crypto/rand.Text draws real randomness`
}
