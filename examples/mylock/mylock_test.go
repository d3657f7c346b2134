package mylock_test

import (
	"testing"

	"example.com/mylock"
	"github.com/s3lease/s3lease/harness"
)

// TestMyLock runs the lock on random runs: 2 to 5 nodes, clock skew and
// drift, pauses, crashes, partitions, slow and failing S3. A failure prints
// the violation and a command that replays it.
func TestMyLock(t *testing.T) { harness.Check(t, mylock.Protocol()) }

// FuzzMyLock is the same property under go test -fuzz=FuzzMyLock.
func FuzzMyLock(f *testing.F) { harness.Fuzz(f, mylock.Protocol()) }
