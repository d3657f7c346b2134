package faults

import (
	"math"
	"strings"
	"time"
)

// Record is a lock record written by someone other than the run's nodes,
// before the run (Plan.Initial) or during it (an overwrite): the protocol
// encodes it in its own format (harness.Protocol.EncodeRecord), with a
// nonce derived from its fields, so that the same Record is the same
// bytes.
type Record struct {
	Holder string `json:"holder"`
	Token  uint64 `json:"token"`
	// Lease is the lease the record states; 0: the protocol's own.
	Lease    Duration `json:"lease,omitempty"`
	Released bool     `json:"released,omitempty"`
	// Watermark and Updates are what the record publishes, for a protocol
	// whose records carry them (the production elector's watermark
	// hand-off); zero: nothing. A protocol without them leaves them out.
	Watermark time.Time `json:"watermark,omitzero"`
	Updates   string    `json:"updates,omitempty"`
	// Previous is the term the record links to, for a protocol whose
	// records link terms (the production elector's audit link); nil: none,
	// the first term of the object. A protocol without links leaves it
	// out.
	Previous *Previous `json:"previous,omitempty"`
}

// MaxNativeToken is the largest token a record may hold and still be one
// that electors could have written: beyond it the token space is nearly
// spent (2^63 acquisitions), and the elector refuses the largest token
// outright. A record with a larger token is a foreign write.
const MaxNativeToken = math.MaxUint64 / 2

// Native reports whether electors could have written r: a holder of at
// most MaxIdentityLen bytes, a token from 1 to MaxNativeToken, a lease of
// at most MaxLease (0: the protocol's own), updates of
// at most MaxUpdatesLen bytes, and a link, if any, that an elector writes
// (validLink). A record that is not native is a foreign write.
func (r Record) Native() bool {
	return r.Holder != "" && len(r.Holder) <= MaxIdentityLen && r.Token >= 1 && r.Token <= MaxNativeToken && r.Lease >= 0 && r.Lease.D() <= MaxLease &&
		len(r.Updates) <= MaxUpdatesLen && (r.Previous == nil || r.validLink())
}

// Object is the content of the lock object: a lock record in the
// protocol's format, or else raw bytes (Body, possibly empty).
type Object struct {
	Record *Record `json:"record,omitempty"`
	Body   string  `json:"body,omitempty"`
	// Spelling, if not zero, writes the record in another spelling of the
	// same JSON (Respell): keys in another order, whitespace, escapes.
	Spelling uint64 `json:"spelling,omitempty"`
	// Edit, if not zero, rewrites the record (after its spelling) as
	// another tool or an operator might leave it (Edit): a field's value
	// replaced or left out, a field twice, a name in other case, a field
	// added or removed, a string escaped throughout, every number
	// zero-padded, a link to a term before added. An edited record is
	// foreign.
	Edit uint64 `json:"edit,omitempty"`
	// Size, if not zero, brings the record's body (after its spelling and
	// its edit) to Size bytes with an unknown field (Pad): near the
	// largest body a protocol reads, or beyond it. No elector writes an
	// unknown field, so a padded record is foreign.
	Size int `json:"size,omitempty"`
}

// Foreign reports whether the object is one the electors could not have
// written: raw bytes, a record that is not Native, an edited or a padded
// one.
func (o *Object) Foreign() bool {
	return o != nil && (o.Record == nil || !o.Record.Native() || o.Edit != 0 || o.Size != 0)
}

// wideChars are characters of two, three and four bytes.
var wideChars = []struct {
	c string
	n int
}{{"é", 2}, {"€", 3}, {"💡", 4}}

// LongHolder is a holder longer than MaxIdentityLen that starts with
// prefix and ends in repeat copies of the character wideChars[char], laid
// so that byte MaxIdentityLen is byte into of the first copy (0: its
// first byte, a cut on a character boundary; else inside it, a cut that
// must step back); or, for into at least the character's length,
// exactly MaxIdentityLen bytes, ending in that character (the longest
// holder electors write).
func LongHolder(prefix string, char, into, repeat int) string {
	c := wideChars[char%len(wideChars)].c
	if into >= len(c) {
		return prefix + "-" + strings.Repeat("x", max(MaxIdentityLen-len(prefix)-1-len(c), 0)) + c
	}
	head := prefix + "-" + strings.Repeat("x", max(MaxIdentityLen-into-len(prefix)-1, 0))
	return head + strings.Repeat(c, max(repeat, 1))
}

// PadSize is the size a record is padded to (Object.Size), by kind: 0
// exactly MaxBodyLen, 1 by bytes less, 2 one byte more, 3 by bytes more.
func PadSize(kind, by int) int {
	switch kind % 4 {
	case 0:
		return MaxBodyLen
	case 1:
		return MaxBodyLen - by
	case 2:
		return MaxBodyLen + 1
	}
	return MaxBodyLen + 1 + by
}
