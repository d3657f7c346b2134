package zoo

import (
	"fmt"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
)

// Protocol is the variant as a harness protocol, judged by the variant's
// own assumptions and liveness bound. It takes a plan's settings
// (harness.Protocol.Configure) within the rules protocol.NewElector sets,
// writes a plan's records in its own format, and answers an application's
// lease check from its current term.
func (v Variant) Protocol() harness.Protocol {
	return harness.Protocol{Name: v.Name, Candidate: v.Candidate, Assumptions: v.Assumptions, LivenessBound: v.LivenessBound,
		Configure: v.configure, EncodeRecord: v.s.encodeRecord}
}

// configure is the variant with a plan's settings for a node.
func (v Variant) configure(fs faults.Settings) (harness.Protocol, error) {
	if v.Candidate == nil {
		return harness.Protocol{}, fmt.Errorf("zoo: variant %q was not made by this package", v.Name)
	}
	s := settings{elector.SettingsOf(fs)}
	if err := s.Validate(); err != nil {
		return harness.Protocol{}, err
	}
	return variantWith(v.Name, v.Mistake, v.m, s).Protocol(), nil
}

// Scenario runs a lock of the zoo under the swarm campaign
// (harness.Swarm), as the scenario "zoo/<name>": the world and a fault
// plan drawn for each seed, with v in place of the production elector,
// judged by v's own assumptions and liveness bound. A variant with a
// mistake is expected to be caught; the careful control, which has none,
// is judged as the elector is (survives inside its assumptions, fenced
// outside them).
func Scenario(v Variant) harness.Scenario {
	sc := harness.Swarm("zoo/"+v.Name, v.Protocol())
	sc.Doc = v.Mistake + " (the zoo's careful lock with this one mistake, under swarm plans)"
	sc.Expect = harness.Caught
	if v.Mistake == "" {
		sc.Doc = "swarm plans run by the zoo's careful lock, the control every zoo variant breaks in one place"
		sc.Expect = harness.Either
	}
	return sc
}

// Scenarios are the zoo's scenarios: "zoo/careful", the control, first,
// then "zoo/<name>" for each of Variants, in that order.
func Scenarios() []harness.Scenario {
	out := []harness.Scenario{Scenario(Careful())}
	for _, v := range Variants() {
		out = append(out, Scenario(v))
	}
	return out
}

// MaskedScenarios are the scenarios of Masked, named "zoo/<name>" like the
// others but kept out of Scenarios: the swarm catches each only through its
// wider draws (settings, applications, faults aimed at roles, foreign
// writes while the followers are cut off), within a few hundred seeds
// (`simrun zoo -swarm` measures it).
func MaskedScenarios() []harness.Scenario {
	var out []harness.Scenario
	for _, v := range Masked() {
		sc := Scenario(v)
		sc.Doc = "masked: " + sc.Doc
		out = append(out, sc)
	}
	return out
}

// All is every scenario of the zoo: Scenarios, then MaskedScenarios. A
// program built on simrun.Main that passes it runs `simrun zoo`.
func All() []harness.Scenario { return append(Scenarios(), MaskedScenarios()...) }
