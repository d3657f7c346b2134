package relaxedlog

import (
	"fmt"
	"time"

	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// ExpiryCheck is the checker of the leases' expiry: no message is stamped
// (RuleStampExpiry), and no watermark set (RuleWatermarkExpiry), at or past
// the expiry of a lease it is under, as its writer's clock read that
// expiry then: its wall-clock reading plus the monotonic time left until
// the term's local deadline. The deadline is the elector's rule, measured
// independently of the writer: the monotonic reading just before the send
// of the term's last write S3 applied (not a release), plus the elector's
// TermLength.
const ExpiryCheck = "below-expiry"

// The rules of ExpiryCheck.
const (
	RuleStampExpiry     = "stamp"
	RuleWatermarkExpiry = "watermark"
)

// termKey names one term of one process.
type termKey struct {
	node, incarnation int
	domain            string
	token             uint64
}

// deadlines are the local deadlines of every term whose writes l shows, on
// its process's monotonic clock.
func deadlines(cfg Config, h *sim.History, l *Log) map[termKey]time.Duration {
	applied := map[string]bool{}
	for i := range h.S3 {
		if op := &h.S3[i]; op.Op == "PutObject" && op.Body != "" {
			applied[op.BodyETag] = true
		}
	}
	out := map[termKey]time.Duration{}
	for _, s := range l.Sends {
		if s.Released || s.Token == 0 || !applied[s.ETag] {
			continue
		}
		k := termKey{s.Node, s.Incarnation, s.Domain, s.Token}
		out[k] = max(out[k], s.Mono+cfg.termLength())
	}
	return out
}

// checkExpiry judges every stamp and watermark of l.
func checkExpiry(cfg Config, h *sim.History, l *Log) []linearizability.Violation {
	ds := deadlines(cfg, h, l)
	var out []linearizability.Violation
	judge := func(who Who, r Readings, domain string, token uint64, at time.Time, rule, what string) {
		d, ok := ds[termKey{who.Node, who.Incarnation, domain, token}]
		if !ok {
			out = append(out, linearizability.Violation{Checker: ExpiryCheck, Rule: rule, At: who.At, Nodes: nodes(who.Node), Token: token,
				Message: fmt.Sprintf("n%d %s under term %d of domain %s, of which S3 applied no write", who.Node, what, token, domain)})
			return
		}
		if expiry := r.Wall.Add(d - r.Mono); !at.Before(expiry) {
			out = append(out, linearizability.Violation{Checker: ExpiryCheck, Rule: rule, At: who.At, Nodes: nodes(who.Node), Token: token,
				Message: fmt.Sprintf("n%d %s %s under term %d of domain %s, whose lease expires at %s by its clock (%v from then): not below the expiry",
					who.Node, what, stampText(at), token, domain, stampText(expiry), d-r.Mono)})
		}
	}
	for _, s := range l.Stamps {
		for _, held := range s.Message.Leases {
			judge(s.Who, s.Readings, held.Domain, held.Token, s.Message.Stamp, RuleStampExpiry, "stamped "+s.Message.Key)
		}
	}
	for _, w := range l.Watermarks {
		judge(w.Who, w.Readings, w.Domain, w.Token, w.At, RuleWatermarkExpiry, "set a watermark")
	}
	return out
}

// stampText writes a stamp as the messages carry it.
func stampText(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
