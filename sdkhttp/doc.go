// Package sdkhttp runs aws-sdk-go-v2's own *s3.Client inside the
// deterministic simulator (package sim), so that a protocol under test talks
// to the simulated S3 through exactly the code it ships with: the SDK's
// input validation, request serializers, signing, response deserializers
// and error decoding.
//
// # The model
//
// The SDK sends every request through an aws.HTTPClient, an interface with
// the single method Do(*http.Request) (*http.Response, error). [Client] is
// such an HTTP client, and it never touches the network. Its Do parses the
// S3 REST request the SDK serialized (the method, the path-style or
// virtual-hosted-style URL, the query, the headers and the body), turns it
// back into the input of one sim.S3Client call, makes that call on
// the store it was built over, and turns the store's answer into the HTTP
// response S3 would send:
//
//	PUT    /bucket/key?x-id=PutObject     PutObject      200, ETag
//	GET    /bucket/key?x-id=GetObject     GetObject      200, body, ETag, Last-Modified, Content-Length...
//	HEAD   /bucket/key                    HeadObject     200, the same headers, no body
//	DELETE /bucket/key?x-id=DeleteObject  DeleteObject   204
//	GET    /bucket?list-type=2&prefix=... ListObjectsV2  200, <ListBucketResult> document
//
// The conditional headers If-Match, If-None-Match, If-Modified-Since and
// If-Unmodified-Since, user metadata (x-amz-meta-*), Content-Type, and the
// listing parameters prefix, delimiter, start-after, continuation-token and
// max-keys are carried over. The options the simulated store does not
// model (versionId, Range, partNumber, SSE-C, x-amz-write-offset-bytes,
// encoding-type, DeleteObject's x-amz-if-match-*) are carried over too, so
// that the store refuses them as it does on the fast path. A PutObject body
// in aws-chunked encoding, which the SDK sends by default
// (RequestChecksumCalculation "when supported", as s3.NewFromConfig sets
// it) to carry a trailing checksum, is decoded, and a CRC32, CRC32C, SHA-1
// or SHA-256 checksum in a header or trailer is verified. Any other S3
// operation (tagging, ACLs, multipart uploads, HeadBucket, CopyObject...)
// is not part of sim.S3Client: Do fails it with [ErrUnsupported],
// without calling the store.
//
// When built over a node's simulated store (sim.Env.Store, or the store
// sim.Config.WrapStore hands to Wrap), the call is a simulated S3 request:
// it travels over the request leg, may suffer the run's faults, is applied
// atomically by the simulated S3 and its answer travels back, all in
// simulated time, on the calling task. The store answers with errors built
// as the SDK builds them (see sim.APIError); Do reads the status, the error
// code, the message, the request id and the host id out of such an error
// and writes the response S3 would have sent: the status line, the
// x-amz-request-id and x-amz-id-2 headers, and an XML document
//
//	<Error><Code>PreconditionFailed</Code><Message>...</Message><RequestId>...</RequestId><HostId>...</HostId></Error>
//
// except for the answers S3 sends without a body (every HEAD answer, every
// 304), from which the SDK derives the code from the status. The SDK then
// decodes that response with its own deserializers, so the error the
// protocol sees is the one the real SDK builds, typed errors
// (*types.NoSuchKey, *types.NotFound...) and s3shared.ResponseError included.
//
// Failures that are not S3 answers come out of Do as the Go error net/http
// would return, a *url.Error naming the method and URL, so that the SDK
// wraps them as it wraps real transport errors (in
// *smithyhttp.RequestSendError, or *smithy.CanceledError when the request's
// context is done, inside its response errors around an empty response):
//
//   - a cancelled call (the caller's context ended before the answer): the
//     context's error;
//   - the simulated client timeout (sim.Config.S3ClientTimeout): net/http's
//     "Client.Timeout exceeded while awaiting headers" error, a net.Error
//     whose Timeout reports true;
//   - a request that never reached S3 (an unreachable endpoint): the
//     *net.OpError of the failed dial;
//   - anything else without an HTTP status (an option the simulated store
//     does not model, an ErrUnsupported request): that error, which
//     errors.Is and errors.As still find, marked not retryable
//     (retry.RetryableError), so that neither the SDK nor the simulator's
//     retry layer tries again.
//
// # Determinism
//
// Nothing on the path reads the real clock or draws randomness in a way
// that changes what a run does. The client [NewClient] builds has retries
// disabled (aws.NopRetryer: the SDK's retryer sleeps on the real clock and
// draws its jitter from crypto/rand; the simulator's own retry layer,
// sim.Config.S3Attempts, goes around the wrapped store instead, on the
// node's clock), checksums only where the operation requires them, no S3
// Express session auth, and no response timeout middleware (which reads
// bodies on goroutines of its own). Do refuses, with ErrUnsupported, the
// requests of a client whose retryer allows more than one attempt.
// Responses carry no Date header, so the SDK's clock-skew correction, which
// compares it with the real clock, never engages. The SDK still reads the
// real clock to sign requests (X-Amz-Date) and draws a random
// amz-sdk-invocation-id: those go into request headers Do ignores, and
// change nothing. Request ids of error answers are the simulated store's;
// those of successful answers, which the store does not number, come from a
// counter of the Client. Do starts no goroutine and blocks only in the
// store call, so it obeys the simulator's rules (simrun vet checks this
// package).
//
// # Differences from the fast path
//
// Through the real SDK, the reference scenario, the swarm and the zoo's
// broken locks give the same verdicts as on the simulated store directly,
// seed by seed, and almost always the same trace (TestScenariosAgree). What
// differs:
//
//   - A call made with a context that is already done is not sent by the
//     SDK (its retry middleware returns the context's error, not wrapped in
//     *smithy.CanceledError); the fast path sends it, S3 applies it, and the
//     run's later random draws shift. The elector does this in a release
//     whose write timed out: its follow-up read uses the expired context.
//   - An input the SDK's validation refuses (a nil Bucket or Key) is not
//     sent either; the fast path sends it and S3 counts it.
//   - Failures that are no S3 answer carry the SDK's response errors (status
//     0, no request id) around *smithyhttp.RequestSendError or
//     *smithy.CanceledError, and a *url.Error around the dial error; the
//     fast path builds that chain for the client timeout only. The classes
//     the protocol derives (protocol.ClassifyError), the retryability and
//     errors.Is/As of the transport errors are the same.
//   - Error texts name the request's URL at Endpoint, path-style, where the
//     fast path names the SDK's default virtual-hosted endpoint.
//   - Options the store does not model come back as transport failures
//     instead of plain errors.
//   - GetObject answers carry no x-amz-checksum-* headers (the store keeps
//     no checksums), so a client that validates response checksums skips
//     the validation, as it does for objects uploaded without one.
//   - Retries are the simulator's model of the SDK's standard retryer
//     around the SDK client, not the SDK's retry middleware: the retry
//     quota (token bucket) and the amz-sdk-request attempt header are not
//     exercised.
//
// # Cost
//
// A run through the real SDK takes about ten times the CPU of the same run
// on the fast path, and nearly all of the difference is the SDK's own work
// for each call, which the path exists to run: building the operation's
// middleware stack and copying the client's options into it, signing,
// evaluating S3's endpoint rules (twice: for the auth scheme and for the
// URL), the deserializers' header lookups, and the about 450 allocations a
// call these make. Do, the simulated transport, is about a twentieth
// of it; building a node's *s3.Client (once per incarnation) is negligible.
// Client options that skip SDK stages (anonymous credentials, a fixed
// endpoint resolver, fewer middlewares) leave the traces as they are but
// save well under half of the cost, and run less of what users ship: this
// package sets none of them.
//
// # Use
//
// To run any protocol through the real SDK, set
//
//	cfg.WrapStore = sdkhttp.Wrap
//
// on the sim.Config (or the harness.Setup's Config): [Wrap] puts a
// [NewClient] in front of the node's store. When the Setup already wraps
// the store (a scenario that records what its nodes write), use
// cfg.WrapStore = sdkhttp.Beneath(cfg.WrapStore) ([Beneath]). `simrun run
// -s3 sdk` does this for every node. A protocol that builds its own
// *s3.Client can be handed the simulated HTTP client instead ([Options]):
//
//	client := s3.New(s3.Options{}, sdkhttp.Options(env.Store))
//
// or, keeping its own options, HTTPClient: sdkhttp.HTTPClient(env.Store)
// ([HTTPClient]), BaseEndpoint: aws.String(sdkhttp.Endpoint) (optional:
// Do accepts the SDK's default endpoints too; [Endpoint], [Region]) and
// Retryer: aws.NopRetryer{} (required).
package sdkhttp
