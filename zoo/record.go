package zoo

import (
	"encoding/json"
	"math"
	"time"

	"github.com/s3lease/s3lease/faults"
)

// record is the JSON body of the lock object.
type record struct {
	Holder string `json:"holder"`
	Token  uint64 `json:"token"`
	// Nonce is fresh for every write, so no two bodies and no two ETags are
	// ever equal, and a writer recognises its own writes on a later read.
	Nonce   string `json:"nonce,omitempty"`
	LeaseMS int64  `json:"leaseMs"`
	// Released: the holder gave the lease up; anyone may take it at once,
	// with the next token.
	Released bool `json:"released,omitempty"`
	// Expires is the writer's wall clock plus its lease. Only the
	// wall-clock-expiry variant writes it, and only it reads it.
	Expires time.Time `json:"expires,omitzero"`
}

func (r record) lease() time.Duration { return time.Duration(r.LeaseMS) * time.Millisecond }

func (r record) encode() []byte {
	b, err := json.Marshal(r)
	if err != nil {
		panic("zoo: encode record: " + err.Error()) // a struct of plain fields always encodes
	}
	return b
}

// decodeRecord parses a body; ok is false for anything that is not a
// record that can be followed (someone else's object, a truncated body, a
// record holding the largest token, which no token can follow). A body
// that is JSON keeps what it holds in r, so that its lease, if any, is
// honoured.
func decodeRecord(body []byte) (r record, ok bool) {
	if json.Unmarshal(body, &r) != nil {
		return record{}, false
	}
	if r.Holder == "" || r.Token == 0 || r.Token == math.MaxUint64 || r.LeaseMS <= 0 {
		return r, false
	}
	return r, true
}

// encodeRecord writes a plan's record as the careful lock writes its own:
// the record's nonce, and a lease of the record's or else these settings'.
func (s settings) encodeRecord(r faults.Record) []byte {
	lease := r.Lease.D()
	if lease <= 0 {
		lease = s.LeaseDuration
	}
	return record{Holder: r.Holder, Token: r.Token, Nonce: r.Nonce(), LeaseMS: lease.Milliseconds(), Released: r.Released}.encode()
}
