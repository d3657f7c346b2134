package linearizability

import (
	"net/http"
	"strings"
)

// fastPred is a set of reachable states of the key: absent, or present
// with the ETag of one of the versions. Versions named by the request (in
// a precondition or its answer) are listed in rel; other says whether the
// set holds the versions it does not name.
type fastPred struct {
	absent, other bool
	n             uint8
	rel           [3]fastRel
}

type fastRel struct {
	v  int32
	ok bool
}

// accepts reports whether the set holds the state "absent" (v < 0) or
// "present with version v".
func (p *fastPred) accepts(v int32) bool {
	if v < 0 {
		return p.absent
	}
	for _, r := range p.rel[:p.n] {
		if r.v == v {
			return r.ok
		}
	}
	return p.other
}

// Write conditions: in which states a write takes effect.
const (
	condNever   uint8 = iota // in none
	condAbsent               // only when the key is absent (If-None-Match: *)
	condIfMatch              // only when it holds one version (If-Match)
	condAny                  // always (no precondition)
	condPresent              // whenever the key is present (If-Match: *)
	condOdd                  // some other set: the checker does not decide
)

// evalPred returns the reachable states in which in gets the answer out
// (answer true) or, with answer false, takes effect.
func (c *fastChecker) evalPred(in *s3Input, out s3Output, answer bool) fastPred {
	if answer && (in.kind == s3Get || in.kind == s3Head) && in.ifMatch == "" && in.ifNoneMatch == "" {
		// What s3Apply says of a plain read, without asking it for
		// every state (TestFastPredShortcuts holds the two equal): 200
		// with the ETag of the object if there is one, 404 otherwise.
		switch {
		case out.status == http.StatusOK && out.code == "":
			p := fastPred{other: out.etag == fastOtherETag}
			if t := strings.Trim(out.etag, `"`); t != "" && t != "*" {
				if v, ok := c.byTrim[t]; ok {
					p.rel[0], p.n = fastRel{v: v, ok: c.versions[v].etag == out.etag}, 1
				}
			}
			return p
		case out.status == http.StatusNotFound && out.etag == "" &&
			((in.kind == s3Get && out.code == "NoSuchKey") || (in.kind == s3Head && out.code == "NotFound")):
			return fastPred{absent: true}
		}
	}
	if answer && in.kind == s3Put {
		// What s3Apply says of the puts the elector sends (the test
		// holds the two equal): a create succeeds on an absent key and
		// is refused otherwise; a put If-Match succeeds on the version
		// it names, is refused on another, and finds no key if absent;
		// a put without preconditions always succeeds.
		ok := s3Output{status: http.StatusOK, etag: in.bodyETag}
		refused := s3Output{status: http.StatusPreconditionFailed, code: "PreconditionFailed"}
		switch {
		case in.ifMatch == "" && in.ifNoneMatch == "*":
			return fastPred{absent: out == ok, other: out == refused}
		case in.ifMatch == "" && in.ifNoneMatch == "":
			return fastPred{absent: out == ok, other: out == ok}
		case in.ifNoneMatch == "" && in.ifMatch != "*":
			p := fastPred{absent: out == s3Output{status: http.StatusNotFound, code: "NoSuchKey"}, other: out == refused}
			if t := strings.Trim(in.ifMatch, `"`); t != "" && t != "*" {
				if v, found := c.byTrim[t]; found {
					p.rel[0], p.n = fastRel{v: v, ok: out == ok}, 1
				}
			}
			return p
		}
	}
	return c.evalPredSlow(in, out, answer)
}

// evalPredSlow is evalPred asking s3Apply about each state.
func (c *fastChecker) evalPredSlow(in *s3Input, out s3Output, answer bool) fastPred {
	test := func(s s3State) bool {
		got, next := s3Apply(s, in)
		if answer {
			return got.status == out.status && got.code == out.code && got.etag == out.etag
		}
		return next != s
	}
	p := fastPred{absent: test(s3State{}), other: test(s3State{present: true, etag: fastOtherETag})}
	named := [3]string{in.ifMatch, in.ifNoneMatch, ""}
	if answer {
		named[2] = out.etag
	}
	for _, e := range named {
		t := strings.Trim(e, `"`)
		if t == "" || t == "*" {
			continue
		}
		v, ok := c.byTrim[t]
		if !ok {
			continue
		}
		dup := false
		for _, r := range p.rel[:p.n] {
			dup = dup || r.v == v
		}
		if dup {
			continue
		}
		p.rel[p.n] = fastRel{v: v, ok: test(s3State{present: true, etag: c.versions[v].etag})}
		p.n++
	}
	return p
}

// only returns the one version p holds and nothing else, or -1.
func (c *fastChecker) only(p *fastPred) int32 {
	if p.absent {
		return -1
	}
	if p.other && len(c.versions) > int(p.n) {
		return -1
	}
	v := int32(-1)
	for _, r := range p.rel[:p.n] {
		if r.ok {
			if v >= 0 {
				return -1
			}
			v = r.v
		}
	}
	return v
}

// empty reports whether p holds no reachable state.
func (c *fastChecker) empty(p *fastPred) bool {
	if p.absent || (p.other && len(c.versions) > int(p.n)) {
		return false
	}
	for _, r := range p.rel[:p.n] {
		if r.ok {
			return false
		}
	}
	return true
}

// condOf classifies the set of states in which a write takes effect.
func (c *fastChecker) condOf(p *fastPred) (cond uint8, ver int32) {
	allRel, nOK := true, 0
	ver = -1
	for _, r := range p.rel[:p.n] {
		allRel = allRel && r.ok
		if r.ok {
			nOK++
			ver = r.v
		}
	}
	switch {
	case p.absent && p.other && allRel:
		return condAny, -1
	case p.absent && !p.other && nOK == 0:
		return condAbsent, -1
	case !p.absent && p.other && allRel:
		return condPresent, -1
	case !p.absent && !p.other && nOK == 0:
		return condNever, -1
	case !p.absent && !p.other && nOK == 1:
		return condIfMatch, ver
	}
	return condOdd, -1
}
