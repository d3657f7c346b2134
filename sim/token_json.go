package sim

import (
	"fmt"
	"strconv"
)

// JSONToken is a fencing token as the harness's JSON documents hold it:
// written as a decimal string ("18446744073709551615"), because a reader
// whose numbers are float64 (JavaScript, jq) reads a token above 2^53 as
// another, rounded one; read from such a string or from a JSON number, the
// form of documents written before tokens were text.
type JSONToken uint64

// MarshalJSON writes the token as a decimal string.
func (t JSONToken) MarshalJSON() ([]byte, error) {
	b := append(make([]byte, 0, 22), '"')
	b = strconv.AppendUint(b, uint64(t), 10)
	return append(b, '"'), nil
}

// UnmarshalJSON reads a decimal string or a number.
func (t *JSONToken) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("sim: token %s is no unsigned 64-bit integer, as a decimal string or a number", b)
	}
	*t = JSONToken(v)
	return nil
}
