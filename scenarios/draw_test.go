package scenarios

import (
	"fmt"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/zoo"
)

// drawElector draws a run of the production elector: with the default
// settings, the swarm scenario's world (so that a failure is a reproducer
// of "swarm"), or with settings of its own. A drawn setting the elector
// refuses is a generator bug and panics, which fails the test loudly.
func drawElector(src harness.Source, seed uint64) harness.Draw {
	r := harness.DrawRun(src, seed, elector.Protocol(elector.DefaultSettings), elector.Vary)
	if s, ok := r.Varied.(elector.Settings); ok {
		if err := s.Validate(); err != nil {
			panic(fmt.Sprintf("generator drew invalid settings %+v: %v", s, err))
		}
	}
	return r
}

// asElector is run r with the production elector, default settings, in
// place of its protocol.
func asElector(r harness.Draw) harness.Draw {
	r.Protocol, r.Varied = elector.Protocol(elector.DefaultSettings), nil
	return r
}

// zooProtocol is the zoo variant called name.
func zooProtocol(name string) harness.Protocol {
	for _, v := range zoo.Variants() {
		if v.Name == name {
			return v.Protocol()
		}
	}
	panic("no zoo variant " + name)
}
