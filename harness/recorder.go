package harness

import (
	"fmt"
	"strings"
	"sync"
)

// Recorder is a TB that records what a check reports instead of failing
// the test that runs it: a test that a broken protocol is caught runs Check
// (or rapid.Check) on a Recorder and asserts that it failed, and how. Its
// FailNow and Fatal only record, so the code after them runs; Check and
// rapid.Check return after their last report. Done runs the cleanups
// registered on it, last first, as testing does at the end of a test.
type Recorder struct {
	// TestName is what Name returns: the test name a replay command names.
	TestName string

	mu       sync.Mutex
	failed   bool
	errs     []string
	logs     strings.Builder
	cleanups []func()
}

// Helper does nothing.
func (r *Recorder) Helper() {}

// Name returns TestName.
func (r *Recorder) Name() string { return r.TestName }

// Logf records a log line.
func (r *Recorder) Logf(format string, args ...any) { r.log(fmt.Sprintf(format, args...)) }

// Log records a log line.
func (r *Recorder) Log(args ...any) { r.log(fmt.Sprint(args...)) }

// Skipf records an error: a check that skips tested nothing.
func (r *Recorder) Skipf(format string, args ...any) { r.Errorf("unexpected skip: "+format, args...) }

// Skip records an error: a check that skips tested nothing.
func (r *Recorder) Skip(args ...any) { r.Error(append([]any{"unexpected skip:"}, args...)...) }

// SkipNow records an error: a check that skips tested nothing.
func (r *Recorder) SkipNow() { r.Error("unexpected skip") }

// Errorf records a failure.
func (r *Recorder) Errorf(format string, args ...any) { r.fail(fmt.Sprintf(format, args...)) }

// Error records a failure.
func (r *Recorder) Error(args ...any) { r.fail(fmt.Sprint(args...)) }

// Fatalf records a failure; it does not stop the caller.
func (r *Recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

// Fatal records a failure; it does not stop the caller.
func (r *Recorder) Fatal(args ...any) { r.Error(args...) }

// FailNow records a failure; it does not stop the caller.
func (r *Recorder) FailNow() { r.fail("") }

// Fail records a failure.
func (r *Recorder) Fail() { r.fail("") }

// Failed reports whether a failure was recorded.
func (r *Recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// Cleanup registers f to run at Done.
func (r *Recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// Done runs the registered cleanups, last registered first.
func (r *Recorder) Done() {
	r.mu.Lock()
	cs := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i]()
	}
}

// Errors returns the failures recorded, one message each, joined by
// newlines.
func (r *Recorder) Errors() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

// Logs returns the log lines recorded.
func (r *Recorder) Logs() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.logs.String()
}

func (r *Recorder) log(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs.WriteString(s)
	r.logs.WriteByte('\n')
}

func (r *Recorder) fail(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	if msg != "" {
		r.errs = append(r.errs, msg)
	}
}

var _ TB = (*Recorder)(nil)
