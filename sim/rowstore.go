package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"
)

// RowStore is a simulated SQL server holding one table: rows keyed by their
// primary key, each a value its statements define (the simulator never looks
// inside a row). It is a remote service like S3: a statement travels over a
// request leg, is applied atomically at one instant, with the server's own
// clock reading as now(), and its answer travels back over a response leg.
// The run's FaultInjector decides each statement's fate as it does an S3
// request's (see RowClient), so a fault plan's partitions, slow windows,
// knobs and aimed faults reach it.
//
// A run has a row store once something asks for it (World.RowStore, or a
// node sending a statement); a run that never does is not changed by its
// existence: it draws nothing from the chooser and writes nothing to the
// trace.
type RowStore struct {
	w                 *World
	rows              map[string]any
	clock             *clockState
	request, response Latency
	calls             uint64
}

// RowStore returns the run's row store, creating it on first use with the
// latencies of S3's legs (Config.S3Request, S3Response) and a clock that
// reads true time.
func (w *World) RowStore() *RowStore {
	if w.rows == nil {
		w.rows = &RowStore{w: w, rows: map[string]any{}, clock: newClockState(ClockModel{}, 0),
			request: w.cfg.S3Request, response: w.cfg.S3Response}
	}
	return w.rows
}

// SetClock gives the server a clock of its own: its now() is Epoch plus the
// model's wall-clock reading (offset, drift, steps) at the true instant a
// statement applies. It may only be called before the run starts
// (Config.Setup); later it returns an error.
func (s *RowStore) SetClock(m ClockModel) error {
	if s.w.started {
		return errors.New("sim: RowStore.SetClock after the run started")
	}
	s.clock = newClockState(m, 0)
	return nil
}

// Now returns the server's clock reading at the current instant.
func (s *RowStore) Now() time.Time { return Epoch.Add(s.clock.wall(s.w.now)) }

// Row returns the row of key, for inspection, and whether there is one.
func (s *RowStore) Row(key string) (any, bool) {
	r, ok := s.rows[key]
	return r, ok
}

// Statement is one SQL statement as the row store runs it: its name, the
// one row it reads or writes, and what it does to that row. Apply stands for
// the SQL text and its parameters: it runs on the server, at the instant the
// statement applies (perhaps after its sender gave up), so it must be a pure
// function of its arguments and of values it captured when the statement was
// made, and must not keep or hand out references to the row it is given.
type Statement struct {
	// Op names the statement in the trace ("write-entry", "acquire", ...).
	Op string
	// Key is the primary key of the row the statement reads or writes.
	Key string
	// Cond is the statement's condition as the trace shows it, "" if none.
	Cond string
	// ReadOnly marks a statement that changes nothing (a SELECT). For the
	// fault plan, a read-only statement is a request of op RowRead, any
	// other of op RowWrite, each counted per node from 1 (Request.Nth).
	ReadOnly bool
	// Apply is given the row of Key (nil if there is none) and the server's
	// now(), and returns the row Key holds afterwards (nil for none) and the
	// server's answer.
	Apply func(row any, now time.Time) (after any, res RowResult)
}

// The ops under which statements reach a FaultInjector, and which a fault
// plan's aimed faults name.
const (
	RowWrite = "sql.write"
	RowRead  = "sql.read"
)

// RowResult is the server's answer to a statement.
type RowResult struct {
	// Tag is the command tag, as PostgreSQL answers it ("INSERT 0 1",
	// "UPDATE 0", "SELECT 1").
	Tag string
	// Rows is the number of rows the statement wrote or returned.
	Rows int64
	// Token, if not zero, is a fencing token the statement returned; the
	// trace shows it.
	Token uint64
	// Value is what the statement returned (a RETURNING clause, a SELECT),
	// nil if nothing.
	Value any
}

// SQLSTATE codes of the errors a RowClient returns. The class 08 codes are
// those of the SQL standard for a connection that failed; client libraries
// report such failures as errors of their own rather than with a code, and
// the simulator names them by these.
const (
	SQLStateConnectionRefused = "08001" // the connection could not be made: nothing was applied
	SQLStateConnectionLost    = "08006" // the connection broke before the answer came: the statement may have applied
	SQLStateInternalError     = "XX000" // the server failed the statement before applying it
	SQLStateTooManyConns      = "53300" // the server refused the statement for want of resources
	SQLStateSerialization     = "40001" // the server aborted the statement for a concurrent one
)

// SQLError is the error of a statement that was not answered with a result:
// the server refused it (Code is its SQLSTATE), the connection failed (Code
// is of class 08), or the caller's context ended before the answer came
// (Code is "" and Err the context's error). Only a refusal by the server
// says that nothing was applied; after a lost connection or an ended
// context the statement may have applied, or may still.
type SQLError struct {
	Op   string
	Code string
	Err  error
}

func (e *SQLError) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("sql %s: %v", e.Op, e.Err)
	}
	return fmt.Sprintf("sql %s: %v (SQLSTATE %s)", e.Op, e.Err, e.Code)
}

// Unwrap returns the cause: the context's error, a network error, or the
// server's message.
func (e *SQLError) Unwrap() error { return e.Err }

// RowClient is one node's connection to the row store (Env.Rows).
type RowClient struct {
	w *World
	n *Node
}

// rowClient returns a client of the row store for node n.
func (n *Node) rowClient() *RowClient { return &RowClient{w: n.w, n: n} }

// Exec sends st to the row store and waits for its answer. The statement
// travels as an S3 request does: a request leg, the statement applied
// atomically at one instant with the server's now(), a response leg. If ctx
// ends first, Exec returns an SQLError wrapping ctx's error at once, and the
// statement still applies when it arrives. The run's FaultInjector decides
// its fate when it is sent: refused by the server before it applies (an
// SQLError with the server's code), applied with the connection lost before
// the answer (SQLStateConnectionLost), applied with no answer ever (Exec
// waits for ctx), not delivered because the node cannot reach the server
// (SQLStateConnectionRefused after the request leg, or no answer ever),
// slower legs, or a pause of the node when the answer arrives.
//
// The trace records the statement as sql.send, sql.apply (on the server,
// with the command tag or the refusal's code, and the row it left),
// sql.return or sql.abandon, numbered by a call counter of their own. The
// statements are not in History.S3: they are not S3 requests.
func (c *RowClient) Exec(ctx context.Context, st Statement) (RowResult, error) {
	w := c.w
	t := w.mustCurrent("SQL " + st.Op)
	s := w.RowStore()
	s.calls++
	id := s.calls
	op, opi := RowWrite, 0
	if st.ReadOnly {
		op, opi = RowRead, 1
	}
	var f RequestFault
	if w.s3.faults != nil {
		c.n.rowRequests[opi]++
		f = w.s3.faults.RequestFault(w, Request{Node: c.n.Index, Op: op, Key: st.Key, Nth: c.n.rowRequests[opi], Write: !st.ReadOnly})
	}
	e := c.n.event(EvSQLSend)
	e.Call, e.Op, e.Key, e.Cond = id, st.Op, st.Key, st.Cond
	f.record(&e)
	w.trace.add(e)

	l := &rowLanding{s: s, id: id, st: st, fate: f}
	applyAt := w.now + s.request.Sample(w.chooser) + f.ExtraRequest
	respond := s.response.Sample(w.chooser) + f.ExtraResponse
	w.atQuiet(applyAt, l.land)
	wake := applyAt + respond
	if f.Fate == Lost || f.Fate == Dropped {
		wake = -1
	}
	if err := t.wait(ctx, wake); err != nil {
		a := c.n.event(EvSQLAbandon)
		a.Call, a.Op, a.Detail = id, st.Op, err.Error()
		w.trace.add(a)
		w.live.beat()
		return RowResult{}, &SQLError{Op: st.Op, Err: err}
	}
	if w.por != nil {
		w.por.por.touch(access{kind: accRowAnswer, id: id})
	}
	r := c.n.event(EvSQLReturn)
	r.Call, r.Op = id, st.Op
	if l.err != nil {
		r.Code = l.err.Code
	} else {
		r.Code, r.Token = l.res.Tag, l.res.Token
	}
	w.trace.add(r)
	if f.PauseOnAnswer > 0 {
		// The answer is in the process's buffers; the process stops before
		// it can look at it.
		c.n.PauseFor(FaultAnswerPause, w.untilHeal(f.PauseOnAnswer))
		_ = t.wait(context.Background(), w.now)
	}
	w.live.beat()
	if l.err != nil {
		return RowResult{}, l.err
	}
	return l.res, nil
}

// rowLanding is a statement on its way to the server, and once it has
// landed, the answer.
type rowLanding struct {
	s    *RowStore
	id   uint64
	st   Statement
	fate RequestFault

	res RowResult
	err *SQLError
}

// land applies the statement at the current instant, as its fate says.
func (l *rowLanding) land() {
	s, f, w := l.s, l.fate, l.s.w
	if w.por != nil {
		w.por.rowLanded(l)
	}
	now := s.Now()
	a := Event{At: w.now, Node: -1, Local: now.Sub(Epoch), Kind: EvSQLApply, Call: l.id, Op: l.st.Op, Key: l.st.Key}
	a.Fault = fateKinds[f.Fate]
	switch f.Fate {
	case Unreachable, Dropped:
		l.err = &SQLError{Op: l.st.Op, Code: SQLStateConnectionRefused, Err: connectionRefused()}
		a.Detail = "never arrived"
		w.trace.add(a)
		return
	case RefusedBefore:
		code := refusalCode(f, l.st.Op)
		l.err = &SQLError{Op: l.st.Op, Code: code, Err: errors.New(refusalMessage(code))}
		a.Code, a.Detail = code, "not applied"
		w.trace.add(a)
		return
	}
	row := s.rows[l.st.Key]
	after, res := l.st.Apply(row, now)
	if after == nil {
		delete(s.rows, l.st.Key)
	} else {
		s.rows[l.st.Key] = after
	}
	l.res = res
	a.Code, a.Token = res.Tag, res.Token
	if str, ok := after.(fmt.Stringer); ok {
		a.Detail = str.String()
	}
	switch f.Fate {
	case FailedAfter:
		l.err = &SQLError{Op: l.st.Op, Code: SQLStateConnectionLost, Err: io.ErrUnexpectedEOF}
		a.Detail = appendDetail(a.Detail, "applied, connection lost before the answer")
	case Lost:
		a.Detail = appendDetail(a.Detail, "applied, answer lost")
	}
	w.trace.add(a)
}

func appendDetail(d, s string) string {
	if d == "" {
		return s
	}
	return d + "; " + s
}

// refusalCode is the SQLSTATE of a refusal: the counterpart of the S3 error
// the fault names (a 500, a 503 SlowDown, a 409 conflict).
func refusalCode(f RequestFault, op string) string {
	if f.Err != nil {
		_, code := statusOf(f.Err(op, ""))
		switch code {
		case "SlowDown":
			return SQLStateTooManyConns
		case "ConditionalRequestConflict":
			return SQLStateSerialization
		}
	}
	return SQLStateInternalError
}

func refusalMessage(code string) string {
	switch code {
	case SQLStateTooManyConns:
		return "sorry, too many clients already"
	case SQLStateSerialization:
		return "could not serialize access due to concurrent update"
	}
	return "internal error"
}

// connectionRefused is the network's error when the server cannot be
// reached.
func connectionRefused() error {
	return &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
}
