package epochfile

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"
)

// lockFile is the body of lock_<epoch>.json: the document's
// {"validity_ms", "expired"}, plus who wrote it and a nonce. The nonce is
// fresh for every write, so that no two bodies and no two ETags are equal
// (a touch changes the ETag followers time) and a writer recognises its
// own write after an answer it did not get.
type lockFile struct {
	Epoch      uint64 `json:"epoch"`
	Holder     string `json:"holder"`
	Nonce      string `json:"nonce"`
	ValidityMS int64  `json:"validity_ms"`
	Expired    bool   `json:"expired"`
	// ExpiredBy names a follower that marked the file expired once it had
	// stayed unchanged for a full validity (the safe form's takeover); it
	// is empty when the holder released it.
	ExpiredBy string `json:"expired_by,omitempty"`
}

func (f lockFile) validity() time.Duration { return time.Duration(f.ValidityMS) * time.Millisecond }

func (f lockFile) encode() []byte {
	b, err := json.Marshal(f)
	if err != nil {
		panic("epochfile: encode lock file: " + err.Error()) // plain fields always encode
	}
	return b
}

// decodeFile parses a body; ok is false for anything that is not a lock
// file (a truncated body, someone else's object).
func decodeFile(body []byte) (f lockFile, ok bool) {
	if json.Unmarshal(body, &f) != nil || f.ValidityMS <= 0 {
		return lockFile{}, false
	}
	return f, true
}

// epochDigits is the width of the epoch in a file name: zero-padded, so
// that S3's lexicographic listing order is the epochs' order.
const epochDigits = 10

// layout names the lock files of one election: "<prefix><epoch>.json".
type layout struct{ prefix string }

// newLayout returns the layout of prefix, or, for an empty prefix, of the
// lock object's key without its extension plus "/lock_".
func newLayout(prefix, key string) layout {
	if prefix == "" {
		prefix = strings.TrimSuffix(key, path.Ext(key)) + "/lock_"
	}
	return layout{prefix: prefix}
}

// key is the name of epoch's lock file.
func (l layout) key(epoch uint64) string {
	return fmt.Sprintf("%s%0*d.json", l.prefix, epochDigits, epoch)
}

// epoch parses a key listed under the prefix; ok is false for a key that is
// not a lock file of this layout.
func (l layout) epoch(key string) (uint64, bool) {
	s, ok := strings.CutPrefix(key, l.prefix)
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, ".json")
	if !ok || len(s) != epochDigits {
		return 0, false
	}
	e, err := strconv.ParseUint(s, 10, 64)
	if err != nil || e == 0 {
		return 0, false
	}
	return e, true
}
