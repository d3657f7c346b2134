package sdkhttp

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/s3lease/s3lease/sim"
)

// Endpoint is the S3 endpoint the clients of this package name. Its host
// is under the reserved .invalid domain: a client that was given Endpoint
// but not the simulated HTTP client fails to resolve it instead of talking
// to a real service.
const Endpoint = "https://s3.sim.invalid"

// Region is the region the clients of this package sign for.
const Region = "us-east-1"

// The static credentials the clients of this package sign with. The
// simulated S3 does not check signatures.
const (
	accessKeyID     = "SIMACCESSKEYID"
	secretAccessKey = "SIMSECRETACCESSKEY"
)

// ErrUnsupported is wrapped by the error Do returns for a request that is
// not one of the five sim.S3Client operations, or that it cannot
// read (an aws-chunked body, an unknown host). It is not an S3 answer: it
// flags a test that needs more of S3 than the simulator offers.
var ErrUnsupported = errors.New("sdkhttp: request not supported by the simulated S3")

// Client is an aws.HTTPClient that answers the S3 REST requests
// aws-sdk-go-v2 sends by calling a sim.S3Client: give it to an
// *s3.Client as its HTTPClient and the SDK's requests go to the store. See
// the package documentation for the requests it understands and the
// responses it writes.
//
// A Client is safe for concurrent use if its store is.
type Client struct {
	store sim.S3Client
	// answers numbers the successful answers, for their request ids.
	answers atomic.Uint64
}

// HTTPClient returns the HTTP client that sends the SDK's requests to
// store, typically a node's simulated S3 client (sim.Env.Store).
func HTTPClient(store sim.S3Client) *Client {
	return &Client{store: store}
}

var _ aws.HTTPClient = (*Client)(nil)

// Options returns the s3.Options settings of an *s3.Client that talks to
// store through HTTPClient(store): Endpoint with path-style addressing,
// Region, static credentials, no retries (aws.NopRetryer: the SDK's retryer
// sleeps on the real clock), checksums only where the operation requires
// them, and no S3 Express session auth. Options given after it to s3.New
// override these.
func Options(store sim.S3Client) func(*s3.Options) {
	hc := HTTPClient(store)
	return func(o *s3.Options) {
		o.HTTPClient = hc
		o.BaseEndpoint = aws.String(Endpoint)
		o.UsePathStyle = true
		o.Region = Region
		o.Credentials = credentials.NewStaticCredentialsProvider(accessKeyID, secretAccessKey, "")
		o.Retryer = aws.NopRetryer{}
		o.RetryMaxAttempts = 0
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		o.DisableS3ExpressSessionAuth = aws.Bool(true)
	}
}

// NewClient returns aws-sdk-go-v2's *s3.Client configured by Options(store)
// and then by optFns.
func NewClient(store sim.S3Client, optFns ...func(*s3.Options)) *s3.Client {
	var o s3.Options
	Options(store)(&o)
	return s3.New(o, optFns...)
}

// Wrap returns NewClient(store). It has the signature of
// sim.Config.WrapStore: set WrapStore to Wrap and every node of a run talks
// to the simulated S3 through the real SDK.
func Wrap(store sim.S3Client) sim.S3Client {
	return NewClient(store)
}

// Beneath puts the real SDK beneath a run's own store wrapper: it returns
// a sim.Config.WrapStore under which every node talks to the simulated S3
// through the real SDK (Wrap), and wrap, if not nil, sees the node's calls
// first, as the scenario that set it expects (a scenario that records
// what its nodes write, say).
func Beneath(wrap func(sim.S3Client) sim.S3Client) func(sim.S3Client) sim.S3Client {
	if wrap == nil {
		return Wrap
	}
	return func(store sim.S3Client) sim.S3Client { return wrap(Wrap(store)) }
}

// Do answers one request the SDK serialized: it calls the store and
// returns the response S3 would send, or the error net/http would return
// when the call fails without an S3 answer.
func (c *Client) Do(req *http.Request) (*http.Response, error) {
	if n := maxAttempts(req.Header); n > 1 {
		return nil, sendError(req, fmt.Errorf("%w: the *s3.Client retries (up to %d attempts), sleeping on the real clock; "+
			"give it Retryer: aws.NopRetryer{} and let the simulator retry (sim.Config.S3Attempts)", ErrUnsupported, n))
	}
	rq, err := parseRequest(req)
	if err != nil {
		return nil, sendError(req, err)
	}
	ctx := req.Context()
	var resp *http.Response
	switch rq.op {
	case opPutObject:
		var out *s3.PutObjectOutput
		if out, err = c.store.PutObject(ctx, rq.put); err == nil {
			resp = c.putResponse(req, out)
		}
	case opGetObject:
		var out *s3.GetObjectOutput
		if out, err = c.store.GetObject(ctx, rq.get); err == nil {
			resp = c.getResponse(req, out)
		}
	case opHeadObject:
		var out *s3.HeadObjectOutput
		if out, err = c.store.HeadObject(ctx, rq.head); err == nil {
			resp = c.headResponse(req, out)
		}
	case opDeleteObject:
		if _, err = c.store.DeleteObject(ctx, rq.del); err == nil {
			resp = c.deleteResponse(req)
		}
	case opListObjectsV2:
		var out *s3.ListObjectsV2Output
		if out, err = c.store.ListObjectsV2(ctx, rq.list); err == nil {
			resp, err = c.listResponse(req, out)
		}
	default:
		return nil, sendError(req, fmt.Errorf("%w: operation %d", ErrUnsupported, rq.op))
	}
	if err != nil {
		return answerError(req, err)
	}
	return resp, nil
}

// maxAttempts returns the number of attempts the SDK's retryer allows the
// request, as its amz-sdk-request header ("attempt=1; max=3") says, or 0
// if it does not say.
func maxAttempts(h http.Header) int {
	for _, field := range strings.Split(h.Get("Amz-Sdk-Request"), ";") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(field), "max="); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// requestID returns the id of a new successful answer.
func (c *Client) requestID() string {
	return fmt.Sprintf("SDKHTTP%09d", c.answers.Add(1))
}
