package sim

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Torn reads.
//
// S3 updates a key atomically: a GetObject returns one version, its body
// with its ETag. A store that does not (versitygw v1.8.0 as a single
// gateway, which answered a few in ten thousand GetObjects racing a
// PutObject with the body of one version and the ETag of another;
// docs/conformance.md, race-get-put) can be modelled: Config.TornReadPPM
// is such a store's own rate, RequestFault.TornPPM a fault plan's. A
// GetObject is raced when a write of its key applied while it was under
// way, between its send and its answer: the version it read was written
// after it was sent, or was replaced before its answer came. Of the raced
// GetObjects that succeeded, the given parts per million are answered
// torn, at the instant the answer reaches the node: the body (and its
// length) of one of the two versions, and the ETag, Last-Modified,
// content type and metadata of the other, either way round. The history
// records the read as live mode does (S3Op.ETag is the ETag answered,
// S3Op.TornBodyETag that of the version whose body came), the trace
// records the answer's event with FaultTornRead, and the history's faults
// a FaultSpan "torn-read" of the node, from the send to the answer.

// current returns the object stored under key, or nil: the version a
// GetObject applied now reads.
func (s *Store) current(bucketName, key string) *storedObject {
	b := s.bucket(bucketName)
	if b == nil {
		return nil
	}
	return b.get(key)
}

// tearPartner returns the version a GetObject that read version read,
// and was sent at since (S3's clock), may be torn with now that the key
// holds cur (nil if deleted): cur, if a write replaced read after it was
// read; else the version read replaced, if read was written after the
// GetObject was sent; else nil (no write raced the read).
func tearPartner(read, cur *storedObject, since time.Time) *storedObject {
	switch {
	case cur != nil && cur != read && !cur.applied.Before(since):
		return cur
	case cur == read && read.prev != nil && !read.applied.Before(since):
		return read.prev
	}
	return nil
}

// tornOutput is a GetObject's answer with the body of version body and
// every other field of version meta.
func tornOutput(body, meta *storedObject) *s3.GetObjectOutput {
	a := &struct {
		out    s3.GetObjectOutput
		body   bodyReader
		fields objectFields
	}{}
	a.body.b = body.body
	a.out.Body = &a.body
	fillObjectOutput(meta, &a.fields, &a.out.AcceptRanges, &a.out.ContentLength, &a.out.ContentType, &a.out.ETag, &a.out.LastModified, &a.out.Metadata)
	a.fields.contentLength = int64(len(body.body))
	return &a.out
}

// tornPPM is the chance, in parts per million, that a raced GetObject of
// fate f is answered torn: the store's own rate or the fault's, whichever
// is higher.
func (w *World) tornPPM(f RequestFault) int64 { return max(w.cfg.TornReadPPM, f.TornPPM) }

// tear answers the GetObject pc, whose answer has just reached node n,
// torn if a write raced it and the chance of f falls so (see above); hi
// is its index in the history. It returns the ETag of the version whose
// body the answer carries, or "" if it is not torn.
func (w *World) tear(n *Node, pc *s3Landing, hi int) string {
	read := pc.got
	if w.por != nil {
		w.por.por.touch(access{kind: accKey, name: s3Object(pc.bucket, pc.key)})
	}
	other := tearPartner(read, w.store.current(pc.bucket, pc.key), Epoch.Add(pc.sent+w.s3.clock))
	if other == nil || other.etag == read.etag && other.body == read.body {
		return ""
	}
	if ppm := w.tornPPM(pc.fate); ppm < 1_000_000 && w.chooser.Choose(ChooseFault, 1_000_000) >= uint64(ppm) {
		return ""
	}
	body, meta := read, other
	if w.chooser.Choose(ChooseFault, 2) == 1 {
		body, meta = other, read
	}
	pc.getOut, pc.etag = tornOutput(body, meta), meta.etag
	w.history.S3[hi].TornBodyETag = body.etag
	w.RecordFault(FaultSpan{Kind: FaultTornRead.String(), Node: n.Index, From: pc.sent, To: w.now})
	return body.etag
}
