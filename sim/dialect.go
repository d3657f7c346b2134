package sim

import (
	"errors"
	"strconv"
)

// Dialect names an S3-compatible store's semantics. The zero value is
// DialectAWS.
type Dialect int

const (
	// DialectAWS follows Amazon S3 as described in docs/s3-semantics.md.
	DialectAWS Dialect = iota

	// DialectGoFakeS3 follows github.com/johannesboyne/gofakes3 v1.2.0 with
	// its in-memory backend (backend/s3mem), as a real gofakes3 server
	// answers the SDK (TestStoreGoFakeS3Differential checks this). It
	// differs from AWS as follows (file:line refer to the v1.2.0 module):
	//
	//   - PutObject If-Match on a missing key answers 412 PreconditionFailed,
	//     not 404 (backend.go:175-178, CheckPutConditions).
	//   - PutObject If-Match is compared with the object's hex MD5 after
	//     removing one pair of surrounding quotes (backend.go:179-187), so
	//     "*" is an ordinary value that never matches: 412, as on AWS when
	//     the key exists.
	//   - PutObject If-None-Match is honoured only when it is exactly "*"
	//     (backend.go:168-172); any other value is ignored and the write
	//     goes ahead. AWS answers 501 NotImplemented to such values, and to
	//     a request carrying both If-Match and If-None-Match, which gofakes3
	//     evaluates in turn.
	//   - DeleteObject ignores If-Match altogether: the handler never reads
	//     the header (gofakes3.go:829-852, deleteObject) and the backend
	//     deletes unconditionally, answering 204 even for a missing key
	//     (backend/s3mem/bucket.go:230-235). A conditional delete therefore
	//     always succeeds and always removes the object.
	//   - GetObject and HeadObject ignore If-Match and If-Unmodified-Since;
	//     If-None-Match answers 304 only when the header equals the quoted
	//     ETag byte for byte (no "*", no unquoted form), and If-Modified-Since
	//     is evaluated even when If-None-Match is present and did not match
	//     (gofakes3.go:541-549, writeGetOrHeadObjectResponse).
	//   - PutObject keeps the user metadata of the object it replaces for
	//     every key the new request does not set (MergeMetadata,
	//     backend.go:425-445, called by backend/s3mem/backend.go:250).
	//   - It never answers 409 ConditionalRequestConflict: every check and
	//     write happens under one backend lock (backend/s3mem/backend.go:
	//     256-270).
	//
	// Listing follows the AWS rules in both dialects. gofakes3's own
	// ListObjectsV2 differs in ways this model does not reproduce: MaxKeys=0
	// means "no limit" (backend/s3mem/backend.go:128), IsTruncated is true
	// whenever any key (matching or not) follows the page, its
	// continuation token is the base64 of the last key visited (so a page
	// ending inside a common prefix can repeat that prefix), and an
	// undecodable token answers 400 InvalidToken rather than
	// InvalidArgument (gofakes3.go:1208-1239).
	DialectGoFakeS3
)

// String returns the dialect's name as ParseDialect accepts it.
func (d Dialect) String() string {
	switch d {
	case DialectAWS:
		return "aws"
	case DialectGoFakeS3:
		return "gofakes3"
	default:
		return "Dialect(" + strconv.Itoa(int(d)) + ")"
	}
}

// ParseDialect returns the dialect named s: "aws" or "gofakes3".
func ParseDialect(s string) (Dialect, error) {
	switch s {
	case "aws":
		return DialectAWS, nil
	case "gofakes3":
		return DialectGoFakeS3, nil
	default:
		return DialectAWS, errors.New(`sim: unknown S3 dialect "` + s + `" (want "aws" or "gofakes3")`)
	}
}
