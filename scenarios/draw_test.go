package scenarios

import (
	"fmt"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/zoo"
)

// drawElector draws a run of the production elector as the swarm
// scenario draws it, the nodes' settings drawn too, so that a failure is a
// reproducer of "swarm". A drawn setting the elector refuses is a
// generator bug and panics, which fails the test loudly.
func drawElector(src *faults.Source, seed uint64) harness.Draw {
	r := harness.DrawRun(src, seed, elector.Protocol(elector.DefaultSettings))
	for _, s := range r.Plan.Settings {
		if err := elector.SettingsOf(s).Validate(); err != nil {
			panic(fmt.Sprintf("generator drew invalid settings %+v: %v", s, err))
		}
	}
	return r
}

// asElector is run r with the production elector in place of its
// protocol (the plan's settings, if any, as the elector takes them).
func asElector(r harness.Draw) harness.Draw {
	r.Protocol = elector.Protocol(elector.DefaultSettings)
	return r
}

// zooProtocol is the zoo variant called name, named as its scenario
// ("zoo/<name>"), so that a reproducer of its run replays with `simrun
// replay`.
func zooProtocol(name string) harness.Protocol {
	for _, v := range zoo.Variants() {
		if v.Name == name {
			p := v.Protocol()
			p.Name = "zoo/" + name
			return p
		}
	}
	panic("no zoo variant " + name)
}
