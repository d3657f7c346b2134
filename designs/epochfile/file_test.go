package epochfile

import "testing"

func TestLayout(t *testing.T) {
	l := newLayout("", "leader.json")
	if got := l.key(42); got != "leader/lock_0000000042.json" {
		t.Errorf("key(42) = %q", got)
	}
	if e, ok := l.epoch(l.key(4_000_000_000)); !ok || e != 4_000_000_000 {
		t.Errorf("epoch of key(4e9) = %d, %v", e, ok)
	}
	for _, k := range []string{"leader/lock_42.json", "leader/lock_0000000000.json", "leader/lock_00000000x1.json",
		"other/lock_0000000001.json", "leader/lock_0000000001.txt", "leader.json"} {
		if e, ok := l.epoch(k); ok {
			t.Errorf("epoch(%q) = %d; want not a lock file", k, e)
		}
	}
	if got := newLayout("locks/epoch-", "x").key(1); got != "locks/epoch-0000000001.json" {
		t.Errorf("explicit prefix: %q", got)
	}
	// Zero padding makes S3's order (bytes) the epochs' order.
	if !(l.key(9) < l.key(10)) {
		t.Errorf("%s sorts after %s", l.key(9), l.key(10))
	}
}

func TestDecodeFile(t *testing.T) {
	f := lockFile{Epoch: 7, Holder: "n1", Nonce: "0123456789abcdef", ValidityMS: 6000, Expired: true, ExpiredBy: "n2"}
	got, ok := decodeFile(f.encode())
	if !ok || got != f {
		t.Errorf("round trip: %+v, %v; want %+v", got, ok, f)
	}
	for _, body := range []string{``, `{}`, `not json`, `{"validity_ms":0}`, `{"expired":true}`} {
		if _, ok := decodeFile([]byte(body)); ok {
			t.Errorf("decodeFile(%q) accepted", body)
		}
	}
	// The document's own body is a lock file.
	if g, ok := decodeFile([]byte(`{"validity_ms": 60000, "expired": false}`)); !ok || g.validity().Seconds() != 60 {
		t.Errorf("the document's body: %+v, %v", g, ok)
	}
}
