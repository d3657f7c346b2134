package campaign

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/s3lease/s3lease/harness"
)

// JUnit XML, in the form CI systems read: one testsuite, one failing
// testcase per signature group, one passing testcase for the passes.
type junitSuite struct {
	XMLName    xml.Name        `xml:"testsuite"`
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

type junitText struct {
	Text string `xml:",cdata"`
}

// WriteJUnit writes the report as JUnit XML: a testsuite named after the
// scenario and shards, a failing testcase per signature group (named by the
// signature; the message gives the count and the replay command, the body
// the first seeds and the reproducer files, relative to the report's
// directory), a failing testcase "incomplete" when shards of the range are
// missing (a merge of some of a campaign's shards; the property "missing"
// names them too), and a passing testcase "pass" that sums up the passes
// and says what was judged (schema.Counts.JudgedLines: the seeds inside
// the assumptions, the violations judged and excused by checker).
// The replay commands invoke program (harness.Repro.Program).
func WriteJUnit(w io.Writer, r *Report, program string) error {
	shards := make([]string, len(r.Shards))
	for i, s := range r.Shards {
		shards[i] = s.String()
	}
	class := "simrun." + r.Scenario
	s := junitSuite{
		Name: fmt.Sprintf("simrun campaign %s shard %s", r.Scenario, strings.Join(shards, ",")),
		Time: fmt.Sprintf("%.3f", r.Wall.D().Seconds()),
		Properties: []junitProperty{
			{Name: "scenario", Value: r.Scenario},
			{Name: "shards", Value: strings.Join(shards, ",")},
			{Name: "range", Value: rangeString(r.Start, r.Seeds)},
			{Name: "seedsRun", Value: fmt.Sprint(r.SeedsRun)},
			{Name: "complete", Value: fmt.Sprint(r.Complete)},
			{Name: "checkDeterminism", Value: fmt.Sprint(r.CheckDeterminism)},
		},
	}
	if len(r.Missing) > 0 {
		missing := make([]string, len(r.Missing))
		for i, m := range r.Missing {
			missing[i] = m.String()
		}
		s.Properties = append(s.Properties, junitProperty{Name: "missing", Value: strings.Join(missing, ",")})
		msg := fmt.Sprintf("incomplete: no report covers shard(s) %s of %s: their seeds were not run", strings.Join(missing, ", "), rangeString(r.Start, r.Seeds))
		s.Cases = append(s.Cases, junitCase{Name: "incomplete", Classname: class, Time: "0",
			Failure: &junitFailure{Message: msg, Type: "incomplete", Text: msg + "\n"}})
		s.Failures++
	}
	for _, g := range r.Groups {
		var body strings.Builder
		fmt.Fprintf(&body, "signature: %s\nseeds: %d\nfirst seeds: %s\n", g.Signature, g.Count, joinSeeds(g.FirstSeeds))
		for _, p := range g.Reproducers {
			fmt.Fprintf(&body, "reproducer: %s\n", p)
		}
		fmt.Fprintf(&body, "replay: %s\n", g.Replay)
		msg := fmt.Sprintf("%d of %d seeds fail with %s; replay: %s", g.Count, r.SeedsRun, g.Signature, g.Replay)
		if len(g.Reproducers) > 0 {
			msg += " (or: " + harness.Repro{Program: program, File: g.Reproducers[0]}.Command() + ")"
		}
		s.Cases = append(s.Cases, junitCase{Name: g.Signature, Classname: class, Time: "0",
			Failure: &junitFailure{Message: msg, Type: g.Verdict, Text: body.String()}})
		s.Failures++
	}
	s.Cases = append(s.Cases, junitCase{Name: "pass", Classname: class, Time: s.Time,
		SystemOut: &junitText{fmt.Sprintf("%d of %d seeds pass (%s, shards %s)\n%s\n", r.Pass, r.SeedsRun, rangeString(r.Start, r.Seeds), strings.Join(shards, ","),
			strings.Join(r.Counts.JudgedLines("seeds"), "\n"))}})
	s.Tests = len(s.Cases)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func joinSeeds(seeds []uint64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	return strings.Join(parts, ", ")
}
