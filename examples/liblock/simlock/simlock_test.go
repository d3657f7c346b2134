package simlock_test

import (
	"testing"

	"example.com/liblock/simlock"
	"github.com/s3lease/s3lease/harness"
)

// TestLibLock runs liblock on random runs of the swarm: 2 to 5 nodes,
// clock skew and drift, pauses, crashes, partitions, slow and failing S3.
// A failure prints the violation and a command that replays it.
func TestLibLock(t *testing.T) { harness.Check(t, simlock.Protocol()) }

// FuzzLibLock is the same property under go test -fuzz=FuzzLibLock.
func FuzzLibLock(f *testing.F) { harness.Fuzz(f, simlock.Protocol()) }
