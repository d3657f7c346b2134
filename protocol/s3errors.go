package protocol

import (
	"errors"

	"github.com/aws/smithy-go"
)

// ErrorClass is what an S3 call's error means to the protocol.
type ErrorClass int

const (
	// ClassNone: no error.
	ClassNone ErrorClass = iota
	// ClassPreconditionFailed: 412. The condition did not hold when the
	// write was judged, or an earlier attempt of the same call (an SDK
	// retry) already applied it and changed the ETag. Re-read and compare
	// the nonce before deciding.
	ClassPreconditionFailed
	// ClassConflict: 409 ConditionalRequestConflict (or another 409): a
	// concurrent request on the key won. Re-read, back off, retry.
	ClassConflict
	// ClassNotFound: 404 NoSuchKey (or NotFound, HeadObject's empty-bodied
	// 404): the object does not exist. Not NoSuchBucket.
	ClassNotFound
	// ClassUnknownOutcome: 5xx, throttling, a timeout, a cancelled call, a
	// broken connection, or any failure that is not an HTTP answer. A write
	// may or may not have happened.
	ClassUnknownOutcome
	// ClassOther: any other answer (403, 400, NoSuchBucket...): the call
	// did not happen, and retrying soon will probably not help.
	ClassOther
)

var classNames = [...]string{"none", "precondition-failed", "conflict", "not-found", "unknown-outcome", "other"}

func (c ErrorClass) String() string {
	if c >= 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	return "ErrorClass(?)"
}

// httpStatusError is implemented by the SDK's transport errors
// (*awshttp.ResponseError, *smithyhttp.ResponseError).
type httpStatusError interface {
	error
	HTTPStatusCode() int
}

// ClassifyError maps an error returned by an ObjectStore call to its
// ErrorClass. It looks through the chain with errors.As for a
// smithy.APIError (the S3 error code from the XML body) and for the HTTP
// status; a code decides before a status. An error that carries neither (a
// context error from the per-call timeout, a net.Error, a reset, an SDK
// failure before or after the exchange) is ClassUnknownOutcome: the only safe
// reading of an error that is not an S3 answer is that the request may have
// been applied.
func ClassifyError(err error) ErrorClass {
	if err == nil {
		return ClassNone
	}
	code := ""
	if apiErr, ok := errors.AsType[smithy.APIError](err); ok {
		code = apiErr.ErrorCode()
	}
	status := 0
	if s, ok := errors.AsType[httpStatusError](err); ok {
		status = s.HTTPStatusCode()
	}
	switch code {
	case "PreconditionFailed":
		return ClassPreconditionFailed
	case "ConditionalRequestConflict", "OperationAborted":
		return ClassConflict
	case "NoSuchKey", "NotFound":
		return ClassNotFound
	case "NoSuchBucket":
		return ClassOther
	case "InternalError", "ServiceUnavailable", "SlowDown", "RequestTimeout",
		"Throttling", "ThrottlingException", "RequestThrottled", "TooManyRequests":
		return ClassUnknownOutcome
	}
	switch {
	case status == 412:
		return ClassPreconditionFailed
	case status == 409:
		return ClassConflict
	case status == 429 || status >= 500:
		return ClassUnknownOutcome
	case status != 0 || code != "":
		return ClassOther
	}
	return ClassUnknownOutcome
}

// ObjectMissing reports whether an error of a GetObject (or of a write
// If-Match an ETag) says that the object does not exist: ClassNotFound,
// or a 404 that carries no S3 error code. The second is what a proxy's
// error page gives that the SDK cannot read (docs/s3-semantics.md, "Error
// pages"): without it, an elector behind such a proxy would never create a
// missing object. A missing bucket answered so makes the elector try to
// create the object, which fails as ClassOther and waits a RetryPeriod: no
// more requests than a refusal costs. ClassifyError keeps a code-less 404
// ClassOther, since for a create it may as well be NoSuchBucket.
func ObjectMissing(err error) bool {
	if ClassifyError(err) == ClassNotFound {
		return true
	}
	if apiErr, ok := errors.AsType[smithy.APIError](err); ok && apiErr.ErrorCode() != "" {
		return false
	}
	s, ok := errors.AsType[httpStatusError](err)
	return ok && s.HTTPStatusCode() == 404
}
