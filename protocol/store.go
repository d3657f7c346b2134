package protocol

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// ObjectStore is the set of S3 calls the elector makes: it reads the lock
// object with GetObject and writes it with conditional PutObjects, nothing
// else. The methods have exactly the signatures of aws-sdk-go-v2's
// *s3.Client, which satisfies the interface with no adapter; the
// simulator's S3 client implements it too, and returns errors shaped as the
// SDK shapes them (smithy.APIError codes inside an HTTP response error
// carrying the status).
//
// A protocol that also lists, heads or deletes objects takes the wider
// sim.S3Client, which embeds this interface; so does the simulator's
// per-node client (sim.Env.Store).
type ObjectStore interface {
	GetObject(ctx context.Context, params *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	PutObject(ctx context.Context, params *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
}

var _ ObjectStore = (*s3.Client)(nil)
