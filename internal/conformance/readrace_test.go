package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3lease/s3lease/sim"
)

// runReads performs a race of reads against writes (race.Readers > 0): the
// key is written once, then race.Writers writers replace it, each write
// unconditional and with a body of its own, until race.Readers readers
// have read it race.Rounds times. A read is torn when its ETag is not the
// quoted MD5 of its body (every implementation here gives a single-part
// object that ETag) but that of another body written.
func (race Race) runReads(ctx context.Context, store sim.S3Client, bucket string, callTimeout time.Duration) (RaceResult, error) {
	key := race.Name + ".k"
	put := func(body string) error {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		_, err := store.PutObject(cctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: strings.NewReader(body)})
		return err
	}
	if err := put("seed"); err != nil {
		return RaceResult{}, fmt.Errorf("%s: seed: %w", race.Name, err)
	}

	var (
		mu      sync.Mutex
		written = map[string]bool{etagOf("seed"): true} // the ETags of every body written
		writing atomic.Int32                            // writes in flight
		done    = make(chan struct{})
		errs    = make(chan error, race.Writers+race.Readers)
		wg      sync.WaitGroup
	)
	for w := range race.Writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-done:
					return
				default:
				}
				body := "writer-" + strconv.Itoa(w) + "-" + strconv.Itoa(n)
				mu.Lock()
				written[etagOf(body)] = true
				mu.Unlock()
				writing.Add(1)
				err := put(body)
				writing.Add(-1)
				if err != nil {
					errs <- fmt.Errorf("%s: write: %w", race.Name, err)
					return
				}
			}
		}()
	}

	var reads, raced, torn atomic.Int64
	var readers sync.WaitGroup
	for r := range race.Readers {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for i := r; i < race.Rounds; i += race.Readers {
				racing := writing.Load() > 0
				etag, body, err := readVersion(ctx, store, bucket, key, callTimeout)
				if err != nil {
					errs <- fmt.Errorf("%s: read: %w", race.Name, err)
					return
				}
				reads.Add(1)
				if racing || writing.Load() > 0 {
					raced.Add(1)
				}
				if etag != etagOf(body) {
					mu.Lock()
					other := written[etag]
					mu.Unlock()
					if other {
						torn.Add(1)
					}
				}
			}
		}()
	}
	readers.Wait()
	close(done)
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	res := RaceResult{Reads: int(reads.Load()), Raced: int(raced.Load()), Torn: int(torn.Load())}
	return res, errors.Join(all...)
}

// readVersion reads key: its ETag, quoted, and its body.
func readVersion(ctx context.Context, store sim.S3Client, bucket, key string, callTimeout time.Duration) (etag, body string, err error) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	out, err := store.GetObject(cctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		return "", "", err
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, maxBody))
	if err != nil {
		return "", "", err
	}
	if out.ETag != nil {
		etag = *out.ETag
		if !strings.HasPrefix(etag, `"`) {
			etag = `"` + etag + `"`
		}
	}
	return etag, string(b), nil
}
