package harness

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/protocol"
	"github.com/s3lease/s3lease/sim"
)

// Protocol is an election protocol as the harness runs it, described once:
// the candidate every node runs, the assumptions under which it promises
// that two leaders never overlap in true time, the bound within which it
// promises a leader once faults heal, and whether it hands out fencing
// tokens.
//
// The candidate is written against protocol.Clock and sim.S3Client (it
// receives them in sim.Env), so the code it runs is the code a user
// ships. It tells the simulated application when it leads by calling
// Env.Lead(ctx, token) and returning from it when its term ends, or, by
// callbacks, Env.StartLead and the function it returns.
type Protocol struct {
	// Name names the protocol in reports, and the swarm scenario that
	// Check and simrun register for it.
	Name string
	// Candidate is what every node runs.
	Candidate sim.Candidate
	// Assumptions are what the protocol needs of the world: its lease, the
	// clock drift, pause, offset and wall-clock step it tolerates, and
	// whether it tolerates stalls, foreign writes and lingering
	// applications. Runs outside them are still judged, less strictly.
	Assumptions protocol.Assumptions
	// LivenessBound is how long after faults heal a leader must be in
	// place; 0 promises nothing, and liveness is not judged.
	LivenessBound time.Duration
	// NoFencingTokens says the protocol hands out no fencing tokens (it
	// passes 0, or any constant, to Env.Lead). The token checkers
	// (unique-holder, monotonic-tokens, fencing) are then not run; at most
	// one leader at any true instant is still judged inside the
	// assumptions, and overlaps are reported outside them.
	NoFencingTokens bool
	// Configure, if set, makes the protocol with other settings (a swarm
	// plan's faults.Settings for a node): the swarm then draws settings
	// per node, and a plan that gives some runs each node with its own
	// (see Configured for the assumptions of a mix).
	Configure Configure
	// EncodeRecord, if set, writes a lock record in the protocol's own
	// format, for the records a plan puts in the lock object (its initial
	// content, overwrites); nil writes faults.EncodeRecord's generic form.
	EncodeRecord faults.RecordEncoder
	// Coverage, if set, declares the protocol's coverage points: named
	// sets of states, transitions or answers its candidate marks, through
	// Env.Coverage, as a run reaches them (see CoverageSet). Reports say
	// which points runs reached and which never; guided campaigns keep
	// the plans that reach new ones. Every run also gets the harness's
	// own set (RunShapes).
	Coverage []CoverageSet
	// RequestRate, if set, bounds how fast each node sends S3 requests, by
	// the protocol's own design (its waits between attempts): more than
	// RequestRate.Max requests from one node within any RequestRate.Window
	// of true time is a retry storm, judged Liveness whatever S3 answered.
	// Zero judges no rate.
	RequestRate linearizability.RequestRate
	// MaxIdentityLen, if positive, is the longest node identity the
	// protocol accepts, in bytes: the swarm then gives the nodes, on some
	// seeds, identities that a codec must carry exactly (quotes,
	// backslashes, non-ASCII, HTML and control characters, and names of
	// exactly this length; faults.Draw). Zero: nodes are n0, n1, ....
	// A plan that gives a node a longer identity, or one that is not
	// UTF-8, is a bad plan (ErrBadPlan), which RunSetup refuses.
	MaxIdentityLen int
	// AuditWrites, if set, judges what the nodes wrote to the lock object
	// in the protocol's own format: it reads the history's bodies (every
	// PutObject S3 applied has its sim.S3Op.Body) and returns a violation
	// for each write that does not say what its writer knew. node is the
	// protocol each node runs (Node: under a plan that gives nodes settings
	// of their own, its own settings'), for an audit that holds each
	// node's writes to its own settings (the lease a record states, say).
	// Its violations make a run Unsafe and are never excused: a node knows
	// what it writes whatever the faults.
	AuditWrites func(h *sim.History, node func(int) Protocol) []linearizability.Violation
	// Pace, if set, judges how soon node acted on what S3 answered it, by
	// the protocol's own design: clock is the node's clock model, which
	// turns the waits the protocol makes on its own clock into true time.
	// Its violations (Outcome.Violations, verdict Liveness) say that a
	// node waited longer than its design allows: it is slow, not unsafe.
	Pace func(h *sim.History, node int, clock sim.ClockModel) []linearizability.Violation
	// Answers, if set, judges what node's protocol told its application and
	// operators (sim.History.Answers: IsLeader, Lease, Leader, Healthy,
	// OnNewLeader), by the protocol's own contract, on the node's clock
	// model. wrong are answers that stated what was not so (a yes past a
	// term's deadline, a holder that did not hold): Unsafe, unless a fault
	// outside the assumptions on that node covers the answer's instant
	// (Excuse); slow are answers that failed to report or reported a
	// problem wrongly (Healthy): Liveness, as Pace's. Its violations are
	// of checker AnswerCheck.
	Answers func(h *sim.History, node int, clock sim.ClockModel) (wrong, slow []linearizability.Violation)
	// Nodes, if set, is the protocol each node runs where they differ:
	// node i runs Nodes[i%len(Nodes)] (Node). Configured sets one per node
	// for a plan that gives nodes settings of their own (node i runs
	// Configure of its settings, or what it runs without the plan); a
	// protocol whose nodes run different settings sets it itself. The
	// harness then holds each node to its own protocol's pause bound
	// (PauseBound) and request rate (RequestRateOf), tells AuditWrites
	// each node's protocol, and writes a plan's record that states no
	// lease with the longest of their leases (StatedLease). Candidate and
	// Pace stay the protocol's own: one that sets Nodes dispatches them by
	// node itself, as Configured does. Nil: every node runs this protocol.
	Nodes []Protocol
	// Key, if set, is the key of the lock object, for a protocol that
	// chooses its own: every run of the protocol puts it there
	// (sim.Config.Key, and Env.Key), so that what the plan does to the
	// lock object (its content before the run, foreign writes, deletes)
	// hits that object. Empty: the world's (World: "leader.json").
	Key string
	// S3ClientTimeout, if positive, is the nodes' S3 client timeout per
	// attempt in every run (sim.Config.S3ClientTimeout, as
	// http.Client.Timeout sets it), for a protocol that bounds its S3
	// calls that way rather than by contexts. 0: none.
	S3ClientTimeout time.Duration
	// Without names the generator's families (faults.Families) left out
	// of this protocol's runs, whichever entry point draws them (Check,
	// Fuzz, simrun's swarm, campaigns, guided campaigns): for chasing a
	// bug that other draws hide ("pages", "initial", ...). Validate
	// refuses a name that is not a family's.
	Without []string
	_       struct{}
}

// AnswerCheck is the checker of the violations Protocol.Answers returns.
const AnswerCheck = "answers"

// Node is the protocol node runs: Nodes[node%len(Nodes)], or p if Nodes
// is nil.
func (p Protocol) Node(node int) Protocol {
	if len(p.Nodes) == 0 || node < 0 {
		return p
	}
	return p.Nodes[node%len(p.Nodes)]
}
