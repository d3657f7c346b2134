package live

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/s3lease/s3lease/harness"
)

// The versitygw helpers below follow conformance/servers_test.go, which
// starts the same binary the same way.

// Credentials of the versitygw server the test starts: loopback only, no
// secret.
const (
	versityAccessKey = "AKIDLIVETEST"
	versitySecretKey = "live-test-secret-key"
)

func TestLiveVersityGWWithFaults(t *testing.T) {
	bin := needVersityGW(t)
	cfg := faultyConfig(2)
	versityGWConfig(&cfg, startVersityGW(t, bin, t.TempDir()))
	res := runLive(t, cfg)
	requireSafeAndElected(t, res)
	if res.Proxy.UpstreamErrors > 0 {
		t.Errorf("%d requests got no answer from versitygw", res.Proxy.UpstreamErrors)
	}
	// Signatures held: versitygw checks them, and a refused one would be a
	// 403 in the history.
	for _, op := range res.History.S3 {
		if op.Status == http.StatusForbidden {
			t.Fatalf("versitygw refused a request: %+v", op)
		}
	}
}

// TestLiveVersityGWDefault: a default run against one versitygw gateway
// (its shared lock file on, as by default) finds nothing wrong.
func TestLiveVersityGWDefault(t *testing.T) {
	bin := needVersityGW(t)
	cfg := defaultRun(DefaultNodes)
	versityGWConfig(&cfg, startVersityGW(t, bin, t.TempDir()))
	res := runLive(t, cfg)
	requireSafeAndElected(t, res)
	requirePhasesExercised(t, res)
}

// TestLiveTwoGatewaysWithoutLockFile is the deployment mistake live mode
// exists to find: two versitygw gateways serving one root directory with
// --disable-object-lock-file ("unsafe with multiple gateway processes", its
// help says), the electors spread over both. Each gateway serializes the
// conditional writes it receives, but nothing serializes those of the two:
// two takeovers of one record, one through each, can both be applied, and
// two electors lead with the same token. A default run judges it unsafe
// most of the time (8 or more of 10 on an idle machine); the hazard is a
// race of real processes, so on a loaded machine one run may miss it, and
// the test allows a few default runs to catch it.
func TestLiveTwoGatewaysWithoutLockFile(t *testing.T) {
	bin := needVersityGW(t)
	root := t.TempDir()
	a := startVersityGW(t, bin, root, "--disable-object-lock-file")
	b := startVersityGW(t, bin, root, "--disable-object-lock-file")
	const runs = 4
	var res *Result
	for i := range runs {
		cfg := defaultRun(DefaultNodes)
		versityGWConfig(&cfg, a, b)
		if res = runLive(t, cfg); res.Verdict == harness.Unsafe {
			break
		}
		t.Logf("default run %d of %d: verdict %s", i+1, runs, res.Verdict)
	}
	if res.Verdict != harness.Unsafe {
		t.Fatalf("verdict %s in %d default runs, want unsafe", res.Verdict, runs)
	}
	requirePhasesExercised(t, res)
	// Two winners of one race: two terms overlap, and if both took the same
	// record over, they share a token.
	if c, _ := res.Check(CheckOverlap); c.Verdict != CheckFail {
		t.Errorf("check %s: %s, want fail", CheckOverlap, c.Verdict)
	}
}

// needVersityGW returns the versitygw binary, or skips the test.
func needVersityGW(t *testing.T) string {
	t.Helper()
	bin, ok := findVersityGW(t)
	if !ok {
		t.Skip("versitygw not found in PATH or $(go env GOPATH)/bin; install it with `go install github.com/versity/versitygw/cmd/versitygw@v1.8.0` to run this test")
	}
	return bin
}

// versityGWConfig points cfg at the versitygw gateways on addrs.
func versityGWConfig(cfg *Config, addrs ...string) {
	for _, a := range addrs {
		cfg.Endpoints = append(cfg.Endpoints, "http://"+a)
	}
	cfg.Region = "us-east-1"
	cfg.Credentials = credentials.NewStaticCredentialsProvider(versityAccessKey, versitySecretKey, "")
	cfg.CreateBucket = true
}

// findVersityGW returns the path of the versitygw binary, looking in PATH
// and in the bin directory of each GOPATH entry.
func findVersityGW(t *testing.T) (string, bool) {
	t.Helper()
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "env", "GOPATH").Output()
	if err != nil {
		t.Logf("go env GOPATH: %v", err)
		return "", false
	}
	for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
		p := filepath.Join(dir, "bin", "versitygw")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, true
		}
	}
	return "", false
}

// syncBuffer collects a child process's output.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// errExited is returned by waitReady when the server exits before it is
// ready.
var errExited = errors.New("exited before it was ready")

// startVersityGW starts versitygw with the posix backend in directory root,
// with the backend's flags posixFlags, on a free loopback port, waits until
// it answers its health check, and returns its address. The server is
// stopped when the test ends.
func startVersityGW(t *testing.T, bin, root string, posixFlags ...string) string {
	t.Helper()
	const attempts = 3 // the free port may be taken between probe and bind
	for attempt := 1; ; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("listen on loopback: %v", err)
		}
		addr := l.Addr().String()
		l.Close()
		ctx, cancel := context.WithCancel(context.Background())
		args := append([]string{"--port", addr, "--health", "/health", "--quiet", "posix"}, posixFlags...)
		cmd := exec.CommandContext(ctx, bin, append(args, root)...)
		cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+versityAccessKey, "ROOT_SECRET_ACCESS_KEY="+versitySecretKey)
		logs := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = logs, logs
		cmd.WaitDelay = 5 * time.Second
		if err := cmd.Start(); err != nil {
			cancel()
			t.Fatalf("start %s: %v", bin, err)
		}
		exited := make(chan struct{})
		var waitErr error
		go func() {
			waitErr = cmd.Wait()
			close(exited)
		}()
		stop := func() {
			cancel()
			select {
			case <-exited:
			case <-time.After(15 * time.Second):
				t.Errorf("versitygw (pid %d) did not exit", cmd.Process.Pid)
			}
		}
		err = waitReady(ctx, "http://"+addr+"/health", exited, 30*time.Second)
		if errors.Is(err, errExited) {
			err = errors.Join(err, waitErr) // waitErr is set before exited closes
		}
		if err == nil {
			t.Cleanup(stop)
			return addr
		}
		stop()
		if errors.Is(err, errExited) && attempt < attempts {
			t.Logf("versitygw on %s %v (attempt %d); output:\n%s", addr, err, attempt, logs)
			continue
		}
		t.Fatalf("versitygw on %s: %v; output:\n%s", addr, err, logs)
	}
}

// waitReady polls url until it answers 200, the process exits (exited is
// closed), or timeout passes.
func waitReady(ctx context.Context, url string, exited <-chan struct{}, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-exited:
			return errExited
		case <-ctx.Done():
			return errors.New("not ready after " + timeout.String())
		case <-tick.C:
		}
	}
}
