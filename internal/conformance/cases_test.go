package conformance

import (
	"crypto/md5"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// Op names the S3 call a step makes.
type Op string

// The calls of sim.S3Client.
const (
	Put    Op = "PutObject"
	Get    Op = "GetObject"
	Head   Op = "HeadObject"
	Delete Op = "DeleteObject"
	List   Op = "ListObjectsV2"
)

// condKind is what a Cond refers to.
type condKind uint8

const (
	condNone     condKind = iota
	condETag              // the ETag returned for a write of body, as returned
	condUnquoted          // the same, quotes removed
	condLiteral           // a literal header value
)

// Cond is the value of a conditional header, named symbolically so that a
// case reads the same against every store. The zero Cond sends no header.
type Cond struct {
	kind condKind
	arg  string
}

// ETagOf is the ETag the store returned for this case's last successful
// write of body, exactly as returned (quoted). If no write of body succeeded,
// it is the quoted hex MD5 of body, which is what S3 would have returned.
func ETagOf(body string) Cond { return Cond{condETag, body} }

// UnquotedETagOf is ETagOf(body) without its surrounding double quotes.
func UnquotedETagOf(body string) Cond { return Cond{condUnquoted, body} }

// Literal is a header value sent as is.
func Literal(value string) Cond { return Cond{condLiteral, value} }

// StaleBody is a body no case ever writes: ETagOf(StaleBody) is a
// well-formed ETag that no object has.
const StaleBody = "never-written"

// Stale is a well-formed quoted ETag that matches no object.
var Stale = ETagOf(StaleBody)

// Any is the header value "*".
var Any = Literal("*")

// String renders the header value as the table shows it.
func (c Cond) String() string {
	switch c.kind {
	case condETag:
		if c.arg == StaleBody {
			return "stale-etag"
		}
		return "etag(" + c.arg + ")"
	case condUnquoted:
		return "unquoted-etag(" + c.arg + ")"
	case condLiteral:
		return strconv.Quote(c.arg)
	}
	return ""
}

// Step is one S3 call of a case.
type Step struct {
	// Prop is the short name of the property the step probes. It names the
	// step's differences in the report, and is unique across all cases.
	Prop string
	// Op is the call.
	Op Op
	// Key is the key relative to the case ("k", "k2"); ListObjectsV2 lists
	// the case's keys and ignores it.
	Key string
	// Body is the body a PutObject writes.
	Body string
	// IfMatch and IfNoneMatch are the conditional headers, if any.
	IfMatch, IfNoneMatch Cond
	// AWS is Amazon S3's documented answer, rendered as Observe renders
	// answers.
	AWS string
	// Guard marks a conditional write the elector relies on being refused:
	// a store that answers it with a success is unsafe for the elector.
	Guard bool
}

// Request renders the call as the table shows it.
func (s Step) Request() string {
	var b strings.Builder
	switch s.Op {
	case Put:
		b.WriteString("PUT " + s.Key + " " + s.Body)
	case Get:
		b.WriteString("GET " + s.Key)
	case Head:
		b.WriteString("HEAD " + s.Key)
	case Delete:
		b.WriteString("DELETE " + s.Key)
	case List:
		b.WriteString("LIST")
	}
	if s.IfMatch.kind != condNone {
		b.WriteString(" If-Match: " + s.IfMatch.String())
	}
	if s.IfNoneMatch.kind != condNone {
		b.WriteString(" If-None-Match: " + s.IfNoneMatch.String())
	}
	return b.String()
}

// Case is a short sequence of calls on keys of its own.
type Case struct {
	// Name is the case's identifier; its keys are Name + "." + Step.Key.
	Name string
	// Title says what the case asks.
	Title string
	// Sources are the keys into Sources of the AWS documentation its
	// expected answers come from.
	Sources []string
	// Steps are the calls, made in order.
	Steps []Step
}

// RowID is the identifier of a case's i-th step (from 0) in the report:
// "name#n", n from 1.
func (c Case) RowID(i int) string { return c.Name + "#" + strconv.Itoa(i+1) }

// Source is a page of AWS's documentation that an expected answer rests on.
type Source struct {
	// URL is the page.
	URL string
	// What is what the page says that the expected answers use.
	What string
}

// Sources are the AWS documentation pages (and, where AWS's pages are silent,
// recorded observations of AWS) behind the AWS answers of Cases.
var Sources = map[string]Source{
	"writes": {
		"https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html#conditional-error-response",
		"Conditional writes: If-None-Match: * on an existing key and If-Match with a different ETag fail with 412 Precondition Failed; If-Match with no current object fails with 404; a concurrent conflicting write may answer 409 ConditionalRequestConflict. If-None-Match expects *.",
	},
	"putobject": {
		"https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html",
		"PutObject API: If-Match \"expects the ETag value as a string\" and answers 412 when the ETags do not match (unlike DeleteObject's, it gives * no meaning, so * is compared as an ETag value, which no object has); If-None-Match expects *.",
	},
	"notimplemented-observed": {
		"https://github.com/versity/versitygw/issues/1708",
		"Observed on AWS by versitygw's developers, who test against it (\"direct mode\"): PutObject If-None-Match with a value other than * answers 501 Not Implemented.",
	},
	"both-observed": {
		"https://github.com/vercel/storage/pull/1022",
		"Observed on AWS in production: PutObject with both If-Match and If-None-Match: * answers 501 NotImplemented.",
	},
	"unquoted-observed": {
		"https://github.com/versity/versitygw/issues/1710",
		"Observed on AWS by versitygw's developers, and fixed in versitygw to match: S3 evaluates a precondition header alike whether the ETag in it is quoted or not.",
	},
	"rfc7232": {
		"https://www.rfc-editor.org/rfc/rfc7232#section-3.2",
		"RFC 7232, to which AWS's pages on conditional requests refer: If-None-Match: * is false when the object has any current version, and a GET or HEAD whose If-None-Match is false answers 304 Not Modified.",
	},
	"consistency": {
		"https://docs.aws.amazon.com/AmazonS3/latest/userguide/Welcome.html#ConsistencyModel",
		"Amazon S3 data consistency model: strong read-after-write consistency, and updates to a single key are atomic: a read returns one version, its body with its ETag.",
	},
	"nosuchkey-observed": {
		"https://github.com/minio/minio/issues/21526",
		"Observed on AWS and quoted in a MinIO issue: PutObject If-Match (an unquoted ETag) on a missing key answers NoSuchKey, \"The specified key does not exist\".",
	},
	"deletes": {
		"https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-deletes.html",
		"Conditional deletes: DeleteObject If-Match with the current ETag answers 204 No Content; a different ETag answers 412 Precondition Failed; If-Match: * checks that the object exists; If-Match on a key with no current object answers 404 NoSuchKey. Its CLI example passes the ETag as a bare hex string (the shell removes the quotes).",
	},
	"getobject": {
		"https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html",
		"GetObject API: a missing key is 404 NoSuchKey; If-None-Match that matches the ETag answers 304 Not Modified; If-Match that does not match answers 412.",
	},
	"headobject": {
		"https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadObject.html",
		"HeadObject API: the same conditions as GetObject; errors have no body, so the SDK reports the status text (404 NotFound, 304 NotModified).",
	},
	"listobjectsv2": {
		"https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html",
		"ListObjectsV2 API: the keys under Prefix in UTF-8 binary order, each with its ETag.",
	},
	"requests": {
		"https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-requests.html",
		"Conditional requests overview: which calls accept which headers.",
	},
}

// Cases is the table of cases, in report order: conditional puts, then
// conditional deletes, then conditional reads and listings.
func Cases() []Case {
	return slices.Concat(putCases(), deleteCases(), readCases())
}

// Answers the cases expect, as Observe renders them.
const (
	ok1     = "200 etag=v1"
	ok2     = "200 etag=v2"
	get1    = "200 etag=v1 body=v1"
	get2    = "200 etag=v2 body=v2"
	pf      = "412 PreconditionFailed"
	gone    = "404 NoSuchKey"
	noHead  = "404 NotFound"
	notImpl = "501 NotImplemented"
	notMod  = "304 NotModified"
)

// put is an unconditional PutObject of body on key, which AWS answers 200.
func put(prop, key, body string) Step {
	return Step{Prop: prop, Op: Put, Key: key, Body: body, AWS: "200 etag=" + body}
}

// get is an unconditional GetObject of k that AWS answers aws.
func get(prop, aws string) Step { return Step{Prop: prop, Op: Get, Key: "k", AWS: aws} }

// head is an unconditional HeadObject of k that AWS answers aws.
func head(prop, aws string) Step { return Step{Prop: prop, Op: Head, Key: "k", AWS: aws} }

// putCases are the cases of conditional PutObjects: creates (If-None-Match)
// and replacements (If-Match).
func putCases() []Case {
	return []Case{
		{
			Name:    "create-absent",
			Title:   "PutObject If-None-Match: * on an absent key creates it.",
			Sources: []string{"writes", "putobject"},
			Steps: []Step{
				{Prop: "create-absent", Op: Put, Key: "k", Body: "v1", IfNoneMatch: Any, AWS: ok1},
				get("create-absent/get", get1),
				head("create-absent/head", ok1),
			},
		},
		{
			Name:    "create-present",
			Title:   "PutObject If-None-Match: * on a present key is refused and changes nothing.",
			Sources: []string{"writes", "putobject"},
			Steps: []Step{
				put("create-present/seed", "k", "v1"),
				{Prop: "create-present", Op: Put, Key: "k", Body: "v2", IfNoneMatch: Any, AWS: pf, Guard: true},
				get("create-present/get", get1),
				head("create-present/head", ok1),
			},
		},
		{
			Name:    "create-race",
			Title:   "Two creators with If-None-Match: *, one after the other: the second is refused.",
			Sources: []string{"writes"},
			Steps: []Step{
				{Prop: "create-race/first", Op: Put, Key: "k", Body: "v1", IfNoneMatch: Any, AWS: ok1},
				{Prop: "create-race", Op: Put, Key: "k", Body: "v2", IfNoneMatch: Any, AWS: pf, Guard: true},
				get("create-race/get", get1),
			},
		},
		{
			Name:    "if-match-current",
			Title:   "PutObject If-Match with the current ETag replaces the object.",
			Sources: []string{"writes", "putobject"},
			Steps: []Step{
				put("if-match-current/seed", "k", "v1"),
				{Prop: "if-match-current", Op: Put, Key: "k", Body: "v2", IfMatch: ETagOf("v1"), AWS: ok2},
				get("if-match-current/get", get2),
				head("if-match-current/head", ok2),
			},
		},
		{
			Name:    "if-match-stale",
			Title:   "PutObject If-Match with an ETag the object does not have is refused.",
			Sources: []string{"writes", "putobject"},
			Steps: []Step{
				put("if-match-stale/seed", "k", "v1"),
				{Prop: "if-match-stale", Op: Put, Key: "k", Body: "v2", IfMatch: Stale, AWS: pf, Guard: true},
				get("if-match-stale/get", get1),
				head("if-match-stale/head", ok1),
			},
		},
		{
			Name:    "if-match-unquoted",
			Title:   "PutObject If-Match with the current ETag without its quotes (AWS's own CLI examples send it so) replaces the object.",
			Sources: []string{"writes", "deletes", "nosuchkey-observed"},
			Steps: []Step{
				put("if-match-unquoted/seed", "k", "v1"),
				{Prop: "if-match-unquoted", Op: Put, Key: "k", Body: "v2", IfMatch: UnquotedETagOf("v1"), AWS: ok2},
				get("if-match-unquoted/get", get2),
			},
		},
		{
			Name:    "if-match-garbage",
			Title:   "PutObject If-Match with a value that is no ETag at all is refused.",
			Sources: []string{"writes", "putobject"},
			Steps: []Step{
				put("if-match-garbage/seed", "k", "v1"),
				{Prop: "if-match-garbage", Op: Put, Key: "k", Body: "v2", IfMatch: Literal("garbage"), AWS: pf, Guard: true},
				get("if-match-garbage/get", get1),
			},
		},
		{
			Name:    "if-match-deleted",
			Title:   "PutObject If-Match with the ETag of a deleted object is refused (404: no current object).",
			Sources: []string{"writes", "nosuchkey-observed", "getobject", "headobject"},
			Steps: []Step{
				put("if-match-deleted/seed", "k", "v1"),
				{Prop: "if-match-deleted/delete", Op: Delete, Key: "k", AWS: "204"},
				{Prop: "if-match-deleted", Op: Put, Key: "k", Body: "v2", IfMatch: ETagOf("v1"), AWS: gone, Guard: true},
				get("if-match-deleted/get", gone),
				head("if-match-deleted/head", noHead),
			},
		},
		{
			Name:    "if-match-never",
			Title:   "PutObject If-Match on a key that never existed is refused (404: no current object).",
			Sources: []string{"writes", "nosuchkey-observed", "getobject", "headobject"},
			Steps: []Step{
				{Prop: "if-match-never", Op: Put, Key: "k", Body: "v1", IfMatch: Stale, AWS: gone, Guard: true},
				get("if-match-never/get", gone),
				head("if-match-never/head", noHead),
			},
		},
		{
			Name:    "if-match-star",
			Title:   "PutObject If-Match: * twice on an absent key, then twice on a present one: * is an ETag value no object has, not a wildcard (404 with no current object, then 412), and nothing is written.",
			Sources: []string{"putobject", "writes"},
			Steps: []Step{
				{Prop: "if-match-star-absent", Op: Put, Key: "k", Body: "v1", IfMatch: Any, AWS: gone},
				{Prop: "if-match-star-absent-again", Op: Put, Key: "k", Body: "v1", IfMatch: Any, AWS: gone},
				put("if-match-star/seed", "k", "v1"),
				{Prop: "if-match-star-present", Op: Put, Key: "k", Body: "v2", IfMatch: Any, AWS: pf},
				{Prop: "if-match-star-present-again", Op: Put, Key: "k", Body: "v3", IfMatch: Any, AWS: pf},
				get("if-match-star/get", get1),
			},
		},
		{
			Name:    "if-none-match-etag",
			Title:   "PutObject If-None-Match with an ETag rather than *, the object's or another: not implemented (501), nothing written.",
			Sources: []string{"putobject", "notimplemented-observed"},
			Steps: []Step{
				put("if-none-match-etag/seed", "k", "v1"),
				{Prop: "if-none-match-etag-current", Op: Put, Key: "k", Body: "v2", IfNoneMatch: ETagOf("v1"), AWS: notImpl},
				{Prop: "if-none-match-etag-stale", Op: Put, Key: "k", Body: "v3", IfNoneMatch: Stale, AWS: notImpl},
				get("if-none-match-etag/get", get1),
			},
		},
		{
			Name:    "both-conditions",
			Title:   "PutObject with both If-Match (the current ETag) and If-None-Match: *: not implemented (501), nothing written.",
			Sources: []string{"putobject", "both-observed"},
			Steps: []Step{
				put("both-conditions/seed", "k", "v1"),
				{Prop: "both-conditions", Op: Put, Key: "k", Body: "v2", IfMatch: ETagOf("v1"), IfNoneMatch: Any, AWS: notImpl},
				get("both-conditions/get", get1),
			},
		},
		{
			Name:    "if-match-race",
			Title:   "Two writers with the same If-Match, one after the other: the first wins, the second is refused.",
			Sources: []string{"writes"},
			Steps: []Step{
				put("if-match-race/seed", "k", "v1"),
				{Prop: "if-match-race/first", Op: Put, Key: "k", Body: "v2", IfMatch: ETagOf("v1"), AWS: ok2},
				{Prop: "if-match-race", Op: Put, Key: "k", Body: "v3", IfMatch: ETagOf("v1"), AWS: pf, Guard: true},
				get("if-match-race/get", get2),
				head("if-match-race/head", ok2),
			},
		},
	}
}

// deleteCases are the cases of conditional DeleteObjects.
func deleteCases() []Case {
	return []Case{
		{
			Name:    "delete-if-match-current",
			Title:   "DeleteObject If-Match with the current ETag deletes the object.",
			Sources: []string{"deletes", "getobject", "headobject"},
			Steps: []Step{
				put("delete-if-match-current/seed", "k", "v1"),
				{Prop: "delete-if-match-current", Op: Delete, Key: "k", IfMatch: ETagOf("v1"), AWS: "204"},
				get("delete-if-match-current/get", gone),
				head("delete-if-match-current/head", noHead),
			},
		},
		{
			Name:    "delete-if-match-stale",
			Title:   "DeleteObject If-Match with an ETag the object does not have is refused and deletes nothing.",
			Sources: []string{"deletes"},
			Steps: []Step{
				put("delete-if-match-stale/seed", "k", "v1"),
				{Prop: "delete-if-match-stale", Op: Delete, Key: "k", IfMatch: Stale, AWS: pf},
				get("delete-if-match-stale/get", get1),
				head("delete-if-match-stale/head", ok1),
			},
		},
		{
			Name:    "delete-if-match-absent",
			Title:   "DeleteObject If-Match on a key with no object is refused (404), twice, unlike an unconditional delete (204).",
			Sources: []string{"deletes"},
			Steps: []Step{
				{Prop: "delete-if-match-absent", Op: Delete, Key: "k", IfMatch: Stale, AWS: gone},
				{Prop: "delete-if-match-absent-again", Op: Delete, Key: "k", IfMatch: Stale, AWS: gone},
				{Prop: "delete-absent", Op: Delete, Key: "k", AWS: "204"},
			},
		},
		{
			Name:    "delete-if-match-star",
			Title:   "DeleteObject If-Match: * deletes a present object (* checks that it exists), and on the absent key is refused (404).",
			Sources: []string{"deletes", "getobject", "headobject"},
			Steps: []Step{
				put("delete-if-match-star/seed", "k", "v1"),
				{Prop: "delete-if-match-star", Op: Delete, Key: "k", IfMatch: Any, AWS: "204"},
				get("delete-if-match-star/get", gone),
				head("delete-if-match-star/head", noHead),
				{Prop: "delete-if-match-star-absent", Op: Delete, Key: "k", IfMatch: Any, AWS: gone},
			},
		},
	}
}

// readCases are the cases of conditional GetObjects and HeadObjects, and
// of listings.
func readCases() []Case {
	return []Case{
		{
			Name:    "get-if-none-match",
			Title:   "GetObject and HeadObject If-None-Match with the current ETag answer 304 Not Modified; with another ETag, the object.",
			Sources: []string{"getobject", "headobject"},
			Steps: []Step{
				put("get-if-none-match/seed", "k", "v1"),
				{Prop: "get-if-none-match", Op: Get, Key: "k", IfNoneMatch: ETagOf("v1"), AWS: notMod},
				{Prop: "head-if-none-match", Op: Head, Key: "k", IfNoneMatch: ETagOf("v1"), AWS: notMod},
				{Prop: "get-if-none-match-stale", Op: Get, Key: "k", IfNoneMatch: Stale, AWS: get1},
			},
		},
		{
			Name:    "get-if-match",
			Title:   "GetObject and HeadObject If-Match with an ETag the object does not have answer 412; with its ETag, the object.",
			Sources: []string{"getobject", "headobject", "requests"},
			Steps: []Step{
				put("get-if-match/seed", "k", "v1"),
				{Prop: "get-if-match-stale", Op: Get, Key: "k", IfMatch: Stale, AWS: pf},
				{Prop: "head-if-match-stale", Op: Head, Key: "k", IfMatch: Stale, AWS: pf},
				{Prop: "get-if-match-current", Op: Get, Key: "k", IfMatch: ETagOf("v1"), AWS: get1},
			},
		},
		{
			Name:    "get-if-none-match-star",
			Title:   "GetObject and HeadObject If-None-Match: * on a present object answer 304 Not Modified (* matches any current version).",
			Sources: []string{"getobject", "headobject", "requests", "rfc7232"},
			Steps: []Step{
				put("get-if-none-match-star/seed", "k", "v1"),
				{Prop: "get-if-none-match-star", Op: Get, Key: "k", IfNoneMatch: Any, AWS: notMod},
				{Prop: "head-if-none-match-star", Op: Head, Key: "k", IfNoneMatch: Any, AWS: notMod},
			},
		},
		{
			Name:    "get-unquoted",
			Title:   "GetObject If-None-Match and If-Match with the current ETag without its quotes are evaluated as with its quotes (304; the object).",
			Sources: []string{"getobject", "unquoted-observed"},
			Steps: []Step{
				put("get-unquoted/seed", "k", "v1"),
				{Prop: "get-if-none-match-unquoted", Op: Get, Key: "k", IfNoneMatch: UnquotedETagOf("v1"), AWS: notMod},
				{Prop: "get-if-match-unquoted", Op: Get, Key: "k", IfMatch: UnquotedETagOf("v1"), AWS: get1},
			},
		},
		{
			Name:    "list",
			Title:   "ListObjectsV2 shows the current keys with their current ETags.",
			Sources: []string{"listobjectsv2", "writes"},
			Steps: []Step{
				put("list/seed-k", "k", "v1"),
				put("list/seed-k2", "k2", "v2"),
				{Prop: "list/delete", Op: Delete, Key: "k", AWS: "204"},
				{Prop: "list-after-delete", Op: List, AWS: "200 [k2 etag=v2]"},
				{Prop: "list/replace", Op: Put, Key: "k2", Body: "v3", IfMatch: ETagOf("v2"), AWS: "200 etag=v3"},
				{Prop: "list-after-replace", Op: List, AWS: "200 [k2 etag=v3]"},
			},
		},
	}
}

// etagOf returns the quoted hex MD5 of body: the ETag S3 gives a
// single-part, unencrypted object.
func etagOf(body string) string {
	sum := md5.Sum([]byte(body))
	return `"` + hex.EncodeToString(sum[:]) + `"`
}
