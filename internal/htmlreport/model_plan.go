package htmlreport

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/s3lease/s3lease/faults"
)

// planWindows draws the windows the plan opens: partitions, slow S3. A
// partition aimed at a role or a target is drawn where it really fell
// (the history's faults), since the plan does not say which nodes it hit.
func (b *builder) planWindows() {
	for _, f := range b.h.Faults {
		if f.Kind == string(faults.Partition) && f.Node >= 0 && aimedPartitionAt(b.plan, f.From) {
			l := b.lane(f.Node)
			l.partitions = append(l.partitions, span{f.From, f.To, "no S3",
				fmt.Sprintf("n%d cannot reach S3 from %s to %s (%v; aimed at a role)", f.Node, secs(f.From), secs(f.To), f.To-f.From)})
		}
	}
	for _, e := range b.plan.Events {
		from, to := e.At.D(), e.At.D()+e.For.D()
		if e.Role != "" || e.Target != "" {
			continue
		}
		switch e.Kind {
		case faults.Partition:
			how := "requests fail at once"
			if e.Blackhole {
				how = "requests hang"
			}
			l := b.lane(e.Node)
			l.partitions = append(l.partitions, span{from, to, "no S3",
				fmt.Sprintf("n%d cannot reach S3 from %s to %s (%v; %s)", e.Node, secs(from), secs(to), e.For, how)})
		case faults.SlowS3:
			b.wl.partitions = append(b.wl.partitions, span{from, to, "S3 slow",
				fmt.Sprintf("S3 answers %v slower on each leg from %s to %s", e.By, secs(from), secs(to))})
		}
	}
}

// aimedMarks marks the faults on single requests, but for requests lost
// to a partition already drawn.
func (b *builder) aimedMarks() {
	for _, f := range b.aimed {
		l := b.lane(f.node)
		if f.cutOff && slices.ContainsFunc(l.partitions, func(s span) bool { return s.from <= f.at && f.at <= s.to }) {
			continue
		}
		l.marks = append(l.marks, mark{f.at, markNote, f.title})
	}
}

// gutter writes what stands under each node's name: its identities and
// incarnations, and the clock the plan gave it; and sorts its marks.
func (b *builder) gutter() {
	clocks := make(map[int]faults.ClockSetting)
	for _, c := range b.plan.Clocks {
		clocks[c.Node] = c
	}
	for n, l := range b.lanes {
		ids := b.identities[n]
		distinct := uniq(ids)
		switch {
		case len(ids) == 0:
			l.sub = append(l.sub, "never started")
		case len(distinct) == 1:
			line := "id " + distinct[0]
			if len(ids) > 1 {
				line += fmt.Sprintf(", %d incarnations", len(ids))
			}
			l.sub = append(l.sub, line)
		default:
			l.sub = append(l.sub, "ids "+strings.Join(distinct, " → "))
			if len(ids) != len(distinct) {
				l.sub = append(l.sub, fmt.Sprintf("%d incarnations", len(ids)))
			}
		}
		c, ok := clocks[n]
		if !ok {
			c = faults.ClockSetting{Node: n}
		}
		l.sub = append(l.sub, clockLine(c))
		l.title = fmt.Sprintf("node %d; identities by incarnation: %s; %s", n, strings.Join(quoteAll(ids), ", "), clockTitle(c))
		sort.SliceStable(l.marks, func(i, j int) bool { return l.marks[i].at < l.marks[j].at })
	}
}

// aimedPartitionAt reports whether a partition that began at from can be
// one the plan aimed at a role or a target (which fires at or after its
// At), rather than one it timed.
func aimedPartitionAt(plan *faults.Plan, from time.Duration) bool {
	timed := false
	for _, e := range plan.Events {
		if e.Kind != faults.Partition {
			continue
		}
		if e.Role == "" && e.Target == "" && e.At.D() == from {
			timed = true
		}
	}
	if timed {
		return false
	}
	for _, e := range plan.Events {
		if e.Kind == faults.Partition && (e.Role != "" || e.Target != "") && e.At.D() <= from {
			return true
		}
	}
	return false
}
