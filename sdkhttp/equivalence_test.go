package sdkhttp_test

import (
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/scenarios"
	"github.com/s3lease/s3lease/sdkhttp"
	"github.com/s3lease/s3lease/sim"
	"github.com/s3lease/s3lease/zoo"
)

var (
	equivalenceSeeds = flag.Int("sdkhttp.seeds", 250, "seeds per scenario of TestScenariosAgree (-short: 20)")
	zooSeeds         = flag.Int("sdkhttp.zooseeds", 10, "seeds per zoo variant of TestScenariosAgree (-short: 2)")
)

// runBoth runs one seed of sc on the fast path and through the real SDK.
func runBoth(t testing.TB, sc harness.Scenario, seed uint64, keepTrace bool) (fast, sdk *harness.Outcome) {
	t.Helper()
	var err error
	if fast, err = harness.RunSetup(sc.Build(seed), keepTrace); err != nil {
		t.Fatalf("%s seed %d: %v", sc.Name, seed, err)
	}
	s := sc.Build(seed)
	s.Config.WrapStore = sdkhttp.Beneath(s.Config.WrapStore)
	if sdk, err = harness.RunSetup(s, keepTrace); err != nil {
		t.Fatalf("%s seed %d through the SDK: %v", sc.Name, seed, err)
	}
	return fast, sdk
}

// divergence explains where the traces of one seed part: it returns the
// first event that differs, and whether it is a request the fast path
// sends with a context already done (the send and its abandon at the same
// instant) and the real SDK does not send at all. Every later choice of
// the run differs then, since the fast path drew the request's latencies.
func divergence(fast, sdk []sim.Event) (sim.Event, bool) {
	i := 0
	for i < len(fast) && i < len(sdk) && fast[i] == sdk[i] {
		i++
	}
	if i+1 >= len(fast) {
		return sim.Event{}, false
	}
	send, abandon := fast[i], fast[i+1]
	notSent := send.Kind == sim.EvS3Send && abandon.Kind == sim.EvS3Abandon && abandon.Call == send.Call &&
		abandon.At == send.At && abandon.Node == send.Node &&
		(i >= len(sdk) || sdk[i].Kind != sim.EvS3Send || sdk[i].Node != send.Node || sdk[i].At != send.At)
	return send, notSent
}

// TestScenariosAgree runs the reference scenario and the swarm, and the
// zoo's broken locks under the swarm, on the same seeds on the fast path
// and through the real SDK, and requires the same
// verdict seed by seed, and the same trace unless the fast path sent a
// request with a context already done, which the SDK does not send.
func TestScenariosAgree(t *testing.T) {
	n, nz := uint64(*equivalenceSeeds), uint64(*zooSeeds)
	if testing.Short() {
		n, nz = 20, 2
	}
	type campaign struct {
		sc    harness.Scenario
		seeds uint64
	}
	campaigns := []campaign{{scenarios.Reference, n}, {scenarios.Swarm, n}}
	// The zoo's broken locks under the swarm: verdicts that are not passes.
	for _, v := range zoo.Variants() {
		campaigns = append(campaigns, campaign{harness.Swarm("zoo-"+v.Name, v.Protocol()), nz})
	}
	for _, c := range campaigns {
		sc, n := c.sc, c.seeds
		t.Run(sc.Name, func(t *testing.T) {
			start := time.Now()
			verdicts := map[string]int{}
			sameTrace, notSent := 0, 0
			for seed := uint64(1); seed <= n; seed++ {
				fast, sdk := runBoth(t, sc, seed, false)
				if fast.Verdict != sdk.Verdict {
					t.Errorf("seed %d: verdict %v on the fast path, %v through the SDK", seed, fast.Verdict, sdk.Verdict)
				}
				verdicts[fmt.Sprint(fast.Verdict)]++
				if fast.Result.Hash() == sdk.Result.Hash() {
					sameTrace++
					continue
				}
				fast, sdk = runBoth(t, sc, seed, true)
				e, ok := divergence(fast.Result.Trace.Events, sdk.Result.Trace.Events)
				if !ok {
					t.Errorf("seed %d: the traces differ from %v on, unexplained", seed, e)
					continue
				}
				notSent++
				t.Logf("seed %d: the traces part at %v: n%d's %s sent with its context already done, which the SDK does not send",
					seed, e.At, e.Node, e.Op)
			}
			t.Logf("%s: %d seeds, verdicts %v agree; same trace on %d, parted at a request the SDK does not send on %d; %v",
				sc.Name, n, verdicts, sameTrace, notSent, time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestSDKPathDeterministic runs seeds through the SDK twice and requires
// the same trace.
func TestSDKPathDeterministic(t *testing.T) {
	for _, sc := range []harness.Scenario{scenarios.Reference, scenarios.Swarm} {
		for seed := uint64(1); seed <= 10; seed++ {
			var hashes [2]uint64
			for i := range hashes {
				s := sc.Build(seed)
				s.Config.WrapStore = sdkhttp.Beneath(s.Config.WrapStore)
				o, err := harness.RunSetup(s, false)
				if err != nil {
					t.Fatal(err)
				}
				hashes[i] = o.Result.Hash()
			}
			if hashes[0] != hashes[1] {
				t.Errorf("%s seed %d: trace %#x, then %#x", sc.Name, seed, hashes[0], hashes[1])
			}
		}
	}
}
