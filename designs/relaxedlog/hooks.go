package relaxedlog

import (
	"time"

	"github.com/s3lease/s3lease/protocol"
)

// Hooks observe what a process of the design does, for a simulation's
// judges or a test. Every field may be nil. They are called on the
// process's goroutines at the instant the thing happens, and must return
// at once without waiting.
type Hooks struct {
	// Began and Ended: the process began or ended a term of domain's
	// lease (its OnStartedLeading began; its context ended).
	Began func(domain string, lease protocol.Lease)
	Ended func(domain string, token uint64)
	// Watermark: the process raised the watermark of domain's lease to w
	// (protocol.Elector.SetWatermark accepted it).
	Watermark func(domain string, token uint64, w time.Time)
	// Stamped: a message was stamped, just before its create is sent.
	Stamped func(m Message)
	// Settled: the writer's verdict on a message it sent: committed (its
	// readers accept it, and always will) or not (a closed bag left it
	// out, or the outcome is unknown).
	Settled func(m Message, committed bool)
	// Read: one reading of the bags, the bags it found in time order.
	Read func(views []BagView)
}

// BagView is one bag as one reading found it.
type BagView struct {
	Bag Bag
	// Closed reports that the bag's lock object decided Items (read, or
	// written by the reader's help); else the bag was open, no prelock
	// after the listing of its messages.
	Closed bool
	// Items are the keys of the messages readers accept from the bag,
	// sorted.
	Items []string
}
