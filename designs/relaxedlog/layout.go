package relaxedlog

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Bag names one bag: the start of its time bucket, in Unix milliseconds.
// A message stamped t goes to the bag of t's bucket (Config.BagOf).
type Bag int64

// bagDigits is how many digits a bag's name has, so that S3's
// lexicographic listing order is the bags' time order.
const bagDigits = 15

// The keys of a bag, under Config.Prefix<bag>/: its messages under data/,
// one object each, then the lock object and the prelock, in that (listing)
// order.
const (
	dataDir    = "data/"
	lockName   = "lock"
	prelockNam = "prelock"
)

// BagOf is the bag of a message stamped t.
func (c Config) BagOf(t time.Time) Bag {
	ms, w := t.UnixMilli(), c.Bucket.Milliseconds()
	b := ms / w
	if ms%w < 0 {
		b--
	}
	return Bag(b * w)
}

// Start is the wall-clock instant at which b's bucket begins.
func (b Bag) Start() time.Time { return time.UnixMilli(int64(b)).UTC() }

// closable reports whether a clock reading now puts b clearly in the past:
// its bucket ended Grace ago or more.
func (c Config) closable(b Bag, now time.Time) bool {
	return !now.Before(b.Start().Add(c.Bucket + c.Grace))
}

// dir is the prefix of every key of bag b.
func (c Config) dir(b Bag) string { return fmt.Sprintf("%s%0*d/", c.Prefix, bagDigits, int64(b)) }

// DataPrefix is the prefix of b's messages.
func (c Config) DataPrefix(b Bag) string { return c.dir(b) + dataDir }

// LockObject is b's lock object, PrelockObject its prelock.
func (c Config) LockObject(b Bag) string    { return c.dir(b) + lockName }
func (c Config) PrelockObject(b Bag) string { return c.dir(b) + prelockNam }

// keyKind is what a key under Prefix is.
type keyKind uint8

const (
	notBagKey keyKind = iota
	dataKey
	lockKey
	prelockKey
)

// parse says which bag a key under Prefix belongs to and what it is.
func (c Config) parse(key string) (Bag, keyKind) {
	rest, ok := strings.CutPrefix(key, c.Prefix)
	if !ok || len(rest) < bagDigits+1 || rest[bagDigits] != '/' {
		return 0, notBagKey
	}
	n, err := strconv.ParseInt(rest[:bagDigits], 10, 64)
	if err != nil || n < 0 {
		return 0, notBagKey
	}
	switch name := rest[bagDigits+1:]; {
	case strings.HasPrefix(name, dataDir) && len(name) > len(dataDir):
		return Bag(n), dataKey
	case name == lockName:
		return Bag(n), lockKey
	case name == prelockNam:
		return Bag(n), prelockKey
	}
	return 0, notBagKey
}
