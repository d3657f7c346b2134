package relaxedlog

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Message is one message of the log: what its writer wrote, stamped with a
// timestamp above the watermarks of the leases it was written under and
// below their expiry, and the leases themselves (each domain with its
// term's fencing token). Readers order a domain's messages by Stamp.
type Message struct {
	// Key is the message's object (not part of its body).
	Key string `json:"-"`
	// Writer names the process that wrote it, Seq counts its messages.
	Writer string    `json:"writer"`
	Seq    uint64    `json:"seq"`
	Stamp  time.Time `json:"stamp"`
	Leases []Held    `json:"leases"`
}

// Held is one lease a message was written under.
type Held struct {
	Domain string `json:"domain"`
	Token  uint64 `json:"token"`
}

// Token is the token of the lease on domain the message was written under,
// and whether it was written under one.
func (m Message) Token(domain string) (uint64, bool) {
	for _, h := range m.Leases {
		if h.Domain == domain {
			return h.Token, true
		}
	}
	return 0, false
}

// DecodeMessage reads the body of the message at key.
func DecodeMessage(key string, body []byte) (Message, error) {
	var m Message
	if err := json.Unmarshal(body, &m); err != nil {
		return Message{}, fmt.Errorf("relaxedlog: message %s: %w", key, err)
	}
	m.Key = key
	return m, nil
}

// lockList is a lock object's body: the messages of the bag that count,
// as its closer's listing found them, and who closed it (with a count, so
// that no two bodies are the same).
type lockList struct {
	Closer string   `json:"closer"`
	N      uint64   `json:"n"`
	Items  []string `json:"items"`
}

// prelock is a prelock's body: who announced the close.
type prelock struct {
	Closer string `json:"closer"`
	N      uint64 `json:"n"`
}

func encodeJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("relaxedlog: encode: " + err.Error()) // plain fields always encode
	}
	return b
}

// decodeLock reads a lock object's body; its items sorted.
func decodeLock(body []byte) ([]string, error) {
	var l lockList
	if err := json.Unmarshal(body, &l); err != nil {
		return nil, fmt.Errorf("relaxedlog: lock object: %w", err)
	}
	slices.Sort(l.Items)
	return l.Items, nil
}
