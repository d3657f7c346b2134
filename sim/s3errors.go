package sim

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Operation names, as the SDK puts them in smithy.OperationError.
const (
	OpPutObject     = "PutObject"
	OpGetObject     = "GetObject"
	OpHeadObject    = "HeadObject"
	OpDeleteObject  = "DeleteObject"
	OpListObjectsV2 = "ListObjectsV2"
)

// serviceID is the smithy service id of S3 (s3.ServiceID).
const s3ServiceID = "S3"

// Messages S3 puts in its <Error> documents.
const (
	msgPreconditionFailed = "At least one of the pre-conditions you specified did not hold"
	msgConflict           = "The conditional request cannot succeed due to a conflicting operation against this resource."
	msgNoSuchKey          = "The specified key does not exist."
	msgNoSuchBucket       = "The specified bucket does not exist"
	msgInternalError      = "We encountered an internal error. Please try again."
	msgSlowDown           = "Please reduce your request rate."
	msgTooManyRequests    = "Too many requests."
	msgAccessDenied       = "Access Denied"
	msgNotImplemented     = "A header you provided implies functionality that is not implemented"
	msgBadToken           = "The continuation token provided is incorrect"
	msgBadMaxKeys         = "Argument maxKeys must be an integer between 0 and 2147483647"
)

// APIError returns the error the SDK (aws-sdk-go-v2 service/s3) would return
// for an S3 error response with the given status whose XML <Error> document
// carries code, message and requestID, without retries (aws.NopRetryer; the
// default retryer wraps retryable errors in *retry.MaxAttemptsError once it
// gives up).
//
// The chain is the one the SDK builds:
//
//	*smithy.OperationError{ServiceID: "S3", OperationName: op}
//	  -> *s3ResponseError (mirror of s3shared.ResponseError, see below)
//	       embeds *awshttp.ResponseError{RequestID}
//	         embeds *smithyhttp.ResponseError{Response: status and headers}
//	  -> the API error: a typed error from service/s3/types where the SDK's
//	     deserializer for op has one for code (GetObject: *types.NoSuchKey,
//	     HeadObject: *types.NotFound, ListObjectsV2: *types.NoSuchBucket, ...),
//	     else *smithy.GenericAPIError{Code, Message} with no fault set.
//
// Responses without a body (any HeadObject error, any 304) carry no code:
// the SDK derives it from the status text, so a HEAD 404 is *types.NotFound,
// a HEAD 412 is "PreconditionFailed" and a HEAD 500 is "InternalServerError",
// whatever code is passed here.
func APIError(op string, status int, code, message, requestID string) error {
	statusText := http.StatusText(status)
	bodyless := status == http.StatusNotModified || op == OpHeadObject || op == "HeadBucket"
	if bodyless {
		code, message = "", ""
	}

	// The SDK's deserializer (deserializeOpError<Op> and
	// s3shared.GetErrorResponseComponents): a code and message both missing
	// from the body come from the status text; a code missing alone is
	// "UnknownError", and so is a message missing alone.
	errCode, errMessage := code, message
	if code == "" && message == "" {
		errCode = strings.ReplaceAll(statusText, " ", "")
		errMessage = statusText
	} else {
		if errCode == "" {
			errCode = "UnknownError"
		}
		if errMessage == "" {
			errMessage = "UnknownError"
		}
	}

	contentType := "application/xml"
	if bodyless {
		contentType = ""
	}
	return newErrorChain(op, status, statusText, requestID, contentType, deserializedError(op, errCode, errMessage, message))
}

// newErrorChain builds the SDK's error for an answer with status to op:
// the chain APIError describes, whose innermost error is inner, with the
// answer's request id headers and, if contentType is not empty, its
// Content-Type. One allocation holds the whole chain: errors are frequent
// answers on the simulator's hot path (every lost race is a 412).
func newErrorChain(op string, status int, statusText, requestID, contentType string, inner error) error {
	e := &errorChain{}
	e.values = [3]string{requestID, hostIDFor(requestID), contentType}
	header := make(http.Header, 3)
	header["X-Amz-Request-Id"] = e.values[0:1:1]
	header["X-Amz-Id-2"] = e.values[1:2:2]
	if contentType != "" {
		header["Content-Type"] = e.values[2:3:3]
	}
	e.http = http.Response{
		Status:     statusLine(status, statusText),
		StatusCode: status,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     header,
		Body:       http.NoBody,
	}
	e.resp.Response = &e.http
	e.smithy = smithyhttp.ResponseError{Response: &e.resp, Err: inner}
	e.aws = awshttp.ResponseError{ResponseError: &e.smithy, RequestID: requestID}
	e.s3 = s3ResponseError{ResponseError: &e.aws, HostID: e.values[1]}
	e.op = smithy.OperationError{ServiceID: s3ServiceID, OperationName: op, Err: &e.s3}
	return &e.op
}

// errorChain is the storage of one APIError.
type errorChain struct {
	op     smithy.OperationError
	s3     s3ResponseError
	aws    awshttp.ResponseError
	smithy smithyhttp.ResponseError
	resp   smithyhttp.Response
	http   http.Response
	values [3]string
}

// statusLine is http.Response.Status for status: "412 Precondition Failed".
func statusLine(status int, statusText string) string {
	switch status {
	case http.StatusNotModified:
		return "304 Not Modified"
	case http.StatusNotFound:
		return "404 Not Found"
	case http.StatusConflict:
		return "409 Conflict"
	case http.StatusPreconditionFailed:
		return "412 Precondition Failed"
	case http.StatusInternalServerError:
		return "500 Internal Server Error"
	case http.StatusServiceUnavailable:
		return "503 Service Unavailable"
	}
	return strconv.Itoa(status) + " " + statusText
}

// deserializedError returns the API error the SDK's deserializer for op
// builds for errCode. Typed errors take their Message from the body's
// <Message> element only (bodyMessage), generic ones the derived message.
func deserializedError(op, errCode, errMessage, bodyMessage string) error {
	var msg *string
	if bodyMessage != "" {
		msg = &bodyMessage
	}
	switch op {
	case OpGetObject:
		switch {
		case strings.EqualFold(errCode, "NoSuchKey"):
			return &types.NoSuchKey{Message: msg}
		case strings.EqualFold(errCode, "InvalidObjectState"):
			return &types.InvalidObjectState{Message: msg}
		}
	case OpHeadObject:
		if strings.EqualFold(errCode, "NotFound") {
			return &types.NotFound{Message: msg}
		}
	case OpListObjectsV2:
		if strings.EqualFold(errCode, "NoSuchBucket") {
			return &types.NoSuchBucket{Message: msg}
		}
	case OpPutObject:
		switch {
		case strings.EqualFold(errCode, "EncryptionTypeMismatch"):
			return &types.EncryptionTypeMismatch{Message: msg}
		case strings.EqualFold(errCode, "InvalidRequest"):
			return &types.InvalidRequest{Message: msg}
		case strings.EqualFold(errCode, "InvalidWriteOffset"):
			return &types.InvalidWriteOffset{Message: msg}
		case strings.EqualFold(errCode, "TooManyParts"):
			return &types.TooManyParts{Message: msg}
		}
	}
	return &smithy.GenericAPIError{Code: errCode, Message: errMessage}
}

// s3ResponseError mirrors s3shared.ResponseError
// (github.com/aws/aws-sdk-go-v2/service/internal/s3shared), the SDK's
// outermost HTTP error for S3, which lives in an internal package and so
// cannot be built here. Same fields, same Error text, same As: errors.As
// finds *awshttp.ResponseError and *smithyhttp.ResponseError through it, and
// it answers HTTPStatusCode, ServiceRequestID and ServiceHostID. Only its Go
// type differs, which no caller can name anyway.
type s3ResponseError struct {
	*awshttp.ResponseError

	// HostID is the x-amz-id-2 of the response.
	HostID string
}

// ServiceHostID returns the host id associated with the response error.
func (e *s3ResponseError) ServiceHostID() string { return e.HostID }

// Error returns the same text as s3shared.ResponseError.
func (e *s3ResponseError) Error() string {
	return fmt.Sprintf(
		"https response error StatusCode: %d, RequestID: %s, HostID: %s, %v",
		e.Response.StatusCode, e.RequestID, e.HostID, e.Err)
}

// As populates target with the error types the response error embeds:
// errors.As(e.ResponseError, target), with the targets callers ask for most
// (the API error, the two HTTP response errors) found without reflection.
func (e *s3ResponseError) As(target any) bool {
	if aws := e.ResponseError; aws != nil && aws.ResponseError != nil {
		// The chain is *awshttp.ResponseError, *smithyhttp.ResponseError,
		// then the API error; neither response error is a smithy.APIError.
		switch t := target.(type) {
		case *smithy.APIError:
			if api, ok := aws.Err.(smithy.APIError); ok {
				*t = api
				return true
			}
		case **awshttp.ResponseError:
			*t = aws
			return true
		case **smithyhttp.ResponseError:
			*t = aws.ResponseError
			return true
		}
	}
	return errors.As(e.ResponseError, target)
}

// hostIDFor derives a deterministic x-amz-id-2 from a request id.
func hostIDFor(requestID string) string { return "simhost/" + requestID }

// PreconditionFailed returns the SDK's error for a 412 PreconditionFailed
// answer to op.
func PreconditionFailed(op, requestID string) error {
	return APIError(op, http.StatusPreconditionFailed, "PreconditionFailed", msgPreconditionFailed, requestID)
}

// ConditionalRequestConflict returns the SDK's error for a 409
// ConditionalRequestConflict answer to op.
func ConditionalRequestConflict(op, requestID string) error {
	return APIError(op, http.StatusConflict, "ConditionalRequestConflict", msgConflict, requestID)
}

// NoSuchKey returns the SDK's error for a 404 NoSuchKey answer to op:
// *types.NoSuchKey for GetObject, *types.NotFound for HeadObject (no body),
// a generic API error with code "NoSuchKey" for PutObject and DeleteObject.
func NoSuchKey(op, requestID string) error {
	return APIError(op, http.StatusNotFound, "NoSuchKey", msgNoSuchKey, requestID)
}

// NoSuchBucket returns the SDK's error for a 404 NoSuchBucket answer to op:
// *types.NoSuchBucket for ListObjectsV2, *types.NotFound for HeadObject, a
// generic API error with code "NoSuchBucket" otherwise.
func NoSuchBucket(op, requestID string) error {
	return APIError(op, http.StatusNotFound, "NoSuchBucket", msgNoSuchBucket, requestID)
}

// InternalError returns the SDK's error for a 500 InternalError answer to op
// (code "InternalServerError" for HeadObject, whose answer has no body).
func InternalError(op, requestID string) error {
	return APIError(op, http.StatusInternalServerError, "InternalError", msgInternalError, requestID)
}

// SlowDown returns the SDK's error for a 503 SlowDown answer to op (code
// "ServiceUnavailable" for HeadObject).
func SlowDown(op, requestID string) error {
	return APIError(op, http.StatusServiceUnavailable, "SlowDown", msgSlowDown, requestID)
}

// TooManyRequests returns the SDK's error for a 429 TooManyRequests answer
// to op. S3 itself never answers 429 (it throttles with 503 SlowDown); a
// proxy or gateway in front of it that limits the request rate does, and
// behind its error pages (Config.ErrorPages) the nodes see only the
// status. The SDK's standard retryer does not retry a 429.
func TooManyRequests(op, requestID string) error {
	return APIError(op, http.StatusTooManyRequests, "TooManyRequests", msgTooManyRequests, requestID)
}

// AccessDenied returns the SDK's error for a 403 AccessDenied answer to op:
// S3 refused the request without applying it (the credentials were revoked
// or expired, a bucket policy shuts the caller out). HeadObject's answer
// has no body: its code is "Forbidden".
func AccessDenied(op, requestID string) error {
	return APIError(op, http.StatusForbidden, "AccessDenied", msgAccessDenied, requestID)
}

// NotModified returns the SDK's error for a 304 Not Modified answer to a
// GetObject or HeadObject with If-None-Match or If-Modified-Since. A 304 has
// no body: the code is "NotModified", the message "Not Modified".
func NotModified(op, requestID string) error {
	return APIError(op, http.StatusNotModified, "", "", requestID)
}

// notImplemented is S3's 501 answer to a conditional header value it does
// not support.
func notImplemented(op, requestID string) error {
	return APIError(op, http.StatusNotImplemented, "NotImplemented", msgNotImplemented, requestID)
}

// invalidArgument is S3's 400 InvalidArgument answer.
func invalidArgument(op, message, requestID string) error {
	return APIError(op, http.StatusBadRequest, "InvalidArgument", message, requestID)
}

// missingParams returns the error the SDK's client-side validation returns
// for an input whose required members are nil: the request is never sent.
func missingParams(op, inputName string, missingBucket, missingKey bool) error {
	invalid := smithy.InvalidParamsError{Context: inputName}
	if missingBucket {
		invalid.Add(smithy.NewErrParamRequired("Bucket"))
	}
	if missingKey {
		invalid.Add(smithy.NewErrParamRequired("Key"))
	}
	return &smithy.OperationError{ServiceID: s3ServiceID, OperationName: op, Err: invalid}
}

// emptyMember returns the error the SDK's serializer returns for a required
// member that is set but empty. (The real SDK does not check Bucket: an
// empty Bucket makes it send a path-style request for a different
// operation. The simulator refuses it the same way it refuses an empty Key.)
func emptyMember(op, member string) error {
	return &smithy.OperationError{
		ServiceID:     s3ServiceID,
		OperationName: op,
		// The SDK wraps its serializer's error once more, hence the nesting.
		Err: &smithy.SerializationError{
			Err: &smithy.SerializationError{
				Err: errors.New("input member " + member + " must not be empty"),
			},
		},
	}
}

// notModeled reports a request option the simulated store does not model.
// It is not an S3 answer: it flags a test that needs more of S3 than the
// simulator offers.
func notModeled(op, option string) error {
	return &smithy.OperationError{
		ServiceID:     s3ServiceID,
		OperationName: op,
		Err:           errors.New("sim: " + option + " is not modeled by the simulated S3 store"),
	}
}
