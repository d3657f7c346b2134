package protocol

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"time"
)

// defaultEntropy is the entropy of an elector whose Config.Entropy is nil:
// the operating system's.
//
//simvet:real the default only when Config.Entropy is nil; the simulator always passes its own.
func defaultEntropy() io.Reader { return rand.Reader }

// entropySource draws nonces and jitter from Config.Entropy, the elector's
// only source of randomness.
type entropySource struct {
	r   io.Reader
	log *slog.Logger
}

// nonce returns NonceLen fresh lowercase hex digits.
func (s entropySource) nonce() (string, error) {
	var b [NonceLen / 2]byte
	if _, err := io.ReadFull(s.r, b[:]); err != nil {
		return "", fmt.Errorf("s3lease: read entropy for a nonce: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// jitter returns a duration in [0, limit]. If the entropy source fails it
// logs and returns limit/2.
func (s entropySource) jitter(limit time.Duration) time.Duration {
	if limit <= 0 {
		return 0
	}
	var b [8]byte
	if _, err := io.ReadFull(s.r, b[:]); err != nil {
		s.log.Error("read entropy for jitter", "err", err)
		return limit / 2
	}
	return time.Duration(binary.BigEndian.Uint64(b[:]) % uint64(limit+1))
}
