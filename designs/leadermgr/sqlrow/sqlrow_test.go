package sqlrow

import (
	"testing"
	"time"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 10, 123456789, time.UTC)

// TestNow: now() has PostgreSQL's resolution.
func TestNow(t *testing.T) {
	if got := Now(t0); got != time.Date(2030, 1, 1, 0, 0, 10, 123456000, time.UTC) {
		t.Fatalf("Now = %v", got)
	}
}

// TestWriteEntry: the document's upsert inserts a missing row, takes over
// an expired one (valid_until strictly before now()), renews a row naming
// the caller whatever its validity, and leaves a valid row of someone
// else's alone; it never modifies the row it is given.
func TestWriteEntry(t *testing.T) {
	now := Now(t0)
	row := func(id string, off time.Duration) *LeaderLock {
		return &LeaderLock{Key: "k", LeaderID: id, ValidUntil: now.Add(off)}
	}
	for _, tc := range []struct {
		name  string
		cur   *LeaderLock
		id    string
		wrote bool
	}{
		{"absent", nil, "a", true},
		{"expired, other", row("b", -time.Microsecond), "a", true},
		{"valid until now, other", row("b", 0), "a", false},
		{"valid, other", row("b", time.Second), "a", false},
		{"valid, same", row("a", time.Second), "a", true},
		{"expired, same", row("a", -time.Second), "a", true},
	} {
		var before LeaderLock
		if tc.cur != nil {
			before = *tc.cur
		}
		next, n := WriteEntry(tc.cur, "k", tc.id, 8, t0)
		switch {
		case tc.wrote && (n != 1 || next == tc.cur || *next != (LeaderLock{"k", tc.id, now.Add(8 * time.Second)})):
			t.Errorf("%s: %v, %d rows; want the row written, valid 8s from now()", tc.name, next, n)
		case !tc.wrote && (n != 0 || next != tc.cur):
			t.Errorf("%s: %v, %d rows; want nothing written", tc.name, next, n)
		case tc.cur != nil && *tc.cur != before:
			t.Errorf("%s: the given row was modified", tc.name)
		}
	}
}

func lease(holder string, token int64, nonce string, off time.Duration, released bool) *Lease {
	return &Lease{Name: "l", Holder: holder, Token: token, Nonce: nonce, TermMS: 6000, ValidUntil: Now(t0).Add(off), Released: released}
}

// TestAcquire: the acquiring statement inserts with token 1, takes over a
// released or expired row with its token + 1, and returns no token for a
// held one.
func TestAcquire(t *testing.T) {
	now := Now(t0)
	for _, tc := range []struct {
		name  string
		cur   *Lease
		token int64
	}{
		{"absent", nil, 1},
		{"expired", lease("b", 4, "x", -time.Microsecond, false), 5},
		{"released", lease("b", 4, "x", time.Second, true), 5},
		{"valid until now", lease("b", 4, "x", 0, false), 0},
		{"held by the caller", lease("a", 4, "x", time.Second, false), 0},
	} {
		next, token := Acquire(tc.cur, "l", "a", "n1", 2500, t0)
		want := Lease{Name: "l", Holder: "a", Token: tc.token, Nonce: "n1", TermMS: 2500, ValidUntil: now.Add(2500 * time.Millisecond)}
		if token != tc.token || tc.token > 0 && *next != want || tc.token == 0 && next != tc.cur {
			t.Errorf("%s: %v, token %d; want token %d", tc.name, next, token, tc.token)
		}
	}
}

// TestRenewRelease: renewal and release write only the row whose nonce
// the caller last saw, not released (renewal: its holder and token too),
// whatever its validity.
func TestRenewRelease(t *testing.T) {
	now := Now(t0)
	for _, tc := range []struct {
		name string
		cur  *Lease
		ok   bool
	}{
		{"as seen", lease("a", 3, "x", time.Second, false), true},
		{"as seen, expired", lease("a", 3, "x", -time.Second, false), true},
		{"other nonce", lease("a", 3, "y", time.Second, false), false},
		{"released", lease("a", 3, "x", time.Second, true), false},
		{"absent", nil, false},
	} {
		next, token := Renew(tc.cur, "l", "a", 3, "x", "n2", 6000, t0)
		if tc.ok != (token == 3) || tc.ok && (next.Nonce != "n2" || next.ValidUntil != now.Add(6*time.Second) || next.Token != 3) || !tc.ok && next != tc.cur {
			t.Errorf("renew %s: %v, token %d", tc.name, next, token)
		}
		next, token = Release(tc.cur, "l", "x", "n3", t0)
		if tc.ok != (token == 3) || tc.ok && (next.Nonce != "n3" || !next.Released || next.ValidUntil != now) || !tc.ok && next != tc.cur {
			t.Errorf("release %s: %v, token %d", tc.name, next, token)
		}
	}
	for name, cur := range map[string]*Lease{"other holder": lease("b", 3, "x", time.Second, false), "other token": lease("a", 4, "x", time.Second, false)} {
		if next, token := Renew(cur, "l", "a", 3, "x", "n2", 6000, t0); token != 0 || next != cur {
			t.Errorf("renew %s: %v, token %d", name, next, token)
		}
	}
}
