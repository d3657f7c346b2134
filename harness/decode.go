package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// RuleRecordDecode (RecordAuditCheck): protocol.DecodeRecord, with which
// the elector reads the lock object (and operators' tools read it too),
// read a body that a node read otherwise than the record format says: it
// took a body that is no valid record, refused a valid one, read other
// values, or named another rule than the first one the body breaks
// (protocol.RecordError.Field). The reference is readRecord's, with
// encoding/json; each body is judged once, at the first read that
// returned it.
const RuleRecordDecode = "decode"

// decodeViolations judges protocol.DecodeRecord on every body the nodes'
// reads returned.
func (a *recordAudit) decodeViolations(h *sim.History) []linearizability.Violation {
	var out []linearizability.Violation
	judged := map[string]bool{}
	for i := range h.S3 {
		op := &h.S3[i]
		if op.Node < 0 || op.Op != "GetObject" || op.Status != 200 || op.Return < 0 {
			continue
		}
		etag := unquote(op.ETag)
		if judged[etag] {
			continue
		}
		judged[etag] = true
		want, ok := a.read(etag)
		if !ok {
			continue // a body the history does not hold
		}
		if why := decodedOtherwise(a.bodies[etag], want); why != "" {
			out = append(out, linearizability.Violation{Checker: RecordAuditCheck, Rule: RuleRecordDecode, At: op.Return,
				Nodes: []int{op.Node}, Token: want.rec.Token,
				Message: fmt.Sprintf("node %d read a body at %v that protocol.DecodeRecord %s: %.200q", op.Node, op.Return, why, a.bodies[etag])})
		}
	}
	return out
}

// decodedOtherwise returns how protocol.DecodeRecord reads body unlike
// want, the reference's reading, or "" if it reads it alike.
func decodedOtherwise(body string, want *auditedBody) string {
	got, err := protocol.DecodeRecord([]byte(body))
	var re *protocol.RecordError
	switch {
	case err != nil && want.bad == "":
		return fmt.Sprintf("refused (%v), a valid record", err)
	case err == nil && want.bad != "":
		return fmt.Sprintf("took for a record, though it is none (%s)", want.bad)
	case err != nil && (!errors.As(err, &re) || !errors.Is(err, protocol.ErrMalformedRecord)):
		return fmt.Sprintf("refused with an error that names no rule (%v)", err)
	case err != nil && re.Field != want.field:
		return fmt.Sprintf("refused for its %s (%v), but the first rule it breaks is its %s (%s)", re.Field, err, want.field, want.bad)
	case err == nil:
		g, gerr := json.Marshal(got)
		w, werr := json.Marshal(want.rec)
		if gerr != nil || werr != nil || !bytes.Equal(g, w) {
			return fmt.Sprintf("read as %.200s, where the record is %.200s", g, w)
		}
	}
	return ""
}
