package harness_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/linearizability"
	"github.com/s3lease/s3lease/sim"
)

// TestRequestStormIsJudged: the production elector, whose node 1 also
// runs pollers of the lock object, is judged by its rate bound (eleven
// bursts of three requests per RetryPeriod at most). Four pollers that
// read again as soon as they are answered (a retry storm: S3's simulated
// latency alone paces them) break it on the first seed, whatever S3
// answers, with the verdict Liveness and a request-rate violation naming
// node 1; one poller reading every 200 ms, beside the elector's own few
// requests, does not.
func TestRequestStormIsJudged(t *testing.T) {
	for _, c := range []struct {
		pollers int
		every   time.Duration
		storm   bool
	}{{4, 0, true}, {1, 200 * time.Millisecond, false}} {
		p := elector.Protocol(elector.DefaultSettings)
		p.Configure = nil // one candidate for every node: the wrapper below
		candidate := p.Candidate
		p.Candidate = func(ctx context.Context, env sim.Env) error {
			pollers := 0
			if env.Node == 1 {
				pollers = c.pollers
			}
			for range pollers {
				env.Clock.Go(func() {
					for env.Clock.Sleep(ctx, c.every) == nil {
						_, _ = env.Store.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(env.Bucket), Key: aws.String(env.Key)})
					}
				})
			}
			return candidate(ctx, env)
		}
		sc := harness.Swarm("rate-test", p)
		o, err := harness.RunSeed(sc, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		stormed := o.Verdict == harness.Liveness && len(o.Violations) == 1 &&
			o.Violations[0].Checker == linearizability.RateCheckName && o.Violations[0].Nodes[0] == 1
		if stormed != c.storm {
			t.Errorf("%d pollers every %v: verdict %s, violations %v; want a storm judged: %v", c.pollers, c.every, o.Verdict, o.Violations, c.storm)
		}
	}
}
