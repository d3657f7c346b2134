package designtest

import "flag"

// SeedsFlag defines the uint64 flag name, the number of seeds (1..N) every
// sweep of a package runs instead of its own, and returns the function a
// test asks for its sweep's number of seeds: the flag's if set, or n. Call
// it in a package-level var of the test package:
//
//	var seedsOr = designtest.SeedsFlag("epochfile.seeds")
//
// so that go test ./designs/epochfile/ -epochfile.seeds=2000 widens every
// sweep of package epochfile.
func SeedsFlag(name string) func(n uint64) uint64 {
	seeds := flag.Uint64(name, 0, "seeds of every sweep, from 1 (0: each test's own)")
	return func(n uint64) uint64 {
		if *seeds > 0 {
			return *seeds
		}
		return n
	}
}
