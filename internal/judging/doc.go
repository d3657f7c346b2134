// Package judging holds what the judges of one run share: indexes of its
// history built once, while the harness judges it (Judging, Shared), and
// the record fields every judge reads the same way (ReadRecordFields):
// with encoding/json, or, for a body that differs from the body before it
// only in strings that cannot change those fields (a renewal's new time
// and nonce), from that body's reading (sameFieldsAs), which is
// json.Unmarshal's by a rule that needs no parser.
// It is the harness's and its protocols' judges' (harness, harness/elector),
// not a public API.
package judging
