package elector

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// decodeViolations judges protocol.DecodeRecord on every body the nodes'
// reads returned.
func (a *recordAudit) decodeViolations(h *sim.History) []linearizability.Violation {
	var out []linearizability.Violation
	for op := range answered(h) {
		if op.Op != "GetObject" {
			continue
		}
		etag := unquote(op.ETag)
		want, ok := a.read(etag)
		if !ok {
			continue // a body the history does not hold
		}
		if want.decodeJudged {
			continue
		}
		want.decodeJudged = true
		a.scratch = append(a.scratch[:0], a.bodies[etag]...)
		if why := decodedOtherwise(a.scratch, want); why != "" {
			out = append(out, auditViolation(RuleRecordDecode, op, op.Return, want.rec.Token,
				fmt.Sprintf("node %d read a body at %v that protocol.DecodeRecord %s: %.200q", op.Node, op.Return, why, a.bodies[etag])))
		}
	}
	return out
}

// decodedOtherwise returns how protocol.DecodeRecord reads body unlike
// want, the reference's reading, or "" if it reads it alike.
func decodedOtherwise(body []byte, want *auditedBody) string {
	got, err := protocol.DecodeRecord(body)
	if err == nil {
		return decodedValues(got, want)
	}
	var re *protocol.RecordError
	switch {
	case want.bad == "":
		return fmt.Sprintf("refused (%v), a valid record", err)
	case !errors.As(err, &re) || !errors.Is(err, protocol.ErrMalformedRecord):
		return fmt.Sprintf("refused with an error that names no rule (%v)", err)
	case re.Field != want.field:
		return fmt.Sprintf("refused for its %s (%v), but the first rule it breaks is its %s (%s)", re.Field, err, want.field, want.bad)
	}
	return ""
}

// decodedValues is decodedOtherwise of a body protocol.DecodeRecord read
// as got.
func decodedValues(got protocol.Record, want *auditedBody) string {
	switch {
	case want.bad != "":
		return fmt.Sprintf("took for a record, though it is none (%s)", want.bad)
	case !sameRecord(got, want.rec):
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want.rec)
		return fmt.Sprintf("read as %.200s, where the record is %.200s", g, w)
	}
	return ""
}

// sameRecord reports whether two records hold the same values, their
// times the same instants written with the same offsets.
func sameRecord(a, b protocol.Record) bool {
	return a.Holder == b.Holder && a.Token == b.Token && a.LeaseDurationMS == b.LeaseDurationMS &&
		sameTime(a.AcquireTime, b.AcquireTime) && sameTime(a.RenewTime, b.RenewTime) && a.Nonce == b.Nonce &&
		a.Released == b.Released && sameTime(a.Watermark, b.Watermark) && a.Updates == b.Updates &&
		samePrevious(a.Previous, b.Previous) && (a.Previous == nil || sameTime(a.Previous.Watermark, b.Previous.Watermark))
}

// sameTime reports whether a and b are one instant with one offset.
func sameTime(a, b time.Time) bool {
	_, ao := a.Zone()
	_, bo := b.Zone()
	return a.Equal(b) && ao == bo
}
