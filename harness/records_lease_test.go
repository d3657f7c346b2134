package harness_test

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// leaseRun runs p for 40 s on five nodes whose leader is stopped, and
// restarted, every 6 s, so that several nodes write records.
func leaseRun(t *testing.T, p harness.Protocol, settings []faults.Settings) *harness.Outcome {
	t.Helper()
	cfg := harness.World(3)
	cfg.Duration = 40 * time.Second
	plan := &faults.Plan{HealAt: faults.Duration(30 * time.Second), Settings: settings}
	for at := 4 * time.Second; at < 28*time.Second; at += 6 * time.Second {
		plan.Events = append(plan.Events, faults.Event{Kind: faults.Stop, Role: faults.RoleLeader, At: faults.Duration(at), For: faults.Duration(time.Second)})
	}
	o, err := harness.RunSetup(harness.Setup{Config: cfg, Plan: plan, Protocol: p}, false)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// writers counts the nodes that wrote the lock object in o's run.
func writers(o *harness.Outcome) int {
	seen := map[int]bool{}
	for _, op := range o.Result.History.S3 {
		if op.Op == "PutObject" && op.Node >= 0 && op.Body != "" {
			seen[op.Node] = true
		}
	}
	return len(seen)
}

// leaseViolations counts o's record-audit violations of the lease rule,
// and renders the first.
func leaseViolations(o *harness.Outcome) (int, string) {
	n, first := 0, ""
	for _, v := range append(o.Violations, excusedViolations(o)...) {
		if v.Checker == harness.RecordAuditCheck && v.Rule == harness.RuleRecordLease {
			if n == 0 {
				first = v.String()
			}
			n++
		}
	}
	return n, first
}

func excusedViolations(o *harness.Outcome) []linearizability.Violation {
	var out []linearizability.Violation
	for _, e := range o.Excused {
		out = append(out, e.Violation)
	}
	return out
}

// subMillis are elector settings whose leases are a nanosecond over, and a
// nanosecond under, whole milliseconds.
var subMillis = []harness.ElectorSettings{
	{LeaseDuration: 3*time.Second + time.Nanosecond, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond, ClockDriftPPM: 1000},
	{LeaseDuration: 5*time.Second - time.Nanosecond, RenewDeadline: 3 * time.Second, RetryPeriod: 700 * time.Millisecond, ClockDriftPPM: 1000},
	{LeaseDuration: 4*time.Second + 999_999*time.Nanosecond, RenewDeadline: 3 * time.Second, RetryPeriod: 600 * time.Millisecond, ClockDriftPPM: 1000},
}

// TestRecordAuditHoldsEachNodeToItsLease: nodes that run leases with
// nanosecond remainders, each its own (ElectorNodes, or a plan's settings
// through Configured), state them rounded up to whole milliseconds, and
// the audit holds each node's records to its own lease: judged by the
// settings of the other nodes, the same records break the lease rule.
func TestRecordAuditHoldsEachNodeToItsLease(t *testing.T) {
	for _, s := range subMillis {
		if err := s.Validate(); err != nil {
			t.Fatalf("settings %+v: %v", s, err)
		}
	}
	p := harness.ElectorNodes(subMillis...)
	o := leaseRun(t, p, nil)
	if writers(o) < 2 {
		t.Fatalf("%d nodes wrote records; want at least 2", writers(o))
	}
	if n, first := leaseViolations(o); n != 0 {
		t.Errorf("ElectorNodes: %d lease violations of the correct elector, the first %s", n, first)
	}
	swapped := p
	swapped.AuditWrites = harness.ElectorNodes(subMillis[1], subMillis[2], subMillis[0]).AuditWrites
	if n, _ := leaseViolations(leaseRun(t, swapped, nil)); n == 0 {
		t.Error("ElectorNodes judged by the other nodes' leases: no lease violation")
	}

	var settings []faults.Settings
	for node := range 5 {
		settings = append(settings, subMillis[(node+1)%len(subMillis)].Plan(node))
	}
	base := harness.Elector(harness.DefaultElectorSettings)
	o = leaseRun(t, base, settings)
	if writers(o) < 2 {
		t.Fatalf("%d nodes wrote records; want at least 2", writers(o))
	}
	if n, first := leaseViolations(o); n != 0 {
		t.Errorf("plan settings: %d lease violations of the correct elector, the first %s", n, first)
	}
	// The same settings, each node judged as the default elector (its
	// records by the default lease) while it runs its own.
	swapped = base
	swapped.Configure = func(fs faults.Settings) (harness.Protocol, error) {
		q, err := base.Configure(fs)
		judged := base
		judged.Candidate = q.Candidate
		return judged, err
	}
	if n, _ := leaseViolations(leaseRun(t, swapped, settings)); n == 0 {
		t.Error("plan settings judged by the default lease: no lease violation")
	}
}

// shortLimitStore hands the elector every record it reads that states a
// lease of more than 23 hours as one stating a millisecond more than 24
// hours: what an elector whose longest lease is 23 hours makes of it (a
// malformed record), put between S3 and the elector.
type shortLimitStore struct{ sim.S3Client }

var leaseField = regexp.MustCompile(`"leaseDurationMs"(\s*):(\s*)(\d+)`)

func (s shortLimitStore) GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error) {
	out, err := s.S3Client.GetObject(ctx, in, opts...)
	if err != nil || out.Body == nil {
		return out, err
	}
	body, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, err
	}
	body = leaseField.ReplaceAllFunc(body, func(m []byte) []byte {
		ms, err := strconv.ParseInt(string(leaseField.FindSubmatch(m)[3]), 10, 64)
		if err != nil || ms <= 23*60*60*1000 {
			return m
		}
		return []byte(`"leaseDurationMs":86400001`)
	})
	cp := *out
	cp.Body = io.NopCloser(bytes.NewReader(body))
	return &cp, nil
}

// TestRecordAuditSeesRefusedLongLeases: an elector that refuses a record
// stating a valid lease of more than 23 hours (up to 24) as malformed
// takes it over without the link the record calls for, which the record
// audit judges unsafe within the swarm's first 600 seeds (records of such
// leases before the run, on seeds with foreign writes).
func TestRecordAuditSeesRefusedLongLeases(t *testing.T) {
	sc := harness.Swarm("long-lease-test", harness.Elector(harness.DefaultElectorSettings))
	build := sc.Build
	sc.Build = func(seed uint64) harness.Setup {
		s := build(seed)
		s.Config.WrapStore = func(st sim.S3Client) sim.S3Client { return shortLimitStore{st} }
		return s
	}
	for seed := uint64(1); seed <= 600; seed++ {
		o, err := harness.RunSeed(sc, seed, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range o.Violations {
			if v.Checker == harness.RecordAuditCheck && v.Rule == harness.RuleRecordLink && o.Verdict == harness.Unsafe {
				t.Logf("seed %d: %v", seed, v)
				return
			}
		}
	}
	t.Fatal("no record-audit link violation within seeds 1..600")
}
