package sim

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// counter is a row of the tests: a number the statement "incr" adds one to
// while it is below limit.
type counter struct{ n int }

func incr(key string, limit int) Statement {
	return Statement{Op: "incr", Key: key, Cond: "n < limit", Apply: func(row any, now time.Time) (any, RowResult) {
		c, _ := row.(counter)
		if c.n >= limit {
			return row, RowResult{Tag: "UPDATE 0"}
		}
		c.n++
		return c, RowResult{Tag: "UPDATE 1", Rows: 1, Token: uint64(c.n), Value: now}
	}}
}

// execOnce runs one statement on a single node under a 10 s timeout, with
// the given faults, and returns its result, error and the run.
func execOnce(t *testing.T, faults ...RequestFault) (RowResult, error, *Result, *World) {
	t.Helper()
	var res RowResult
	var err error
	var w *World
	cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
		tctx, cancel := env.Clock.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		res, err = env.Rows.Exec(tctx, incr("k", 10))
		return nil
	})
	script := scripted(faults)
	cfg.Setup = func(world *World) { w = world; w.SetFaults(&script) }
	return res, err, mustRun(t, cfg), w
}

func rowEvents(r *Result, k EventKind) []Event {
	var out []Event
	for _, e := range r.Trace.Events {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// TestRowStoreExec: a statement is applied at one instant between its send
// and its return, with the server's now() (true time here), and its answer
// is what the statement returned; rows persist between statements and
// nodes; the trace shows the statement as sql.send, sql.apply and
// sql.return, and nothing of it is in the S3 history.
func TestRowStoreExec(t *testing.T) {
	var got [3]RowResult
	cfg := testConfig(3, time.Minute, func(ctx context.Context, env Env) error {
		if err := env.Clock.Sleep(ctx, time.Duration(env.Node)*time.Second); err != nil {
			return err
		}
		r, err := env.Rows.Exec(ctx, incr("k", 2))
		if err != nil {
			return err
		}
		got[env.Node] = r
		return nil
	})
	var w *World
	cfg.Setup = func(world *World) { w = world }
	res := mustRun(t, cfg)
	if got[0].Token != 1 || got[1].Token != 2 || got[2].Rows != 0 || got[2].Tag != "UPDATE 0" {
		t.Fatalf("results %+v: want counts 1, 2, then nothing written", got)
	}
	if row, ok := w.RowStore().Row("k"); !ok || row.(counter).n != 2 {
		t.Fatalf("row %v (%v), want n=2", row, ok)
	}
	sends, applies, returns := rowEvents(res, EvSQLSend), rowEvents(res, EvSQLApply), rowEvents(res, EvSQLReturn)
	if len(sends) != 3 || len(applies) != 3 || len(returns) != 3 {
		t.Fatalf("%d sends, %d applies, %d returns", len(sends), len(applies), len(returns))
	}
	for i := range 3 {
		s, a, r := sends[i], applies[i], returns[i]
		if s.Call != a.Call || a.Call != r.Call || !(s.At < a.At && a.At < r.At) || a.Node != -1 || a.Local != a.At {
			t.Errorf("statement %d: send %v, apply %v, return %v", i, s, a, r)
		}
		if s.Op != "incr" || s.Key != "k" || s.Cond != "n < limit" || a.Code != r.Code || a.Token != r.Token {
			t.Errorf("statement %d: send %v, apply %v, return %v", i, s, a, r)
		}
		if want := Epoch.Add(a.At); got[i].Rows == 1 && got[i].Value.(time.Time) != want {
			t.Errorf("statement %d saw now() = %v, want %v", i, got[i].Value, want)
		}
	}
	if len(res.History.S3) != 0 {
		t.Errorf("the S3 history holds %d requests", len(res.History.S3))
	}
}

// TestRowStoreFates: each fate of the fault injector as a statement meets
// it: what the caller gets, and whether the row was written.
func TestRowStoreFates(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fault   RequestFault
		code    string
		applied bool
		check   func(error) bool
	}{
		{"refused before", RequestFault{Fate: RefusedBefore, Err: SlowDown}, SQLStateTooManyConns, false, nil},
		{"refused 500", RequestFault{Fate: RefusedBefore, Err: InternalError}, SQLStateInternalError, false, nil},
		{"failed after", RequestFault{Fate: FailedAfter, Err: InternalError}, SQLStateConnectionLost, true, nil},
		{"lost", RequestFault{Fate: Lost}, "", true, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
		{"dropped", RequestFault{Fate: Dropped}, "", false, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
		{"unreachable", RequestFault{Fate: Unreachable}, SQLStateConnectionRefused, false, func(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err, res, w := execOnce(t, tc.fault)
			var se *SQLError
			_, applied := w.RowStore().Row("k")
			if !errors.As(err, &se) || se.Code != tc.code || se.Op != "incr" || applied != tc.applied || (tc.check != nil && !tc.check(err)) {
				t.Fatalf("err = %v, applied = %v; want SQLSTATE %q, applied %v", err, applied, tc.code, tc.applied)
			}
			s, a := rowEvents(res, EvSQLSend), rowEvents(res, EvSQLApply)
			if len(s) != 1 || s[0].Fault != fateKinds[tc.fault.Fate] || len(a) != 1 || a[0].Fault != fateKinds[tc.fault.Fate] {
				t.Fatalf("send %v, apply %v: want the fate %s on both", s, a, tc.fault.Fate)
			}
			if tc.code == "" {
				if ab := rowEvents(res, EvSQLAbandon); len(ab) != 1 || ab[0].At != 10*time.Second || len(rowEvents(res, EvSQLReturn)) != 0 {
					t.Fatalf("abandon %v: want the call abandoned at its 10s timeout, no return", ab)
				}
			}
		})
	}
}

// TestRowStoreAbandonedStillApplies: a statement whose caller gives up
// before it arrives is applied when it arrives, and the trace says the
// caller abandoned it first.
func TestRowStoreAbandonedStillApplies(t *testing.T) {
	var err error
	var w *World
	cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
		tctx, cancel := env.Clock.WithTimeout(ctx, time.Second)
		defer cancel()
		_, err = env.Rows.Exec(tctx, incr("k", 10))
		return nil
	})
	script := scripted{{ExtraRequest: 5 * time.Second}}
	cfg.Setup = func(world *World) { w = world; w.SetFaults(&script) }
	res := mustRun(t, cfg)
	ab, a := rowEvents(res, EvSQLAbandon), rowEvents(res, EvSQLApply)
	if !errors.Is(err, context.DeadlineExceeded) || len(ab) != 1 || len(a) != 1 || ab[0].At != time.Second || a[0].At < 5*time.Second {
		t.Fatalf("err %v, abandon %v, apply %v", err, ab, a)
	}
	if row, ok := w.RowStore().Row("k"); !ok || row.(counter).n != 1 {
		t.Fatalf("row %v: the statement did not apply", row)
	}
}

// TestRowStoreServerClock: the server's now() is its own clock's, which
// may be off true time.
func TestRowStoreServerClock(t *testing.T) {
	var got RowResult
	cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
		var err error
		got, err = env.Rows.Exec(ctx, incr("k", 10))
		return err
	})
	cfg.Setup = func(w *World) {
		if err := w.RowStore().SetClock(ClockModel{Offset: time.Hour}); err != nil {
			t.Error(err)
		}
	}
	res := mustRun(t, cfg)
	a := rowEvents(res, EvSQLApply)
	if len(a) != 1 || a[0].Local != a[0].At+time.Hour || got.Value.(time.Time) != Epoch.Add(a[0].Local) {
		t.Fatalf("apply %v, now() %v: want the server's clock an hour ahead", a, got.Value)
	}
}

// recorder records the requests a FaultInjector is asked about.
type recorder []Request

func (r *recorder) RequestFault(_ *World, q Request) RequestFault {
	*r = append(*r, q)
	return RequestFault{}
}

// TestRowStoreRequests: the fault injector sees a node's statements as
// requests of op sql.write or sql.read, each counted from 1, apart from
// its S3 requests.
func TestRowStoreRequests(t *testing.T) {
	read := Statement{Op: "read", Key: "k", ReadOnly: true, Apply: func(row any, _ time.Time) (any, RowResult) { return row, RowResult{Tag: "SELECT 0"} }}
	cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
		for _, st := range []Statement{incr("k", 9), read, incr("k", 9), read, read} {
			if _, err := env.Rows.Exec(ctx, st); err != nil {
				return err
			}
		}
		return nil
	})
	var rec recorder
	cfg.Setup = func(w *World) { w.SetFaults(&rec) }
	mustRun(t, cfg)
	var got []string
	for _, q := range rec {
		got = append(got, q.Op+"#"+strconv.Itoa(q.Nth))
		if q.Write != (q.Op == RowWrite) || q.Conditional || q.Key != "k" {
			t.Errorf("request %+v", q)
		}
	}
	if want := "[sql.write#1 sql.read#1 sql.write#2 sql.read#2 sql.read#3]"; fmt.Sprint(got) != want {
		t.Fatalf("requests %s, want %s", fmt.Sprint(got), want)
	}
}

// TestRowStorePauseOnAnswer: a pause aimed at a statement's answer stops
// the node when the answer arrives, before the caller sees it.
func TestRowStorePauseOnAnswer(t *testing.T) {
	var back time.Duration
	cfg := testConfig(1, time.Minute, func(ctx context.Context, env Env) error {
		_, err := env.Rows.Exec(ctx, incr("k", 9))
		back = env.Clock.Monotonic()
		return err
	})
	script := scripted{{PauseOnAnswer: 3 * time.Second}}
	var start time.Duration
	cfg.Setup = func(w *World) { w.SetFaults(&script); start = w.Node(0).Clock().Monotonic() }
	res := mustRun(t, cfg)
	r := rowEvents(res, EvSQLReturn)
	if len(r) != 1 || back-start != r[0].At+3*time.Second {
		t.Fatalf("return %v, caller back at %v: want 3s after the answer", r, back-start)
	}
}

// TestRowStoreSetClockAfterStart: the server's clock is set before the run
// only.
func TestRowStoreSetClockAfterStart(t *testing.T) {
	var err error
	var w *World
	cfg := testConfig(1, time.Second, func(ctx context.Context, env Env) error {
		err = w.RowStore().SetClock(ClockModel{})
		return nil
	})
	cfg.Setup = func(world *World) { w = world }
	mustRun(t, cfg)
	if err == nil {
		t.Fatal("SetClock during the run was accepted")
	}
}

// TestRowStoreTraceText: the readable trace names the server "sql" and
// shows the command tag or the code of each answer.
func TestRowStoreTraceText(t *testing.T) {
	_, _, res, _ := execOnce(t)
	var lines []string
	for _, e := range res.Trace.Events {
		if e.Kind.sql() {
			lines = append(lines, e.String())
		}
	}
	if len(lines) != 3 {
		t.Fatalf("%d lines: %q", len(lines), lines)
	}
	for i, want := range []string{"sql.send    #1 incr key=k n < limit", "sql [wall ", "sql.return  #1 incr -> UPDATE 1 token=1"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d %q lacks %q", i, lines[i], want)
		}
	}
	if !strings.Contains(lines[1], "sql.apply   #1 incr key=k -> UPDATE 1 token=1") {
		t.Errorf("apply line %q", lines[1])
	}
}
