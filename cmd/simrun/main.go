// Command simrun runs the deterministic simulation of S3 leader election:
// every scenario of the project (the stories of package scenarios, the bug
// zoo, the seed designs) and the production elector under random fault
// plans, with the project's tools beside simrun's own subcommands: live
// mode against a real store, the mutation tool and the simvet analyzer.
// Its subcommands are package simrun's, which a user's own main runs for
// their protocols without the tools' dependencies.
package main

import (
	"github.com/s3lease/s3lease/internal/catalog"
	"github.com/s3lease/s3lease/simrun"
)

func main() { simrun.Main(options()...) }

// options is what the project's simrun knows: every scenario and every
// tool.
func options() []simrun.Option {
	return []simrun.Option{simrun.Scenarios(catalog.All()...), simrun.Tools(liveTool, mutateTool, vetTool)}
}
