package zoo

import (
	"encoding/json"
	"time"
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
// record (someone else's object, a truncated body).
func decodeRecord(body []byte) (r record, ok bool) {
	if json.Unmarshal(body, &r) != nil || r.Holder == "" || r.Token == 0 || r.LeaseMS <= 0 {
		return record{}, false
	}
	return r, true
}
