// Command libsimrun is simrun for liblock: every simrun subcommand (run,
// replay, shrink, explore, campaign, ...) with liblock as the scenario
// "liblock", and no other scenario. The commands it prints run it from the
// module's root.
package main

import (
	"example.com/liblock/simlock"
	"github.com/s3lease/s3lease/simrun"
)

func main() {
	simrun.Main(simrun.Command("go run ./cmd/libsimrun"), simrun.Protocol("liblock", simlock.Protocol()))
}
