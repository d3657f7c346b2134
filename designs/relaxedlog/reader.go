package relaxedlog

import (
	"cmp"
	"context"
	"maps"
	"slices"
)

// Reader assembles the log from the bags: a closed bag's messages are its
// lock object's list, an open bag's every message in it. It keeps what
// never changes: closed bags' lists and the messages it has read.
type Reader struct {
	c      *Client
	closed map[Bag][]string
	bodies map[string]Message
	// through is the last bag of the longest run of closed bags this
	// reader has read from the first: listings start after it.
	through Bag
}

// NewReader is a reader on client c.
func NewReader(c *Client) *Reader {
	return &Reader{c: c, closed: map[Bag][]string{}, bodies: map[string]Message{}, through: -1}
}

// bagKeys is what one listing shows of a bag.
type bagKeys struct {
	bag              Bag
	data             []string
	lock, prelockSet bool
}

// Read reads every bag it has not found closed before, in time order:
// one listing of every key under the prefix (page by page), then, per
// bag, its lock object if the listing shows one; else, if the listing
// shows a prelock, the reader helps close the bag (Client.Close) and
// takes the list; else the bag is open, and every message the listing
// showed in it counts. A prelock missing from the listing was missing
// after the listing of the bag's messages (it lists after them, on the
// same page or a later one), so every close lists them all.
func (r *Reader) Read(ctx context.Context) ([]BagView, error) {
	start := ""
	if r.through >= 0 {
		start = r.c.cfg.dir(r.through) + "~" // after every key of that bag
	}
	keys, err := r.c.list(ctx, r.c.cfg.Prefix, start)
	if err != nil {
		return nil, err
	}
	var bags []bagKeys
	for _, k := range keys {
		b, kind := r.c.cfg.parse(k)
		if kind == notBagKey {
			continue
		}
		if len(bags) == 0 || bags[len(bags)-1].bag != b {
			bags = append(bags, bagKeys{bag: b})
		}
		g := &bags[len(bags)-1]
		switch kind {
		case dataKey:
			g.data = append(g.data, k)
		case lockKey:
			g.lock = true
		case prelockKey:
			g.prelockSet = true
		}
	}
	var views []BagView
	run := true // every bag so far is closed
	for _, g := range bags {
		v, err := r.view(ctx, g)
		if err != nil {
			return nil, err
		}
		if v.Closed && run {
			r.through = g.bag
		}
		run = run && v.Closed
		views = append(views, v)
	}
	if f := r.c.Hooks.Read; f != nil {
		f(views)
	}
	return views, nil
}

// view decides what counts in one bag.
func (r *Reader) view(ctx context.Context, g bagKeys) (BagView, error) {
	if items, ok := r.closed[g.bag]; ok {
		return BagView{Bag: g.bag, Closed: true, Items: items}, nil
	}
	var items []string
	var err error
	switch {
	case g.lock:
		var ok bool
		if items, ok, err = r.c.lockList(ctx, g.bag); err == nil && !ok {
			items, err = r.c.Close(ctx, g.bag) // listed, then gone: not S3, but help anyway
		}
	case g.prelockSet:
		items, err = r.c.Close(ctx, g.bag)
	default:
		return BagView{Bag: g.bag, Items: g.data}, nil
	}
	if err != nil {
		return BagView{}, err
	}
	r.closed[g.bag] = items
	return BagView{Bag: g.bag, Closed: true, Items: items}, nil
}

// Messages reads the bags (Read) and returns every message that counts in
// every bag this reader knows, reading the bodies it has not read before,
// in stamp order (ties by key).
func (r *Reader) Messages(ctx context.Context) ([]Message, error) {
	views, err := r.Read(ctx)
	if err != nil {
		return nil, err
	}
	var items []string
	for _, b := range slices.Sorted(maps.Keys(r.closed)) {
		if b <= r.through {
			items = append(items, r.closed[b]...)
		}
	}
	for _, v := range views {
		if !v.Closed || v.Bag > r.through {
			items = append(items, v.Items...)
		}
	}
	var out []Message
	{
		for _, k := range items {
			m, ok := r.bodies[k]
			if !ok {
				o, err := r.c.kit.Read(ctx, k)
				if err != nil {
					return nil, err
				}
				if !o.Exists {
					continue // listed by a closer, never written: nothing to read
				}
				if m, err = DecodeMessage(k, o.Body); err != nil {
					return nil, err
				}
				r.bodies[k] = m
			}
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b Message) int {
		return cmp.Or(a.Stamp.Compare(b.Stamp), cmp.Compare(a.Key, b.Key))
	})
	return out, nil
}

// Domain is the messages of ms written under a lease of domain, in order.
func Domain(ms []Message, domain string) []Message {
	var out []Message
	for _, m := range ms {
		if _, ok := m.Token(domain); ok {
			out = append(out, m)
		}
	}
	return out
}
