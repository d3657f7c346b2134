package protocol

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestRecordRoundTrip(t *testing.T) {
	at := time.Date(2025, 3, 23, 13, 52, 0, 123456789, time.UTC)
	for _, r := range []Record{
		{Holder: "a", Token: 1, LeaseDurationMS: 15000, AcquireTime: at, RenewTime: at, Nonce: "0123456789abcdef"},
		{
			Holder: "node-b", Token: 1 << 40, LeaseDurationMS: 1, AcquireTime: at, RenewTime: at.Add(time.Hour),
			Nonce: "ffffffffffffffff", Released: true,
			Previous: &PreviousTerm{Holder: "a", Token: 7, Nonce: "0000000000000000", Ended: EndedExpired},
		},
	} {
		body, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeRecord(body)
		if err != nil {
			t.Fatalf("decode %s: %v", body, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("round trip of %s:\n got %+v\nwant %+v", body, got, r)
		}
	}
}

func TestRecordWireFormat(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	r := Record{Holder: "a", Token: 2, LeaseDurationMS: 1500, AcquireTime: at, RenewTime: at, Nonce: "0123456789abcdef",
		Previous: &PreviousTerm{Holder: "b", Token: 1, Nonce: "fedcba9876543210", Ended: EndedReleased}}
	body, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"holder":"a","token":2,"leaseDurationMs":1500,"acquireTime":"2025-01-02T03:04:05Z",` +
		`"renewTime":"2025-01-02T03:04:05Z","nonce":"0123456789abcdef",` +
		`"previous":{"holder":"b","token":1,"nonce":"fedcba9876543210","ended":"released"}}`
	if string(body) != want {
		t.Errorf("encoded\n %s\nwant\n %s", body, want)
	}
}

func TestDecodeMalformedRecord(t *testing.T) {
	ok := `"holder":"a","token":3,"leaseDurationMs":1000,"nonce":"0123456789abcdef"`
	tests := []struct {
		name, body string
		jsonErr    bool // the encoding/json error is in the chain too
	}{
		{"empty", ``, true},
		{"not json", `lock held by a`, true},
		{"truncated", `{"holder":"a","tok`, true},
		{"wrong type", `{"holder":"a","token":"3","leaseDurationMs":1000,"nonce":"0123456789abcdef"}`, true},
		{"negative token", `{"holder":"a","token":-3,"leaseDurationMs":1000,"nonce":"0123456789abcdef"}`, true},
		{"no holder", `{"token":3,"leaseDurationMs":1000,"nonce":"0123456789abcdef"}`, false},
		{"token 0", `{"holder":"a","token":0,"leaseDurationMs":1000,"nonce":"0123456789abcdef"}`, false},
		{"no lease", `{"holder":"a","token":3,"nonce":"0123456789abcdef"}`, false},
		{"lease too long", `{"holder":"a","token":3,"leaseDurationMs":86400001,"nonce":"0123456789abcdef"}`, false},
		{"short nonce", `{"holder":"a","token":3,"leaseDurationMs":1000,"nonce":"0123"}`, false},
		{"upper-case nonce", `{"holder":"a","token":3,"leaseDurationMs":1000,"nonce":"0123456789ABCDEF"}`, false},
		{"previous token not lower", `{` + ok + `,"previous":{"holder":"b","token":3,"ended":"expired"}}`, false},
		{"previous ending unknown", `{` + ok + `,"previous":{"holder":"b","token":2,"ended":"vanished"}}`, false},
		{"previous without holder", `{` + ok + `,"previous":{"token":2,"ended":"expired"}}`, false},
	}
	for _, tt := range tests {
		_, err := DecodeRecord([]byte(tt.body))
		if !errors.Is(err, ErrMalformedRecord) {
			t.Errorf("%s: error %v does not wrap ErrMalformedRecord", tt.name, err)
			continue
		}
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		if got := errors.As(err, &syntax) || errors.As(err, &typ); got != tt.jsonErr {
			t.Errorf("%s: json error in chain = %v, want %v (%v)", tt.name, got, tt.jsonErr, err)
		}
	}
	if _, err := DecodeRecord([]byte(`{` + ok + `,"future":"field"}`)); err != nil {
		t.Errorf("unknown field rejected: %v", err)
	}
	if _, err := (Record{Holder: "a", Token: 1, LeaseDurationMS: 1}).Encode(); !errors.Is(err, ErrMalformedRecord) {
		t.Errorf("Encode of a record without nonce: %v", err)
	}
}
