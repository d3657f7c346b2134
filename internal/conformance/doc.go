// Package conformance asks several S3 implementations the same short
// questions about conditional requests and records who answers what.
//
// # Model
//
// A Case is a short sequence of S3 calls on keys of its own, made through
// [sim.S3Client], the elector's protocol.ObjectStore with the listings,
// heads and deletes other protocols make (it has aws-sdk-go-v2's
// signatures, so an *s3.Client is a store, and so is the simulator's S3
// behind SimStore). Each Step is one call: PutObject,
// GetObject, HeadObject, DeleteObject or ListObjectsV2, with its
// conditional headers, if any. A header that names an ETag names it symbolically
// (Cond): the ETag the store returned for an earlier write of a body in the
// same case, the same without its quotes, an ETag no write ever returned, or
// a literal. Run performs a case's steps in order, one at a time, and
// renders each answer as a short, deterministic string (see Observe):
//
//	200 etag=v1 body=v1     success; ETag is the quoted MD5 of body "v1"; body read
//	412 PreconditionFailed  HTTP status and the S3 error code the SDK reports
//	204                     success without an ETag (DeleteObject)
//	200 [k2 etag=v2]        ListObjectsV2: the case's keys, each with its ETag
//
// Bodies and ETags are named by the case's bodies ("v1", "v2", ...), so the
// strings do not depend on request ids, dates or hosts, and two runs against
// the same implementation give the same strings. The status of a success is
// the HTTP status of the raw response when there is one (a real server), and
// the operation's nominal status otherwise (the simulator, which models no
// HTTP exchange: 204 for DeleteObject, 200 for the rest).
//
// Every step also carries the answer Amazon S3 documents for it (Step.AWS),
// written from AWS's documentation; Sources lists the pages. A step the
// elector relies on being refused (a conditional write that must not apply)
// is marked Step.Guard: an implementation that answers it with a success is
// unsafe for the elector.
//
// A Race is the concurrent counterpart of the guard steps: in each round,
// several writers with the same condition (If-Match: the ETag they all read,
// or If-None-Match: *) are released at once on one key, as candidates racing
// for a term are; at most one may win, and the object must then hold the
// winner's body. A race of reads against writes (Race.Readers) lets readers
// read one key while writers replace it, as followers read while a leader
// renews; every read must carry one version, its body with its ETag, and
// one that carries the body of a version and the ETag of another is torn.
// A race's result is summarized without the counts that vary from run to
// run (RaceResult.Summary); the test logs the counts.
//
// # Targets and the committed table
//
// The package is test code: the cases, the runner and the renderer live in
// its test files, and its test runs every case and race against four
// implementations: the simulator's store in its AWS dialect and in its
// gofakes3 dialect, a real gofakes3 server (in-memory backend) on loopback,
// and a real versitygw gateway (posix backend in a temporary directory) on
// loopback, the last two through a real *s3.Client. Render writes the
// answers as the markdown table docs/conformance.md, with every difference
// from the documented AWS answer named (the step's property name and the
// implementations that answered differently), every guard step an
// implementation accepted and every race with two winners flagged "unsafe
// for the elector", and every other condition an implementation ignored
// listed. The test fails when the committed document differs from what the
// implementations answer today, and regenerates it with
//
//	go test ./internal/conformance -run TestConformance -update
//
// which needs the versitygw binary (VersityGWInstall). Without it, the test
// skips the versitygw subtest, keeps the committed versitygw column, and
// checks the rest of the document.
//
// Two further tests hold the simulator to its claims: the AWS dialect must
// answer every step exactly as AWS documents, and the gofakes3 dialect must
// answer every step with the status and error code of the real gofakes3
// server.
package conformance
