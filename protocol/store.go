package protocol

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// ObjectStore is the set of S3 calls an election protocol may make. The
// methods have exactly the signatures of aws-sdk-go-v2's *s3.Client, which
// satisfies the interface with no adapter; the simulator's S3 implements it
// too, and returns errors shaped as the SDK shapes them (smithy.APIError codes
// inside an HTTP response error carrying the status).
type ObjectStore interface {
	GetObject(ctx context.Context, params *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	PutObject(ctx context.Context, params *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	HeadObject(ctx context.Context, params *s3.HeadObjectInput, optFns ...func(*s3.Options)) (*s3.HeadObjectOutput, error)
	DeleteObject(ctx context.Context, params *s3.DeleteObjectInput, optFns ...func(*s3.Options)) (*s3.DeleteObjectOutput, error)
	ListObjectsV2(ctx context.Context, params *s3.ListObjectsV2Input, optFns ...func(*s3.Options)) (*s3.ListObjectsV2Output, error)
}

var _ ObjectStore = (*s3.Client)(nil)
