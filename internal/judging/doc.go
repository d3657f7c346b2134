// Package judging holds what the judges of one run share: indexes of its
// history built once, while the harness judges it (Judging, Shared), and
// the record fields every judge reads the same way (ReadRecordFields).
// It is the harness's and its protocols' judges' (harness, harness/elector),
// not a public API.
package judging
