package relaxedlog

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// Log is what a run of the design leaves for its judges besides the S3
// history: what each process did and saw, at true time, with the readings
// of its own clocks where a judge needs them. A Recorder fills it.
type Log struct {
	// Terms are the terms of every domain as the processes saw them.
	Terms []LoggedTerm
	// Sends are the elector's writes of the lock objects, each with the
	// monotonic reading of its process just before it was sent.
	Sends []LoggedSend
	// Stamps are the messages stamped, Watermarks the watermarks set,
	// each with the wall and monotonic readings of its process then.
	Stamps     []LoggedStamp
	Watermarks []LoggedWatermark
	// Settled are the writers' verdicts, Reads the readers' readings.
	Settled []LoggedVerdict
	Reads   []LoggedRead
}

// Who is the process an entry of the log is of, and the true time of it.
type Who struct {
	Node, Incarnation int
	At                time.Duration
}

// LoggedTerm is one term of a domain's lease: from when its process was
// told (Began) to when its context ended (Ended; the end of the run if it
// never did).
type LoggedTerm struct {
	Who
	Domain     string
	Identity   string
	Token      uint64
	End        time.Duration
	Open       bool
	incomplete bool
}

// LoggedSend is one PutObject of a lock object by an elector.
type LoggedSend struct {
	Who
	Domain   string
	ETag     string
	Token    uint64
	Released bool
	Mono     time.Duration // the process's monotonic reading just before the send
}

// Readings are a process's clock readings at one instant.
type Readings struct {
	Wall time.Time
	Mono time.Duration
}

// LoggedStamp is one message stamped.
type LoggedStamp struct {
	Who
	Readings
	Message Message
}

// LoggedWatermark is one watermark set.
type LoggedWatermark struct {
	Who
	Readings
	Domain string
	Token  uint64
	At     time.Time
}

// LoggedVerdict is a writer's verdict on one of its messages.
type LoggedVerdict struct {
	Who
	Key       string
	Committed bool
}

// LoggedRead is one reading of the bags.
type LoggedRead struct {
	Who
	Views []BagView
}

// Recorder records one run's Log: its Start is the run's Config.Setup
// (chained), its Observe the candidate's observer. A Recorder serves one
// Setup, whose runs it records one after another.
type Recorder struct {
	cfg Config
	w   *sim.World
	mu  sync.Mutex
	log Log
}

// NewRecorder is a recorder for runs of cfg.
func NewRecorder(cfg Config) *Recorder { return &Recorder{cfg: cfg} }

// Start begins the record of a run of world w.
func (r *Recorder) Start(w *sim.World) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.w, r.log = w, Log{}
}

// Log is the record of the run, its open terms closed at the run's end.
func (r *Recorder) Log() *Log {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.log.Terms {
		if t := &r.log.Terms[i]; t.incomplete {
			t.End, t.Open, t.incomplete = r.w.Now(), true, false
		}
	}
	return &r.log
}

// add appends an entry under the recorder's lock.
func (r *Recorder) add(f func(l *Log)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.log)
}

// observe gives a process on env its hooks and the wrapper of its
// electors' stores.
func (r *Recorder) observe(env sim.Env) (Hooks, func(int, sim.S3Client) sim.S3Client) {
	who := func() Who { return Who{Node: env.Node, Incarnation: env.Incarnation, At: r.w.Now()} }
	read := func() Readings { return Readings{Wall: env.Clock.Now(), Mono: env.Clock.Monotonic()} }
	hooks := Hooks{
		Began: func(domain string, l protocol.Lease) {
			r.add(func(g *Log) {
				g.Terms = append(g.Terms, LoggedTerm{Who: who(), Domain: domain, Identity: env.Identity, Token: l.Token, incomplete: true})
			})
		},
		Ended: func(domain string, token uint64) {
			r.add(func(g *Log) {
				for i := len(g.Terms) - 1; i >= 0; i-- {
					if t := &g.Terms[i]; t.incomplete && t.Node == env.Node && t.Incarnation == env.Incarnation && t.Domain == domain && t.Token == token {
						t.End, t.incomplete = r.w.Now(), false
						return
					}
				}
			})
		},
		Watermark: func(domain string, token uint64, at time.Time) {
			r.add(func(g *Log) {
				g.Watermarks = append(g.Watermarks, LoggedWatermark{Who: who(), Readings: read(), Domain: domain, Token: token, At: at})
			})
		},
		Stamped: func(m Message) {
			r.add(func(g *Log) { g.Stamps = append(g.Stamps, LoggedStamp{Who: who(), Readings: read(), Message: m}) })
		},
		Settled: func(m Message, committed bool) {
			r.add(func(g *Log) {
				g.Settled = append(g.Settled, LoggedVerdict{Who: who(), Key: m.Key, Committed: committed})
			})
		},
		Read: func(views []BagView) {
			r.add(func(g *Log) { g.Reads = append(g.Reads, LoggedRead{Who: who(), Views: views}) })
		},
	}
	wrap := func(domain int, s sim.S3Client) sim.S3Client {
		return &sendRecorder{S3Client: s, r: r, env: env, domain: r.cfg.Domains[domain]}
	}
	return hooks, wrap
}

// sendRecorder notes every PutObject an elector sends, with its process's
// monotonic reading just before the send, and the token and release flag
// its body states (read with encoding/json, not with the elector's codec).
type sendRecorder struct {
	sim.S3Client
	r      *Recorder
	env    sim.Env
	domain string
}

func (s *sendRecorder) PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error) {
	if in != nil && in.Body != nil {
		body, err := io.ReadAll(in.Body)
		if err != nil {
			return nil, err
		}
		var rec struct {
			Token    uint64 `json:"token"`
			Released bool   `json:"released"`
		}
		_ = json.Unmarshal(body, &rec) // a body that does not decode states token 0, which no term has
		sum := md5.Sum(body)
		send := LoggedSend{Who: Who{Node: s.env.Node, Incarnation: s.env.Incarnation, At: s.r.w.Now()}, Domain: s.domain,
			ETag: `"` + hex.EncodeToString(sum[:]) + `"`, Token: rec.Token, Released: rec.Released, Mono: s.env.Clock.Monotonic()}
		s.r.add(func(g *Log) { g.Sends = append(g.Sends, send) })
		cp := *in
		cp.Body = bytes.NewReader(body)
		in = &cp
	}
	return s.S3Client.PutObject(ctx, in, opts...)
}
