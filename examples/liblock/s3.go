package liblock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// S3API is the part of *s3.Client the lock uses.
type S3API interface {
	GetObject(ctx context.Context, in *s3.GetObjectInput, optFns ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	PutObject(ctx context.Context, in *s3.PutObjectInput, optFns ...func(*s3.Options)) (*s3.PutObjectOutput, error)
}

// record is the object's body. Expires is the writer's clock plus the
// TTL, for people and tools reading the object.
type record struct {
	Owner    string    `json:"owner"`
	Token    uint64    `json:"token"`
	Expires  time.Time `json:"expires"`
	Released bool      `json:"released,omitempty"`
}

// read gets the object: its ETag ("" if there is none) and its record
// (zero if the body is not one).
func (l *Lock) read(ctx context.Context) (string, record, error) {
	out, err := l.o.Client.GetObject(ctx, &s3.GetObjectInput{Bucket: &l.o.Bucket, Key: &l.key})
	if _, missing := errors.AsType[*types.NoSuchKey](err); missing {
		return "", record{}, nil
	} else if err != nil {
		return "", record{}, err
	}
	defer out.Body.Close()
	var rec record
	if body, err := io.ReadAll(io.LimitReader(out.Body, 64<<10)); err != nil {
		return "", record{}, err
	} else if json.Unmarshal(body, &rec) != nil {
		rec = record{}
	}
	return aws.ToString(out.ETag), rec, nil
}

// write puts this process's record with token, If-Match etag (or
// If-None-Match: * if etag is empty), sent at now. On success the ETag
// is the lock's and the term lasts until now plus Term.
func (l *Lock) write(ctx context.Context, now time.Time, token uint64, etag string) error {
	body, _ := json.Marshal(record{Owner: l.o.Owner, Token: token, Expires: now.Add(l.o.TTL)})
	in := &s3.PutObjectInput{Bucket: &l.o.Bucket, Key: &l.key, Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body)))}
	if etag == "" {
		in.IfNoneMatch = createCondition()
	} else {
		in.IfMatch = aws.String(etag)
	}
	out, err := l.o.Client.PutObject(ctx, in)
	if err != nil {
		return err
	}
	l.etag, l.deadline = aws.ToString(out.ETag), now.Add(l.o.Term)
	return nil
}

// isPreconditionFailed reports a 412: the object is not the one the
// write was conditioned on.
func isPreconditionFailed(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == "PreconditionFailed"
}
