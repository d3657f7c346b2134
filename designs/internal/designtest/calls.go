package designtest

import "github.com/s3lease/s3lease/sim"

// Call is one S3 request as a trace's typed events show it: its send, the
// instant S3 applied it, and its answer or its abandonment by the client.
type Call struct {
	// ID is the request's number in the run (Event.Call).
	ID uint64
	// Node is the node that sent it.
	Node int
	// Op, Key and Cond are its operation, object key and condition
	// ("If-None-Match:*", say), as sent.
	Op, Key, Cond string
	// Send is its send event.
	Send sim.Event
	// Apply is the event of S3 applying it, nil if it never arrived;
	// Return is its answer's arrival, nil if none arrived; Abandon is its
	// abandonment by the client, nil if the client never gave it up.
	Apply, Return, Abandon *sim.Event
}

// Applied reports whether S3 applied c, unfaulted, with status.
func (c *Call) Applied(status int) bool {
	return c.Apply != nil && c.Apply.Fault == sim.NoFault && c.Apply.Status == status
}

// Calls returns the S3 requests of a trace in the order they were sent.
func Calls(tr *sim.Trace) []*Call {
	byID := map[uint64]*Call{}
	var out []*Call
	for _, e := range tr.Events {
		switch e.Kind {
		case sim.EvS3Send:
			c := &Call{ID: e.Call, Node: e.Node, Op: e.Op, Key: e.Key, Cond: e.Cond, Send: e}
			byID[e.Call] = c
			out = append(out, c)
		case sim.EvS3Apply, sim.EvS3Return, sim.EvS3Abandon:
			c := byID[e.Call]
			if c == nil {
				continue
			}
			ev := e
			switch e.Kind {
			case sim.EvS3Apply:
				c.Apply = &ev
			case sim.EvS3Return:
				c.Return = &ev
			default:
				c.Abandon = &ev
			}
		}
	}
	return out
}
