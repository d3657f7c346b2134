package simrun

import (
	"fmt"

	"github.com/s3lease/s3lease/harness"
)

// Registration adds something for simrun to run: a protocol or a scenario.
type Registration func() error

// defaultScenario is what run, replay, bench and campaign run without
// -scenario: the first protocol registered, or "swarm" (the production
// elector under the swarm campaign).
var defaultScenario = "swarm"

// Protocol registers protocol p under name, as the swarm scenario of that
// name (harness.Swarm): `simrun run -scenario NAME` runs it on random fault
// plans, and reproducer files written by harness.Check for a protocol of
// that name replay with `simrun replay FILE`. The first protocol registered
// becomes the default scenario.
func Protocol(name string, p harness.Protocol) Registration {
	return func() error {
		p.Name = name
		if err := p.Validate(); err != nil {
			return err
		}
		if _, err := harness.Register(harness.Swarm(name, p)); err != nil {
			return fmt.Errorf("protocol %q: %w", name, err)
		}
		if defaultScenario == "swarm" {
			defaultScenario = name
		}
		return nil
	}
}

// Scenario registers a scenario of the user's own: a world, a plan and a
// protocol as functions of the seed.
func Scenario(sc harness.Scenario) Registration {
	return func() error {
		_, err := harness.Register(sc)
		return err
	}
}

// Command sets how the commands simrun prints (replay, shrink) invoke it:
// a user's own main passes how it is run, for example
// simrun.Command("go run ./cmd/mysimrun"), so that a printed command runs
// the program that knows the user's protocols.
func Command(prefix string) Registration {
	return func() error {
		if prefix == "" {
			return fmt.Errorf("simrun.Command: empty prefix")
		}
		harness.SetCommand(prefix)
		return nil
	}
}
