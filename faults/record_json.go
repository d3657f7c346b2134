package faults

import (
	"encoding/json"

	"github.com/s3lease/s3lease/sim"
)

// MarshalJSON writes the record with its token as a decimal string
// (sim.JSONToken), which readers whose numbers are float64 read exactly.
func (r Record) MarshalJSON() ([]byte, error) {
	type plain Record
	return json.Marshal(struct {
		plain
		Token sim.JSONToken `json:"token"`
	}{plain(r), sim.JSONToken(r.Token)})
}

// UnmarshalJSON reads a record whose token is a string or a number.
func (r *Record) UnmarshalJSON(b []byte) error {
	type plain Record
	s := struct {
		*plain
		Token sim.JSONToken `json:"token"`
	}{plain: (*plain)(r)}
	if err := sim.StrictUnmarshal(b, &s); err != nil {
		return err
	}
	r.Token = uint64(s.Token)
	return nil
}

// MarshalJSON writes the link with its token as a decimal string
// (sim.JSONToken).
func (p Previous) MarshalJSON() ([]byte, error) {
	type plain Previous
	return json.Marshal(struct {
		plain
		Token sim.JSONToken `json:"token"`
	}{plain(p), sim.JSONToken(p.Token)})
}

// UnmarshalJSON reads a link whose token is a string or a number.
func (p *Previous) UnmarshalJSON(b []byte) error {
	type plain Previous
	s := struct {
		*plain
		Token sim.JSONToken `json:"token"`
	}{plain: (*plain)(p)}
	if err := sim.StrictUnmarshal(b, &s); err != nil {
		return err
	}
	p.Token = uint64(s.Token)
	return nil
}
