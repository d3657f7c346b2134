package protocol

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// awaitPublished polls PublishedWatermark until it reaches at.
func awaitPublished(t *testing.T, n *testNode, token uint64, at time.Time) Watermark {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for time.Now().Before(deadline) {
		w, err := n.PublishedWatermark(token)
		if err != nil {
			t.Fatalf("PublishedWatermark: %v", err)
		}
		if !w.At.Before(at) {
			return w
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("watermark %v not published within %v", at, waitLimit)
	return Watermark{}
}

// A watermark published by one holder is handed to the next: after a
// release (the release carries the last watermark set, even one set after
// the leader context ended) and after a crash (the last renewal's), and a
// lower watermark never lowers it.
func TestWatermarkHandOver(t *testing.T) {
	for _, release := range []bool{true, false} {
		client := startFakeS3(t)
		cfgA := testConfig(t, client, "a")
		cfgA.ReleaseOnCancel = release
		a := startNode(t, cfgA, &leaders{})
		first := await(t, a.started, "a's term")
		if !first.Previous.At.IsZero() || first.Previous.Updates != "" {
			t.Errorf("first term handed %+v; want nothing", first.Previous)
		}
		w1 := Watermark{At: time.Date(2030, 1, 2, 3, 4, 5, 600, time.UTC), Updates: "s3://logs/a/"}
		if err := a.SetWatermark(first.Token, w1); err != nil {
			t.Fatal(err)
		}
		if err := a.SetWatermark(first.Token, Watermark{At: w1.At.Add(-time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if got := awaitPublished(t, a, first.Token, w1.At); !got.At.Equal(w1.At) || got.Updates != w1.Updates {
			t.Errorf("published %+v; want %+v", got, w1)
		}
		want := w1
		if release {
			// Set after the renewal, carried by the release only.
			want = Watermark{At: w1.At.Add(time.Second), Updates: "s3://logs/a2/"}
			if err := a.SetWatermark(first.Token, want); err != nil {
				t.Fatal(err)
			}
		}
		a.stop(t)
		b := startNode(t, testConfig(t, client, "b"), &leaders{})
		second := await(t, b.started, "b's term after a's")
		if !second.Previous.At.Equal(want.At) || second.Previous.Updates != want.Updates {
			t.Errorf("release %v: b was handed %+v; want %+v", release, second.Previous, want)
		}
		if rec := readRecord(t, client); rec.Previous == nil || !rec.Previous.Watermark.Equal(want.At) || !rec.Watermark.Equal(want.At) {
			t.Errorf("release %v: record %+v, previous %+v", release, rec, rec.Previous)
		}
		b.stop(t)
	}
}

func TestSetWatermarkErrors(t *testing.T) {
	client := startFakeS3(t)
	n := startNode(t, testConfig(t, client, "a"), &leaders{})
	lease := await(t, n.started, "a term")
	for _, tt := range []struct {
		token uint64
		w     Watermark
		want  error
	}{
		{lease.Token + 1, Watermark{At: time.Now()}, ErrNotLeading},
		{lease.Token, Watermark{At: time.Now(), Updates: strings.Repeat("x", MaxUpdatesLen+1)}, ErrInvalidWatermark},
		{lease.Token, Watermark{At: time.Now(), Updates: strings.Repeat("\xff", 300)}, ErrInvalidWatermark},
		{lease.Token, Watermark{At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, ErrInvalidWatermark},
	} {
		if err := n.SetWatermark(tt.token, tt.w); !errors.Is(err, tt.want) {
			t.Errorf("SetWatermark(%d, %v...): %v; want %v", tt.token, tt.w.At, err, tt.want)
		}
	}
	if _, err := n.PublishedWatermark(lease.Token + 1); !errors.Is(err, ErrNotLeading) {
		t.Errorf("PublishedWatermark of another token: %v", err)
	}
	n.stop(t)
}
