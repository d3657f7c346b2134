package sdkhttp_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/harness/elector"
	"github.com/s3lease/s3lease/sdkhttp"
	"github.com/s3lease/s3lease/sim"
)

// newS3Client is how a program builds its S3 client, with the HTTP client
// and endpoint as parameters: in production nil and "" (the SDK's own),
// under the harness the simulated ones. Everything else is the program's
// own configuration, checksum defaults included; only the retryer must be
// off under the simulator, whose Config.S3Attempts retries instead.
func newS3Client(httpClient aws.HTTPClient, endpoint string) *s3.Client {
	return s3.New(s3.Options{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", ""),
		HTTPClient:  httpClient,
		BaseEndpoint: func() *string {
			if endpoint == "" {
				return nil
			}
			return aws.String(endpoint)
		}(),
		Retryer: aws.NopRetryer{},
		// s3.NewFromConfig's defaults: a CRC32 checksum on every PutObject,
		// sent as a trailer of an aws-chunked body.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenSupported,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenSupported,
	})
}

// A protocol that builds its own *s3.Client runs under the harness when it
// is given the simulated HTTP client and endpoint: every node's client
// then sends its requests, serialized by the real SDK, to the node's
// simulated S3. Here the production elector runs on such a client, and the
// runs are the same, trace for trace, as on the simulated store directly.
func Example_ownClient() {
	p := elector.Protocol(elector.DefaultSettings)
	candidate := p.Candidate
	p.Candidate = func(ctx context.Context, env sim.Env) error {
		env.Store = newS3Client(sdkhttp.HTTPClient(env.Store), sdkhttp.Endpoint)
		return candidate(ctx, env)
	}
	fast := harness.Swarm("example-fast", elector.Protocol(elector.DefaultSettings))
	sdk := harness.Swarm("example-own-client", p)
	for seed := uint64(1); seed <= 3; seed++ {
		f, err := harness.RunSeed(fast, seed, false)
		if err != nil {
			fmt.Println(err)
			return
		}
		o, err := harness.RunSeed(sdk, seed, false)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("seed %d: %s, trace %016x, same as the fast path: %v\n", seed, o.Verdict, o.Result.Hash(), o.Result.Hash() == f.Result.Hash())
	}
	// Output:
	// seed 1: pass, trace 235a4df946b9b0f8, same as the fast path: true
	// seed 2: pass, trace 7248bad0fe5d0d9b, same as the fast path: true
	// seed 3: pass, trace 4f074f572cbbb67f, same as the fast path: true
}
