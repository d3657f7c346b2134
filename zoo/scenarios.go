package scenarios

import "github.com/s3lease/s3lease/scenarios/zoo"

// ZooScenario runs a lock of the zoo under the swarm campaign: the world and
// the fault plan of Swarm for each seed, with v in place of the production
// elector, judged by v's own assumptions and liveness bound. A variant with
// a mistake is expected to be caught; the careful control, which has none,
// is judged as the elector is (survives inside its assumptions, fenced
// outside them).
func ZooScenario(v zoo.Variant) Scenario {
	p := Protocol{Name: v.Name, Candidate: v.Candidate, Assumptions: v.Assumptions, LivenessBound: v.LivenessBound}
	sc := Scenario{
		Name:   "zoo/" + v.Name,
		Doc:    "swarm plans run by the zoo's careful lock with one mistake: " + v.Mistake,
		Expect: Caught,
		Build: func(seed uint64) Setup {
			s := Swarm.Build(seed)
			s.Config.Candidate = p.Candidate
			s.Protocol = p
			return s
		},
	}
	if v.Mistake == "" {
		sc.Doc = "swarm plans run by the zoo's careful lock, the control every zoo variant breaks in one place"
		sc.Expect = Either
	}
	return sc
}

// Zoo holds the zoo's scenarios: "zoo/careful", the control, first, then
// "zoo/<name>" for each of zoo.Variants, in that order.
var Zoo = func() []Scenario {
	out := []Scenario{register(ZooScenario(zoo.Careful()))}
	for _, v := range zoo.Variants() {
		out = append(out, register(ZooScenario(v)))
	}
	return out
}()
