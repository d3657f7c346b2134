package relaxedlog

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/s3lease/s3lease/sim"
)

// stored is what the S3 history shows of the bags: every message object
// S3 applied and every write of a lock object, by bag. The judges read it
// from the history alone (every PutObject S3 applied has its body there),
// decoding bodies with encoding/json, not with the design's code.
type stored struct {
	messages map[string]storedMessage
	bags     map[Bag]*storedBag
}

// storedMessage is one message object S3 applied.
type storedMessage struct {
	Message
	Node int
	At   time.Duration // when it was sent
}

// storedBag is one bag's objects.
type storedBag struct {
	data    []string     // keys of the message objects applied, sorted
	locks   []storedLock // writes of its lock object applied, in the order sent
	deleted []storedLock // deletes of its lock object applied (no items)
}

// storedLock is one write of a lock object.
type storedLock struct {
	Items []string // sorted
	Node  int
	At    time.Duration // when it was sent
}

// readStored reads the bags of cfg from h.
func readStored(cfg Config, h *sim.History) stored {
	s := stored{messages: map[string]storedMessage{}, bags: map[Bag]*storedBag{}}
	bag := func(b Bag) *storedBag {
		if s.bags[b] == nil {
			s.bags[b] = &storedBag{}
		}
		return s.bags[b]
	}
	for i := range h.S3 {
		op := &h.S3[i]
		b, kind := cfg.parse(op.Key)
		switch {
		case kind == dataKey && op.Op == "PutObject" && op.Body != "":
			var m Message
			if json.Unmarshal([]byte(op.Body), &m) != nil {
				continue // not a message: it counts for nothing
			}
			m.Key = op.Key
			s.messages[op.Key] = storedMessage{Message: m, Node: op.Node, At: op.Call}
			g := bag(b)
			g.data = append(g.data, op.Key)
		case kind == lockKey && op.Op == "PutObject" && op.Body != "":
			var l lockList
			_ = json.Unmarshal([]byte(op.Body), &l) // a body that does not decode lists nothing
			slices.Sort(l.Items)
			g := bag(b)
			g.locks = append(g.locks, storedLock{Items: l.Items, Node: op.Node, At: op.Call})
		case kind == lockKey && op.Op == "DeleteObject" && op.Status/100 == 2:
			g := bag(b)
			g.deleted = append(g.deleted, storedLock{Node: op.Node, At: op.Call})
		}
	}
	for _, g := range s.bags {
		slices.Sort(g.data)
	}
	return s
}

// order is the bags in time order.
func (s stored) order() []Bag { return slices.Sorted(maps.Keys(s.bags)) }

// closed reports whether b's lock object was written, and the list its
// last write holds: what readers accept from b at the end.
func (s stored) closed(b Bag) ([]string, bool) {
	g := s.bags[b]
	if g == nil || len(g.locks) == 0 {
		return nil, false
	}
	return g.locks[len(g.locks)-1].Items, true
}

// accepted is what readers accept from b at the end of the run: its lock
// object's list if it is closed, else every message in it.
func (s stored) accepted(b Bag) []string {
	if items, ok := s.closed(b); ok {
		return items
	}
	if g := s.bags[b]; g != nil {
		return g.data
	}
	return nil
}
