package protocol

import (
	"testing"
	"time"
)

func BenchmarkTmpTime(b *testing.B) {
	q := []byte(`"2025-03-23T13:52:07.123456789Z"`)
	var t time.Time
	for b.Loop() {
		t.UnmarshalJSON(q)
		t.UnmarshalJSON(q)
	}
}

func BenchmarkTmpFastOnly(b *testing.B) {
	body, _ := benchRecord().Encode()
	b.ReportAllocs()
	for b.Loop() {
		decodeRecordFast(body)
	}
}

func BenchmarkTmpAlloc(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = new(PreviousTerm)
	}
}

func BenchmarkTmpBodies(b *testing.B) {
	for _, body := range []string{
		`{}`,
		`{"holder":"sim-node-3"}`,
		`{"holder":"sim-node-3","token":1234567,"leaseDurationMs":15000,"nonce":"0123456789abcdef"}`,
		`{"acquireTime":"2025-03-23T13:52:00.123456789Z","renewTime":"2025-03-23T13:52:07.123456789Z"}`,
		`{"previous":{"holder":"sim-node-1","token":1234566,"nonce":"fedcba9876543210","ended":"expired"}}`,
	} {
		b.Run(body[:min(len(body), 12)], func(b *testing.B) {
			for b.Loop() {
				decodeRecordFast([]byte(body))
			}
		})
	}
}

var sinkN int

func BenchmarkTmpScan(b *testing.B) {
	body, _ := benchRecord().Encode()
	for b.Loop() {
		n := 0
		for _, c := range body {
			if unmarshalsAsIs[c] {
				n++
			}
		}
		sinkN = n
	}
}

func BenchmarkTmpParseNoTime(b *testing.B) {
	body := []byte(`{"holder":"sim-node-3","token":1234567,"leaseDurationMs":15000,"acquireTime":"2025-03-23T13:52:00.123456789Z","renewTime":"2025-03-23T13:52:07.123456789Z","nonce":"0123456789abcdef","previous":{"holder":"sim-node-1","token":1234566,"nonce":"fedcba9876543210","ended":"expired"}}`)
	for b.Loop() {
		p := recordParser{b: body}
		var r Record
		var s stringSpans
		_ = p.object(recordKeys, func(key int) (ok bool) {
			switch key {
			case 0, 5, 3, 4:
				_, ok = p.str()
			case 1, 2:
				_, ok = p.uint64()
			case 6:
				r.Released, ok = p.bool()
			case 7:
				ok = p.previous(&PreviousTerm{}, &s)
			}
			return ok
		})
		_ = r
	}
}
