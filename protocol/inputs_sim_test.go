package protocol_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
	"pgregory.net/rapid"
)

// name draws a name of 1 to limit bytes of UTF-8, as the simulator takes
// them: any characters, text JSON must escape, or exactly limit bytes that
// end in a character of several.
func name(limit int) *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.StringN(1, -1, limit),
		rapid.Map(rapid.SliceOfN(rapid.SampledFrom([]string{"a", "\x00", "\x1f", "<", "&", `"`, `\`, "é", "\u2028", "💡"}), 1, 40),
			func(parts []string) string { return strings.Join(parts, "") }),
		rapid.Map(rapid.IntRange(1, 2), func(k int) string {
			tail := []string{"é", "💡"}[k-1]
			return strings.Repeat("x", limit-len(tail)) + tail
		}),
	)
}

// updates draws a watermark's Updates: any bytes (mostly not UTF-8), any
// UTF-8, or text JSON must escape, up to a little past MaxUpdatesLen.
func updates() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.Map(rapid.SliceOfN(rapid.Byte(), 0, protocol.MaxUpdatesLen+4), func(b []byte) string { return string(b) }),
		rapid.StringN(0, -1, protocol.MaxUpdatesLen+4),
		rapid.Map(rapid.IntRange(0, 60), func(n int) string { return strings.Repeat(`"q" \ é <&> `, n) }),
	)
}

// watermarkTime draws a watermark's time: in the years 0 to 9999 or just
// beyond, in a zone whose offset may have seconds.
func watermarkTime() *rapid.Generator[time.Time] {
	return rapid.Custom(func(t *rapid.T) time.Time {
		sec := rapid.Int64Range(-62167219200-86400, 253402300799+86400).Draw(t, "sec")
		nsec := rapid.Int64Range(0, 999_999_999).Draw(t, "nsec")
		zone := time.FixedZone("", rapid.IntRange(-14*3600, 14*3600).Draw(t, "offset"))
		return time.Unix(sec, nsec).In(zone)
	})
}

// handOver is a run in which the first term publishes a watermark, and
// notes what the lock object holds once the renewal that carries it is
// due; the plan stops the leader after that, and the next term is handed
// what the first published.
type handOver struct {
	w         protocol.Watermark
	setErr    error              // what SetWatermark answered
	published protocol.Watermark // what the first term's last write carried
	noted     bool               // published is set
	leases    []protocol.Lease   // every term's, in the order they began
	_         struct{}
}

// candidate runs the production elector with settings s, whose
// application (the simulator's) is preceded, in the run's first term, by
// the publication of h.w.
func (h *handOver) candidate(s elector.Settings) sim.Candidate {
	return func(ctx context.Context, env sim.Env) error {
		cfg := s.Config(env)
		lead := cfg.Callbacks.OnStartedLeading
		var e *protocol.Elector
		cfg.Callbacks.OnStartedLeading = func(term context.Context, lease protocol.Lease) {
			h.leases = append(h.leases, lease)
			if len(h.leases) == 1 {
				// The next renewal, due within a renew interval, lands
				// within a request timeout, at most RenewDeadline/2.
				h.setErr = e.SetWatermark(lease.Token, h.w)
				env.Clock.Go(func() {
					if env.Clock.Sleep(term, published(s)) == nil {
						h.published, _ = e.PublishedWatermark(lease.Token)
						h.noted = true
					}
				})
			}
			lead(term, lease)
		}
		var err error
		if e, err = protocol.NewElector(cfg); err != nil {
			return err
		}
		elector.ReportLease(env, e)
		return e.Run(ctx)
	}
}

// published is how long after SetWatermark a renewal that carries the
// watermark has landed, in a world with no fault: the renewal in flight,
// and the next one, each sent within a renew interval and answered within
// a request timeout (at most RenewDeadline/2).
func published(s elector.Settings) time.Duration {
	return 2 * (s.Config(sim.Env{}).RenewInterval() + s.RenewDeadline/2)
}

// TestAcceptedInputsRunSafely: three electors, named by drawn identities
// (any UTF-8 up to MaxIdentityLen bytes, text JSON must escape), on a
// drawn bucket and key, with drawn settings NewElector accepts, run in the
// simulator; the first leader publishes a drawn watermark (any bytes, any
// time), and is stopped (the only fault, restarted a lease later) once
// that is published.
// SetWatermark refuses it exactly when
// its Updates are not UTF-8 or too long, or its time has no RFC 3339 form,
// with ErrInvalidWatermark; the run passes every checker (the record
// audit reads every record with encoding/json), the terms name the
// identities given, and the next leader is handed exactly what the first
// published.
func TestAcceptedInputsRunSafely(t *testing.T) {
	w0 := harness.World(1)
	w0.Nodes = 3
	roundTrip := w0.S3Request.Max + w0.S3Response.Max
	rapid.Check(t, func(t *rapid.T) {
		s := acceptedSettings(t, roundTrip, 20*time.Second)
		names := rapid.SliceOfNDistinct(name(protocol.MaxIdentityLen), 3, 3, rapid.ID).Draw(t, "identities")
		w := w0
		w.Seed = rapid.Uint64().Draw(t, "seed")
		w.Bucket = name(63).Draw(t, "bucket")
		w.Key = name(protocol.MaxKeyLen).Draw(t, "key")
		stopAt, down := faults.Duration(time.Second+published(s)), faults.Duration(s.LeaseDuration)
		w.Duration = (stopAt + down).D() + 3*s.LeaseDuration + 10*time.Second
		w.WriteInterval = max(w.WriteInterval, w.Duration/120)
		plan := &faults.Plan{Names: names, HealAt: stopAt + down,
			Events: []faults.Event{{Kind: faults.Stop, At: stopAt, For: down, Role: faults.RoleLeader}}}
		h := &handOver{w: protocol.Watermark{At: watermarkTime().Draw(t, "at"), Updates: updates().Draw(t, "updates")}}
		p := elector.Protocol(s)
		p.Candidate = h.candidate(s)
		o, err := harness.RunSetup(harness.Setup{Config: w, Plan: plan, Protocol: p}, false)
		if err != nil {
			t.Fatal(err)
		}
		_, marshalErr := h.w.At.UTC().MarshalJSON()
		valid := utf8.ValidString(h.w.Updates) && len(h.w.Updates) <= protocol.MaxUpdatesLen && marshalErr == nil
		switch {
		case valid && h.setErr != nil:
			t.Fatalf("SetWatermark(%v, %q): %v", h.w.At, h.w.Updates, h.setErr)
		case !valid && !errors.Is(h.setErr, protocol.ErrInvalidWatermark):
			t.Fatalf("SetWatermark(%v, %q) = %v; want ErrInvalidWatermark", h.w.At, h.w.Updates, h.setErr)
		case o.Verdict != harness.Pass:
			t.Fatalf("verdict %v: %v", o.Verdict, o.Violations)
		case len(h.leases) < 2 || !h.noted:
			t.Fatalf("%d terms (noted what the first published: %v); want the first leader's, and the next", len(h.leases), h.noted)
		}
		if err := identitiesKept(o.Result.History, names); err != nil {
			t.Fatal(err)
		}
		if got := h.leases[1].Previous; !got.At.Equal(h.published.At) || got.Updates != h.published.Updates {
			t.Fatalf("the second term was handed %+v; the first published %+v", got, h.published)
		}
		if valid && (h.published.Updates != h.w.Updates || h.w.At.After(time.Time{}) && !h.published.At.Equal(h.w.At)) {
			t.Fatalf("the first term published %+v; it was given %+v", h.published, h.w)
		}
	})
}

// identitiesKept reports a term whose identity is not its node's name.
func identitiesKept(h *sim.History, names []string) error {
	for _, term := range h.Terms {
		if term.Identity != names[term.Node] {
			return fmt.Errorf("n%d led as %q; it is named %q", term.Node, term.Identity, names[term.Node])
		}
	}
	return nil
}
