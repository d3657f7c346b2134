package sim

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// ErrorPages says how the nodes receive S3's error answers: S3's own XML
// error documents, or the pages of an HTTP proxy between the nodes and S3
// that answers each error with a page of its own (nginx with
// proxy_intercept_errors, a corporate gateway, an S3-compatible front end).
// The status and headers pass through; the body, and with it S3's error
// code, does not. The zero value is ErrorPagesS3.
type ErrorPages uint8

const (
	// ErrorPagesS3: S3's XML error documents reach the nodes.
	ErrorPagesS3 ErrorPages = iota
	// ErrorPagesPlain: the proxy's pages hold no S3 error (plain text, or
	// HTML that reads as XML): the SDK derives the error code from the
	// status text ("Conflict", "InternalServerError"), as it does for a
	// HEAD answer, which has no body.
	ErrorPagesPlain
	// ErrorPagesHTML: the proxy's pages are HTML that the SDK's XML decoder
	// rejects (an unclosed <meta>): the error carries the HTTP status and
	// no error code at all.
	ErrorPagesHTML
	numErrorPages
)

var errorPagesNames = [numErrorPages]string{"s3", "plain", "html"}

// String names the pages as ParseErrorPages accepts them.
func (p ErrorPages) String() string {
	if p < numErrorPages {
		return errorPagesNames[p]
	}
	return fmt.Sprintf("ErrorPages(%d)", uint8(p))
}

// ParseErrorPages returns the ErrorPages named s: "s3" (or ""), "plain" or
// "html".
func ParseErrorPages(s string) (ErrorPages, error) {
	if s == "" {
		return ErrorPagesS3, nil
	}
	for p, name := range errorPagesNames {
		if s == name {
			return ErrorPages(p), nil
		}
	}
	return ErrorPagesS3, fmt.Errorf("sim: unknown error pages %q (want \"s3\", \"plain\" or \"html\")", s)
}

// ProxyHTMLPage is the page of ErrorPagesHTML: an error page as a web
// server writes it, which is HTML but not XML.
const ProxyHTMLPage = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Error</title></head>\n" +
	"<body><h1>The server could not complete your request.</h1><br></body></html>\n"

// ProxyPlainPage is the page of ErrorPagesPlain.
const ProxyPlainPage = "upstream answered with an error\n"

// htmlPageError is what the SDK's XML error decoder
// (s3shared.GetErrorResponseComponents) returns for ProxyHTMLPage, decoded
// the way it decodes.
var htmlPageError = func() error {
	var components struct {
		Code      string `xml:"Code"`
		Message   string `xml:"Message"`
		RequestID string `xml:"RequestId"`
		HostID    string `xml:"HostId"`
	}
	err := xml.NewDecoder(strings.NewReader(ProxyHTMLPage)).Decode(&components)
	if err == nil || err == io.EOF {
		panic("sim: ProxyHTMLPage reads as XML")
	}
	return fmt.Errorf("error while deserializing xml error response : %w", err)
}()

// ProxiedError returns the error the SDK returns for an error answer with
// status to op whose body a proxy replaced with its pages (see
// ErrorPages); requestID is S3's, whose headers pass through. A HEAD
// answer and a 304 have no body in any case: their error is APIError's.
func ProxiedError(op string, status int, requestID string, pages ErrorPages) error {
	bodyless := status == http.StatusNotModified || op == OpHeadObject || op == "HeadBucket"
	if pages == ErrorPagesPlain || bodyless {
		return APIError(op, status, "", "", requestID)
	}
	return newErrorChain(op, status, http.StatusText(status), requestID, "text/html", htmlPageError)
}

// HTMLPage reports whether err is an answer whose body a proxy replaced
// with ProxyHTMLPage (ProxiedError with ErrorPagesHTML): the SDK could not
// read it, so the error carries the status and no code. A transport that
// serves the simulated S3 over HTTP answers such an error with that page.
func HTMLPage(err error) bool { return errors.Is(err, htmlPageError) }

// throughProxy is err, an answer of S3 with status to op, as a node behind
// pages receives it.
func throughProxy(err error, op string, status int, pages ErrorPages) error {
	if pages == ErrorPagesS3 || err == nil || status < 300 {
		return err
	}
	var resp *awshttp.ResponseError
	if !errors.As(err, &resp) {
		return err // not an answer of S3 (a client-side error)
	}
	return ProxiedError(op, status, resp.ServiceRequestID(), pages)
}
