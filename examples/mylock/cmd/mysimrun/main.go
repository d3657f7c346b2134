// Command mysimrun is simrun for mylock: every simrun subcommand (run,
// replay, shrink, explore, campaign, ...) with mylock as the scenario
// "mylock", and no other scenario. The commands it prints run it the way this
// README does, from the module's root.
package main

import (
	"example.com/mylock"
	"github.com/s3lease/s3lease/simrun"
)

func main() {
	simrun.Main(simrun.Command("go run ./cmd/mysimrun"), simrun.Protocol("mylock", mylock.Protocol()))
}
