package relaxedlog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// memStore is the simulator's object store (sim.Store, the S3 the
// simulator serves) as an S3 client, every request applied at once.
type memStore struct{ s *sim.Store }

func newMemStore() memStore {
	s := sim.NewStore(sim.DialectAWS)
	s.CreateBucket("b")
	return memStore{s}
}

func (m memStore) GetObject(_ context.Context, in *s3.GetObjectInput, _ ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	return m.s.GetObject(sim.Epoch, in)
}

func (m memStore) PutObject(_ context.Context, in *s3.PutObjectInput, _ ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	body, err := io.ReadAll(in.Body)
	if err != nil {
		return nil, err
	}
	return m.s.PutObject(sim.Epoch, in, body)
}

func (m memStore) HeadObject(_ context.Context, in *s3.HeadObjectInput, _ ...func(*s3.Options)) (*s3.HeadObjectOutput, error) {
	return m.s.HeadObject(sim.Epoch, in)
}

func (m memStore) DeleteObject(_ context.Context, in *s3.DeleteObjectInput, _ ...func(*s3.Options)) (*s3.DeleteObjectOutput, error) {
	return m.s.DeleteObject(sim.Epoch, in)
}

func (m memStore) ListObjectsV2(_ context.Context, in *s3.ListObjectsV2Input, _ ...func(*s3.Options)) (*s3.ListObjectsV2Output, error) {
	return m.s.ListObjectsV2(sim.Epoch, in)
}

// put writes body at key unconditionally.
func (m memStore) put(t *testing.T, key string, body []byte) {
	t.Helper()
	if _, err := m.PutObject(context.Background(), &s3.PutObjectInput{Bucket: ptr("b"), Key: &key, Body: bytes.NewReader(body)}); err != nil {
		t.Fatal(err)
	}
}

func ptr(s string) *string { return &s }

// newTestClient is a client of cfg on a fresh memStore, with small pages.
func newTestClient(t *testing.T, cfg Config) (*Client, memStore) {
	t.Helper()
	m := newMemStore()
	cfg.PageSize = 3
	c, err := NewClient(cfg, "t", protocol.NewRealClock(), m, "b")
	if err != nil {
		t.Fatal(err)
	}
	return c, m
}

// message writes a message stamped at at into m, returning its key.
func message(t *testing.T, m memStore, at time.Time, name string) string {
	t.Helper()
	key := Default.DataPrefix(Default.BagOf(at)) + name
	m.put(t, key, encodeJSON(Message{Writer: name, Stamp: at, Leases: []Held{{"a", 1}}}))
	return key
}

// TestListPages: a listing follows continuation tokens over many pages,
// and starts after StartAfter, in key order.
func TestListPages(t *testing.T) {
	c, m := newTestClient(t, Default)
	var want []string
	for i := range 10 {
		want = append(want, message(t, m, t0.Add(time.Duration(i)*300*time.Millisecond), fmt.Sprintf("w-%02d", i)))
	}
	got, err := c.list(context.Background(), Default.Prefix, "")
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("list = %v, %v; want %v", got, err, want)
	}
	after := Default.dir(Default.BagOf(t0)) + "~"
	got, err = c.list(context.Background(), Default.Prefix, after)
	if err != nil || len(got) == 0 || got[0] <= after || !slices.Equal(got, want[len(want)-len(got):]) {
		t.Fatalf("list after %s = %v, %v", after, got, err)
	}
}

// TestCloseFreezesTheBag: Close lists the bag after its prelock and
// creates the lock object; a message that lands afterwards is not on it,
// and closing again (helping) returns the same list.
func TestCloseFreezesTheBag(t *testing.T) {
	c, m := newTestClient(t, Default)
	b := Default.BagOf(t0)
	in := message(t, m, t0, "w-1")
	items, err := c.Close(context.Background(), b)
	if err != nil || !slices.Equal(items, []string{in}) {
		t.Fatalf("Close = %v, %v", items, err)
	}
	if _, _, ok := m.s.Object("b", Default.PrelockObject(b)); !ok {
		t.Error("no prelock")
	}
	message(t, m, t0.Add(time.Millisecond), "w-2")
	again, err := c.Close(context.Background(), b)
	if err != nil || !slices.Equal(again, items) {
		t.Fatalf("Close again = %v, %v; want %v", again, err, items)
	}
	// A closer that finds another's prelock and lock object takes its list.
	other, err := NewClient(Default, "o", protocol.NewRealClock(), m, "b")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := other.Close(context.Background(), b); err != nil || !slices.Equal(got, items) {
		t.Fatalf("another closer's Close = %v, %v", got, err)
	}
}

// TestReaderHelpsAndSkips: a reader accepts an open bag's messages, helps
// close a bag it finds a prelock in (accepting the list), and lists only
// after the bags it found closed the next time.
func TestReaderHelpsAndSkips(t *testing.T) {
	c, m := newTestClient(t, Default)
	b0, b1 := Default.BagOf(t0), Default.BagOf(t0.Add(time.Second))
	k0 := message(t, m, t0, "w-1")
	k1 := message(t, m, t0.Add(time.Second), "w-2")
	m.put(t, Default.PrelockObject(b0), encodeJSON(prelock{Closer: "gone"}))
	r := NewReader(c)
	views, err := r.Read(context.Background())
	want := []BagView{{Bag: b0, Closed: true, Items: []string{k0}}, {Bag: b1, Items: []string{k1}}}
	if err != nil || len(views) != 2 || !slices.EqualFunc(views, want, func(a, b BagView) bool {
		return a.Bag == b.Bag && a.Closed == b.Closed && slices.Equal(a.Items, b.Items)
	}) {
		t.Fatalf("Read = %+v, %v; want %+v", views, err, want)
	}
	if _, _, ok := m.s.Object("b", Default.LockObject(b0)); !ok {
		t.Fatal("the reader did not help close the bag with a prelock")
	}
	if views, err = r.Read(context.Background()); err != nil || len(views) != 1 || views[0].Bag != b1 {
		t.Fatalf("second Read = %+v, %v; want only the open bag", views, err)
	}
	ms, err := r.Messages(context.Background())
	if err != nil || len(ms) != 2 || ms[0].Key != k0 || ms[1].Key != k1 || len(Domain(ms, "a")) != 2 || len(Domain(ms, "b")) != 0 {
		t.Fatalf("Messages = %+v, %v", ms, err)
	}
}

// TestLayout: a message's bag is its stamp's bucket, and every key of a
// bag reads back as what it is.
func TestLayout(t *testing.T) {
	at := time.Date(2030, 1, 1, 0, 0, 7, 999_999_999, time.UTC)
	b := Default.BagOf(at)
	if !b.Start().Equal(time.Date(2030, 1, 1, 0, 0, 7, 0, time.UTC)) {
		t.Errorf("BagOf(%v) starts at %v", at, b.Start())
	}
	for key, want := range map[string]keyKind{
		Default.DataPrefix(b) + "x": dataKey, Default.LockObject(b): lockKey, Default.PrelockObject(b): prelockKey,
		Default.DataPrefix(b): notBagKey, "leader.json": notBagKey, Default.Prefix + "123/lock": notBagKey,
	} {
		got, kind := Default.parse(key)
		if kind != want || (kind != notBagKey && got != b) {
			t.Errorf("parse(%q) = %v, %v; want %v", key, got, kind, want)
		}
	}
	if !Default.closable(b, b.Start().Add(Default.Bucket+Default.Grace)) || Default.closable(b, b.Start().Add(Default.Bucket+Default.Grace-1)) {
		t.Error("a bag is closable exactly Grace after its bucket")
	}
}

// TestValidate: every setting the design cannot run with is refused with
// a *protocol.ConfigError naming it.
func TestValidate(t *testing.T) {
	if err := Default.Validate(); err != nil {
		t.Fatal(err)
	}
	for field, edit := range map[string]func(c *Config){
		"Domains":     func(c *Config) { c.Domains = []string{"a", "a"} },
		"Bucket":      func(c *Config) { c.Bucket = 1500 * time.Microsecond },
		"Grace":       func(c *Config) { c.Grace = 2 * c.MaxOffset },
		"CloseJitter": func(c *Config) { c.CloseJitter = -1 },
		"WriteEvery":  func(c *Config) { c.ReadEvery = 0 },
		"Ahead":       func(c *Config) { c.PageSize = 0 },
	} {
		c := Default
		c.Domains = slices.Clone(c.Domains)
		edit(&c)
		var ce *protocol.ConfigError
		if err := c.Validate(); !errors.As(err, &ce) || ce.Field != field {
			t.Errorf("%s: Validate = %v", field, err)
		}
	}
	c := Default
	c.Elector.RenewDeadline = c.Elector.LeaseDuration
	if err := c.Validate(); err == nil {
		t.Error("elector settings the elector refuses are accepted")
	}
}
