package conformance

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/s3lease/s3lease/sim"
)

// Race is a truly concurrent case: in each round, Writers PutObject calls
// with the same condition are released at once on one key, and at most one
// may succeed. It is the elector's race for a term: candidates that read
// the same record (or no record) all write conditioned on it.
type Race struct {
	// Name identifies the race; its keys are Name + ".r<round>".
	Name string
	// Title says what the race asks.
	Title string
	// Create makes the writers create the key with If-None-Match: *;
	// otherwise the key is first written once, unconditionally, and the
	// writers replace it with If-Match: its ETag.
	Create bool
	// Writers and Rounds size the race.
	Writers, Rounds int
	// Sources are the keys into Sources of the AWS documentation its
	// expected outcome comes from.
	Sources []string
	// Readers, if positive, makes it a race of reads against writes
	// instead: Writers replace the key unconditionally, each write with a
	// body of its own, while Readers read it, Rounds reads in all; a read
	// is torn when its body and its ETag belong to different versions.
	Readers int
}

// Request renders the race's requests as the report shows them.
func (race Race) Request() string {
	if race.Readers > 0 {
		return fmt.Sprintf("%d concurrent GET k racing %d PUT k, %d GETs", race.Readers, race.Writers, race.Rounds)
	}
	cond := "If-Match: etag(seed)"
	if race.Create {
		cond = `If-None-Match: "*"`
	}
	return fmt.Sprintf("%d concurrent PUT k %s, %d rounds", race.Writers, cond, race.Rounds)
}

// AWSRace is what AWS documents for every race of writes: at most one
// writer wins; the others are refused with 412, or with 409 when their
// write overlaps the winner's.
const AWSRace = "at most one winner per round; losers: 412 PreconditionFailed or 409 ConditionalRequestConflict"

// AWSReadRace is what AWS documents for a race of reads against writes:
// updates to a single key are atomic, so every read returns one version,
// its body with its ETag.
const AWSReadRace = "no torn GET"

// AWS is what AWS documents for the race.
func (race Race) AWS() string {
	if race.Readers > 0 {
		return AWSReadRace
	}
	return AWSRace
}

// Races are the concurrent cases, in report order.
func Races() []Race {
	return []Race{
		{Name: "race-if-match", Title: "Writers replace the same object with If-Match: the ETag they all read.", Sources: []string{"writes"}, Writers: 8, Rounds: 20},
		{Name: "race-create", Title: "Writers create the same absent key with If-None-Match: *.", Sources: []string{"writes"}, Create: true, Writers: 8, Rounds: 20},
		{Name: "race-get-put", Title: "Readers GET an object while writers replace it: no GET may carry the body of one version with the ETag of another (a torn read).",
			Sources: []string{"consistency"}, Writers: 2, Readers: 4, Rounds: 20000},
	}
}

// RaceResult is what a Race observed.
type RaceResult struct {
	// MaxWinners is the largest number of successful writes in one round;
	// NoWinner counts rounds in which none succeeded.
	MaxWinners, NoWinner int
	// WrongBody counts rounds after which the object does not hold the
	// body of the round's single winner (or, with no winner, what it held
	// before).
	WrongBody int
	// Losers counts the failed writes by answer (as Observe renders it).
	Losers map[string]int
	// Reads counts the reads of a race of reads against writes, Raced
	// those sent or answered while a write was in flight, Torn those whose
	// body and ETag belong to different versions.
	Reads, Raced, Torn int
}

// Safe reports whether no round had more than one winner and every round
// left the winner's body.
func (r RaceResult) Safe() bool { return r.MaxWinners <= 1 && r.WrongBody == 0 }

// Summary renders the result without counts that vary from run to run:
// whether the race was safe, and the distinct answers of the losers.
func (r RaceResult) Summary() string {
	if r.Reads > 0 {
		if r.Torn > 0 {
			return "TORN GETs: the body of one version with the ETag of another"
		}
		return AWSReadRace
	}
	answers := make([]string, 0, len(r.Losers))
	for a := range r.Losers {
		answers = append(answers, a)
	}
	sort.Strings(answers)
	losers := "losers: " + strings.Join(answers, " or ")
	if len(answers) == 0 {
		losers = "no losers"
	}
	if !r.Safe() {
		return fmt.Sprintf("UNSAFE: up to %d winners in a round, %d rounds left another body; %s", r.MaxWinners, r.WrongBody, losers)
	}
	return "at most one winner per round; " + losers
}

// Run performs the race on store in bucket; each call is bounded by
// callTimeout.
func (race Race) Run(ctx context.Context, store sim.S3Client, bucket string, callTimeout time.Duration) (RaceResult, error) {
	if race.Readers > 0 {
		return race.runReads(ctx, store, bucket, callTimeout)
	}
	res := RaceResult{Losers: make(map[string]int)}
	for round := 0; round < race.Rounds; round++ {
		key := race.Name + ".r" + strconv.Itoa(round)
		var ifMatch, ifNoneMatch *string
		before := ""
		if race.Create {
			star := "*"
			ifNoneMatch = &star
		} else {
			before = "seed"
			cctx, cancel := context.WithTimeout(ctx, callTimeout)
			out, err := store.PutObject(cctx, &s3.PutObjectInput{Bucket: &bucket, Key: &key, Body: strings.NewReader(before)})
			cancel()
			if err != nil {
				return res, fmt.Errorf("%s: seed %s: %w", race.Name, key, err)
			}
			ifMatch = out.ETag
		}

		bodies := make([]string, race.Writers)
		errs := make([]error, race.Writers)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for w := range race.Writers {
			bodies[w] = "writer-" + strconv.Itoa(w)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				cctx, cancel := context.WithTimeout(ctx, callTimeout)
				defer cancel()
				_, errs[w] = store.PutObject(cctx, &s3.PutObjectInput{
					Bucket: &bucket, Key: &key, Body: strings.NewReader(bodies[w]),
					IfMatch: ifMatch, IfNoneMatch: ifNoneMatch,
				})
			}()
		}
		close(start)
		wg.Wait()

		winners, want := 0, before
		for w, err := range errs {
			if err == nil {
				winners++
				want = bodies[w]
				continue
			}
			res.Losers[Observe(err, 0, nil, "", nil)]++
		}
		res.MaxWinners = max(res.MaxWinners, winners)
		if winners == 0 {
			res.NoWinner++
		}

		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		got, err := readBody(cctx, store, bucket, key)
		cancel()
		if err != nil && !(want == "" && Observe(err, 0, nil, "", nil) == "404 NoSuchKey") {
			return res, fmt.Errorf("%s: read %s: %w", race.Name, key, err)
		}
		if winners <= 1 && got != want {
			res.WrongBody++
		}
	}
	return res, nil
}

func readBody(ctx context.Context, store sim.S3Client, bucket, key string) (string, error) {
	out, err := store.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		return "", err
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, maxBody))
	return string(b), err
}
