package scenarios

import (
	"testing"

	"github.com/s3lease/s3lease/designs/epochfile"
	"github.com/s3lease/s3lease/designs/leadermgr"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/zoo"
)

// project is what the tests of this package walk and what reproducers
// they replay may name: every scenario of the project (as
// internal/catalog lists them; this package's tests cannot import it,
// which imports this package) and the tests' own.
var project = func() *harness.Catalog {
	var all []harness.Scenario
	for _, list := range [][]harness.Scenario{All(), zoo.All(), epochfile.Scenarios(), leadermgr.Scenarios(), {naiveLiveness}} {
		all = append(all, list...)
	}
	c, err := harness.NewCatalog(all...)
	if err != nil {
		panic(err)
	}
	return c
}()

// scenario is the scenario of project called name.
func scenario(t testing.TB, name string) harness.Scenario {
	t.Helper()
	sc, err := project.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
