package schema

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

var camelCase = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)

// durationKeys are the names under which documents hold durations.
var durationKeys = map[string]bool{
	"at": true, "local": true, "for": true, "from": true, "to": true, "end": true,
	"wall": true, "duration": true, "healAt": true, "offset": true, "driftUntil": true,
	"perSeed": true, "s3Check": true, "simulated": true, "slowMax": true,
	"medianCatch": true, "maxCatch": true, "lease": true, "renewDeadline": true, "retryPeriod": true,
	"requestTimeout": true, "work": true, "checkedAt": true, "applied": true,
}

// Conventions walks a decoded document (encoding/json into an any) and
// returns where it breaks the conventions every document keeps: field
// names in camelCase, durations as text ("1.5s"), fencing tokens as
// decimal strings, violations as objects with a checker, a message and
// their nodes as a list.
func Conventions(doc any) []string {
	var problems []string
	walkConventions(doc, &problems)
	return problems
}

func walkConventions(v any, problems *[]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if !camelCase.MatchString(k) {
				*problems = append(*problems, fmt.Sprintf("field %q is not camelCase", k))
			}
			if durationKeys[k] {
				s, ok := e.(string)
				if _, err := time.ParseDuration(s); !ok || err != nil {
					*problems = append(*problems, fmt.Sprintf("%q is %v, not a duration as text", k, e))
				}
			}
			switch k {
			case "token":
				checkToken(e, problems)
			case "tokens":
				if list, ok := e.([]any); ok { // not a count ("tokens": 3) or a flag
					for _, x := range list {
						checkToken(x, problems)
					}
				}
			case "violation":
				checkViolation(e, problems)
			case "violations":
				list, ok := e.([]any)
				if !ok {
					*problems = append(*problems, fmt.Sprintf("violations are %T, not a list", e))
				}
				for _, x := range list {
					checkViolation(x, problems)
				}
			}
			walkConventions(e, problems)
		}
	case []any:
		for _, e := range v {
			walkConventions(e, problems)
		}
	}
}

// checkToken checks that a token is a decimal string.
func checkToken(v any, problems *[]string) {
	s, ok := v.(string)
	if _, err := strconv.ParseUint(s, 10, 64); !ok || err != nil {
		*problems = append(*problems, fmt.Sprintf("token %v is not a decimal string", v))
	}
}

func checkViolation(v any, problems *[]string) {
	m, ok := v.(map[string]any)
	if !ok {
		*problems = append(*problems, fmt.Sprintf("a violation is %T (%v), not an object", v, v))
		return
	}
	if _, ok := m["nodes"].([]any); !ok || m["checker"] == nil || m["message"] == nil {
		*problems = append(*problems, fmt.Sprintf("violation %v lacks a checker, a message or a list of nodes", m))
	}
}
