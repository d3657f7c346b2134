package sim

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// mixStrReference is the running hash's definition for a string: its
// length, then each eight bytes as a little-endian word, the last short
// word as if zero-padded. mixStr and hashEvent must agree with it: the
// hashes of traces must not change.
func mixStrReference(h uint64, s string) uint64 {
	h = mix(h, uint64(len(s)))
	for len(s) >= 8 {
		h = mix(h, uint64(s[0])|uint64(s[1])<<8|uint64(s[2])<<16|uint64(s[3])<<24|
			uint64(s[4])<<32|uint64(s[5])<<40|uint64(s[6])<<48|uint64(s[7])<<56)
		s = s[8:]
	}
	if len(s) > 0 {
		var w uint64
		for i := len(s) - 1; i >= 0; i-- {
			w = w<<8 | uint64(s[i])
		}
		h = mix(h, w)
	}
	return h
}

func TestTraceHashDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	str := func() string {
		b := make([]byte, r.IntN(41))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return string(b)
	}
	for range 5000 {
		h := r.Uint64()
		s := str()
		want := mixStrReference(h, s)
		if got := mixStr(h, s); got != want {
			t.Fatalf("mixStr(%x, %q) = %x, want %x", h, s, got, want)
		}
		if got := mixStr(h, []byte(s)); got != want {
			t.Fatalf("mixStr(%x, []byte(%q)) = %x, want %x", h, s, got, want)
		}
		e := Event{At: 5, Node: 1, Local: 7, Kind: EvS3Send, Call: 3, Op: str(), Key: str(), Cond: str(), Status: 412,
			Code: str(), ETag: str(), Token: 9, Detail: str(), Received: str(), Body: str()} // the last two are printing only
		if r.IntN(2) == 0 {
			e.Fault, e.For = FaultKind(1+r.IntN(int(numFaultKinds)-1)), 11
		}
		tr := newTrace(false)
		tr.hash = h
		tr.add(e)
		ref := h
		for _, v := range []uint64{uint64(e.At), uint64(int64(e.Node)), uint64(e.Local), uint64(e.Kind)<<32 | uint64(uint32(e.Status)), e.Call, e.Token} {
			ref = mix(ref, v)
		}
		for _, s := range []string{e.Op, e.Key, e.Cond, e.Code, e.ETag, e.Detail} {
			ref = mixStrReference(ref, s)
		}
		if e.Fault != NoFault {
			ref = mix(mixStrReference(ref, e.Fault.String()), uint64(e.For))
		}
		if tr.Hash() != ref {
			t.Fatalf("event %+v hashed to %x, want %x", e, tr.Hash(), ref)
		}
		c := newTrace(false)
		c.hash = h
		m, n := str(), str()
		ev := e
		ev.Cond = cond(&m, &n)
		c.addCond(e, &m, &n)
		ref2 := newTrace(false)
		ref2.hash = h
		ref2.add(ev)
		if c.Hash() != ref2.Hash() {
			t.Fatalf("addCond hashed %x, add of the rendered Cond %x", c.Hash(), ref2.Hash())
		}
	}
}

func BenchmarkTraceAdd(b *testing.B) {
	t := newTrace(false)
	e := Event{At: 123456789, Node: 2, Local: 987654321, Kind: EvS3Apply, Call: 77, Op: "GetObject", Key: "leader.json", Status: 200, ETag: `"55a3a9cbcfbeeee66591b5352682437c"`}
	for b.Loop() {
		t.add(e)
	}
}

// TestEventText: an answer prints the code the node received where it is
// not S3's, and a body only when bodies are asked for, as it is if it is
// one printable line, else quoted.
func TestEventText(t *testing.T) {
	e := Event{At: 2, Node: 0, Kind: EvS3Return, Call: 4, Op: OpGetObject, Status: 404, Code: "NoSuchKey", Received: "NotFound"}
	if got, want := e.String(), "    0.000000002s n0  [wall 0.000000000s] s3.return   #4 GetObject -> 404 NotFound"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	e = Event{Kind: EvS3Send, Call: 1, Op: OpPutObject, Key: "k", Body: `{"token":1}`}
	if got := e.String(); strings.Contains(got, "body=") {
		t.Errorf("a body printed without bodies: %q", got)
	}
	if got := e.Text(true); !strings.HasSuffix(got, ` key=k body={"token":1}`) {
		t.Errorf("with bodies: %q", got)
	}
	e.Body = "a\nb\x00"
	if got := e.Text(true); !strings.HasSuffix(got, ` body="a\nb\x00"`) {
		t.Errorf("an unprintable body: %q", got)
	}
}
