package relaxedlog

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
)

// The stories of the essay's sad paths, each run by the safe form (and by a
// broken one in the tests, which must catch it).

// LateWriter: a writer paused past its lease's expiry whose message lands
// in a bag while it is being closed.
var LateWriter = lateWriter("relaxedlog/late-writer", Variant{}, harness.Either).scenario()

// lateWriter is the late-writer story for a form of the design. Node 0
// leads both domains (the others cannot reach S3 for the first 2 s),
// stamps a message at about 5 s and stops before sending it; at 5.4 s it
// is paused for 8 s, past its leases (6 s), and node 1 or 2 takes them
// over. Bags close 12 s after their second here, so the close of the held
// message's bag begins after the pause: node 0 sends the message as the
// prelock appears, and it lands while the bag is being closed, before or
// after the closer's listing, as the latencies fall.
func lateWriter(name string, v Variant, expect harness.Expectation) story {
	c := Default
	c.Grace, c.Variant = 12*time.Second, v
	return c.story(name, "A writer holding both leases stamps a message and stops before sending it; paused past its leases' expiry, it "+
		"sends it as the message's bag begins to close (bags close 12 s late here), so that it lands before or after the closer's listing. "+
		"It finds the prelock after its create, helps close the bag and counts the message only if the lock object lists it.", expect,
		func(seed uint64, _ *faults.Source) (harness.Setup, watch) {
			st := &stage{}
			plan := &faults.Plan{HealAt: faults.Duration(35 * time.Second), Events: append(partitioned(0, 2*time.Second, 1, 2),
				faults.Event{Kind: faults.Pause, At: faults.Duration(5400 * time.Millisecond), Node: 0, For: faults.Duration(8 * time.Second)})}
			return harness.Setup{Config: st.setup(seed, 3, 45*time.Second), Plan: plan}, watch{stall: st.hold(c, 0, 5*time.Second, 0)}
		})
}

// ClosersRace: closers race to close one bag, and a message lands between
// their listings.
var ClosersRace = closersRace("relaxedlog/closers-race", Variant{}, harness.Survives).scenario()

// closersRace is the closers-race story for a form of the design. Only
// node 2 campaigns (nodes 0 and 1 close and read); the clocks are exact
// and closers have no jitter, so all three close every bag at the same
// instant. Node 2 holds the first message it stamps from 5 s on until 200
// ms after its bag's prelock exists: the listings of nodes 0 and 2 have
// landed by then, and node 1's, slowed by 400 ms, lands after the message.
// The first lock object leaves the message out, node 1's lists it.
func closersRace(name string, v Variant, expect harness.Expectation) story {
	c := Default
	c.CloseJitter, c.Variant = 0, v
	c.Wants = func(node int) []int {
		if node == 2 {
			return []int{0, 1}
		}
		return nil
	}
	return c.story(name, "Three closers close every bag at the same instant (exact clocks, no jitter); a message is held until its bag's "+
		"prelock exists and lands between the closers' listings, one of which is slow. The first lock object wins by its create; the "+
		"other closers' creates are refused and they take its list; the writer finds its message left out.", expect,
		func(seed uint64, _ *faults.Source) (harness.Setup, watch) {
			st := &stage{}
			plan := &faults.Plan{HealAt: faults.Duration(20 * time.Second)}
			for n := range 3 {
				plan.Clocks = append(plan.Clocks, faults.ClockSetting{Node: n})
			}
			return harness.Setup{Config: st.setup(seed, 3, 30*time.Second), Plan: plan},
				watch{stall: st.hold(c, 2, 5*time.Second, 200*time.Millisecond), link: st.slowList(c, 1, 400*time.Millisecond)}
		})
}

// TwoLeases: a holder of two leases whose successors take one each, and a
// holder of both after them.
var TwoLeases = twoLeases("relaxedlog/two-leases", Variant{}, harness.Either).scenario()

// twoLeases is the two-leases story for a form of the design. Node 0
// wants both domains, node 1 only a, node 2 only b, node 3 both. Node 0
// leads both (the others cannot reach S3 for 2 s, node 3 for 21 s) and
// crashes at 10 s; node 1 takes a and node 2 takes b after the lease, each
// above node 0's watermark. At 20 s both stop and release, and node 3
// takes both: node 2's clock runs 5 s ahead (beyond the clock bound; bags
// close 7 s late here so that its closer does not close bags still
// written), so its last messages are stamped above node 1's watermark, and
// node 3 must write above the maximum of the two watermarks.
func twoLeases(name string, v Variant, expect harness.Expectation) story {
	c := Default
	c.Grace, c.Variant = 7*time.Second, v
	wants := [][]int{{0, 1}, {0}, {1}, {0, 1}}
	c.Wants = func(node int) []int { return wants[node%len(wants)] }
	return c.story(name, "A holder of both leases crashes; one successor takes lease a, another lease b, each writing above the crashed "+
		"holder's watermark; both release, and a fourth node takes both leases. The holder of b runs its clock 5 s ahead, so the new holder "+
		"of both must write above the maximum of the two watermarks it is handed.", expect,
		func(seed uint64, _ *faults.Source) (harness.Setup, watch) {
			st := &stage{}
			plan := &faults.Plan{HealAt: faults.Duration(30 * time.Second),
				Clocks: []faults.ClockSetting{{Node: 0}, {Node: 1}, {Node: 2, Offset: faults.Duration(5 * time.Second)}, {Node: 3}}}
			plan.Events = append(partitioned(0, 2*time.Second, 1, 2), partitioned(0, 21*time.Second, 3)...)
			plan.Events = append(plan.Events, faults.Event{Kind: faults.Crash, At: faults.Duration(10 * time.Second), Node: 0},
				faults.Event{Kind: faults.Stop, At: faults.Duration(20 * time.Second), Node: 1},
				faults.Event{Kind: faults.Stop, At: faults.Duration(20 * time.Second), Node: 2})
			return harness.Setup{Config: st.setup(seed, 4, 40*time.Second), Plan: plan}, watch{}
		})
}

// RenewalsFail: a holder cut off from S3 whose lease runs out.
var RenewalsFail = renewalsFail("relaxedlog/renewals-fail", Variant{}, harness.Survives).scenario()

// renewalsFail is the renewals-fail story for a form of the design. Node
// 0 leads both domains (node 1 cannot reach S3 for 2 s) and at 10 s loses
// S3 for 8 s: its renewals fail, its leases run out (4 s after the last
// renewal that succeeded), and node 1 takes over. Until the end, node 0's
// writer keeps setting watermarks, each below its leases' expiry as its
// clock reads it.
func renewalsFail(name string, v Variant, expect harness.Expectation) story {
	c := Default
	c.Variant = v
	return c.story(name, "A holder of both leases loses S3 for 8 s: its renewals fail and its leases run out while its writer goes on "+
		"raising their watermarks, each below the expiry its clock reads; the other node takes over after the lease.", expect,
		func(seed uint64, _ *faults.Source) (harness.Setup, watch) {
			st := &stage{}
			plan := &faults.Plan{HealAt: faults.Duration(20 * time.Second),
				Events: append(partitioned(0, 2*time.Second, 1), partitioned(10*time.Second, 8*time.Second, 0)...)}
			return harness.Setup{Config: st.setup(seed, 2, 30*time.Second), Plan: plan}, watch{}
		})
}

// SkewWithin: wall clocks within the design's bound: no effect on safety,
// and commits go on.
var SkewWithin = skew("relaxedlog/skew-within", Variant{}, false, harness.Survives).scenario()

// SkewBeyond: a wall clock beyond the bound either way: bags refuse what
// they should, nothing acknowledged is lost.
var SkewBeyond = skew("relaxedlog/skew-beyond", Variant{}, true, harness.Either).scenario()

// skew is a skew story for a form of the design: five nodes whose wall
// clocks are off true time by up to the bound (drawn), with a step of up
// to the bound each, and their drift within the elector's; every 12 s the
// leader of domain a crashes and restarts. Beyond, node 3's clock is also
// 5 s behind and node 4's 5 s ahead: node 4 closes bags before the others
// are done writing them, and node 3, when it leads, is handed watermarks
// above anything its clock allows it to stamp below its expiry.
func skew(name string, v Variant, beyond bool, expect harness.Expectation) story {
	c := Default
	c.Variant = v
	doc := "Five nodes with wall clocks up to 500 ms off true time (the design's bound) and a step of up to 500 ms each; the leader " +
		"crashes every 12 s. The bound only keeps commits flowing: nothing is judged differently."
	if beyond {
		doc = "The skew-within story with two clocks beyond the bound: one 5 s ahead, whose closer closes bags while the others still write " +
			"them (their messages refused, and reported so), and one 5 s behind, which cannot stamp above the watermarks it is handed " +
			"and below its expiry (it writes nothing)."
	}
	return c.story(name, doc, expect, func(seed uint64, src *faults.Source) (harness.Setup, watch) {
		st := &stage{}
		cfg := st.setup(seed, 5, 60*time.Second)
		k := src.Sub("skew")
		plan := &faults.Plan{HealAt: faults.Duration(45 * time.Second)}
		for n := range cfg.Nodes {
			off := time.Duration(k.Choose(uint64(2*c.MaxOffset))) - c.MaxOffset
			switch {
			case beyond && n == 3:
				off = -5 * time.Second
			case beyond && n == 4:
				off = 5 * time.Second
			}
			ppm := int64(k.Choose(uint64(2*c.Elector.ClockDriftPPM+1))) - c.Elector.ClockDriftPPM
			plan.Clocks = append(plan.Clocks, faults.ClockSetting{Node: n, Offset: faults.Duration(off), DriftPPM: ppm})
			step := time.Duration(k.Choose(uint64(2*c.MaxOffset))) - c.MaxOffset
			at := time.Duration(k.Choose(uint64(40 * time.Second)))
			plan.Events = append(plan.Events, faults.Event{Kind: faults.ClockJump, At: faults.Duration(at), Node: n, By: faults.Duration(step)})
		}
		for at := 12 * time.Second; at < 45*time.Second; at += 12 * time.Second {
			plan.Events = append(plan.Events, faults.Event{Kind: faults.Crash, At: faults.Duration(at), Role: faults.RoleLeader, For: faults.Duration(time.Second)})
		}
		return harness.Setup{Config: cfg, Plan: plan}, watch{}
	})
}

// stories are the design's stories, in the order Scenarios lists them.
func stories() []harness.Scenario {
	return []harness.Scenario{LateWriter, ClosersRace, TwoLeases, RenewalsFail, SkewWithin, SkewBeyond}
}
