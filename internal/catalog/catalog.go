// Package catalog lists every scenario of the project: the stories and
// campaigns of package scenarios, the zoo's locks, and the seed designs'.
// The project's cmd/simrun hands this list to simrun.Main, and the tests
// that walk every scenario walk it; a user's own program passes only its
// own scenarios.
package catalog

import (
	"github.com/s3lease/s3lease/designs/epochfile"
	"github.com/s3lease/s3lease/designs/leadermgr"
	"github.com/s3lease/s3lease/designs/relaxedlog"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/scenarios"
	"github.com/s3lease/s3lease/zoo"
)

// All is every scenario of the project, the production elector's swarm
// first.
func All() []harness.Scenario {
	var all []harness.Scenario
	for _, list := range [][]harness.Scenario{scenarios.All(), zoo.All(), epochfile.Scenarios(), leadermgr.Scenarios(), relaxedlog.Scenarios()} {
		all = append(all, list...)
	}
	return all
}

// New is the catalog of All.
func New() *harness.Catalog {
	c, err := harness.NewCatalog(All()...)
	if err != nil {
		panic(err) // two scenarios of the project share a name: a programming error
	}
	return c
}
