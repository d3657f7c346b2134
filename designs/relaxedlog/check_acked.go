package relaxedlog

import (
	"fmt"
	"slices"

	"github.com/s3lease/s3lease/linearizability"
)

// AckedCheck is the checker of acknowledgements: every message a writer
// reported committed is accepted by readers at the end of the run: its
// object exists (else RuleNeverWritten), and its bag is open or its lock
// object lists it (else RuleLeftOut).
const AckedCheck = "acked-kept"

// The rules of AckedCheck.
const (
	RuleNeverWritten = "never-written"
	RuleLeftOut      = "left-out"
)

// checkAcked judges every committed verdict of l against the bags as the
// history leaves them.
func checkAcked(cfg Config, s stored, l *Log) []linearizability.Violation {
	var out []linearizability.Violation
	for _, v := range l.Settled {
		if !v.Committed {
			continue
		}
		b, _ := cfg.parse(v.Key)
		if _, ok := s.messages[v.Key]; !ok {
			out = append(out, linearizability.Violation{Checker: AckedCheck, Rule: RuleNeverWritten, At: v.At, Nodes: nodes(v.Node),
				Message: fmt.Sprintf("n%d reported %s committed, and S3 never applied its create", v.Node, v.Key)})
			continue
		}
		if items, closed := s.closed(b); closed {
			if _, ok := slices.BinarySearch(items, v.Key); !ok {
				g := s.bags[b]
				closer := g.locks[len(g.locks)-1]
				out = append(out, linearizability.Violation{Checker: AckedCheck, Rule: RuleLeftOut, At: v.At, Nodes: nodes(v.Node, closer.Node),
					Message: fmt.Sprintf("n%d reported %s committed, and the bag's lock object (by n%d, sent at %v) leaves it out: "+
						"an acknowledged message is lost", v.Node, v.Key, closer.Node, closer.At)})
			}
		}
	}
	return out
}
