package conformance

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// testBucket is the bucket every target holds the cases in.
const testBucket = "conformance"

// Credentials of the servers the tests start: loopback only, no secret.
const (
	testAccessKey = "AKIDCONFORMANCE"
	testSecretKey = "conformance-secret-key"
)

// newClient returns an *s3.Client for a loopback S3 server: path-style,
// static credentials, us-east-1, no retries (each call is one exchange, so
// the answer is the server's).
func newClient(url string) *s3.Client {
	return s3.New(s3.Options{
		Region:       "us-east-1",
		UsePathStyle: true,
		BaseEndpoint: aws.String(url),
		Retryer:      aws.NopRetryer{},
		Credentials:  credentials.NewStaticCredentialsProvider(testAccessKey, testSecretKey, ""),
		HTTPClient:   &http.Client{Timeout: 30 * time.Second},
	})
}

// createBucket creates testBucket through c, within a deadline.
func createBucket(t *testing.T, c *s3.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(testBucket)}); err != nil {
		t.Fatalf("CreateBucket %s: %v", testBucket, err)
	}
}

// startGoFakeS3 starts an in-process gofakes3 server (in-memory backend) on
// loopback and returns a client for it with testBucket created, and what it
// is (module and version).
func startGoFakeS3(t *testing.T) (*s3.Client, string) {
	t.Helper()
	srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	t.Cleanup(srv.Close)
	c := newClient(srv.URL)
	createBucket(t, c)
	return c, "gofakes3 server: " + depVersion(t, "github.com/johannesboyne/gofakes3") + ", in-memory backend (s3mem), in process on loopback, through a real *s3.Client"
}

// depVersion is the module path and version of a dependency of this
// module, as go.mod selects it (test binaries carry no dependency list).
func depVersion(t *testing.T, path string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{with .Replace}}{{.Path}} {{.Version}}{{else}}{{.Path}} {{.Version}}{{end}}", path).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", path, err)
	}
	return strings.TrimSpace(string(out))
}

// findVersityGW returns the path of the versitygw binary, looking in PATH
// and in the bin directory of each GOPATH entry ($(go env GOPATH)/bin).
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

// binaryVersion is the main module and version a Go binary was built from.
func binaryVersion(path string) string {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return "version unknown"
	}
	return info.Main.Path + " " + info.Main.Version
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

// freeLoopbackAddr returns a loopback address whose port was free a moment
// ago.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on loopback: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// errExited is returned by waitReady when the server exits before it is
// ready.
var errExited = errors.New("exited before it was ready")

// startVersityGW starts the versitygw binary at bin with the posix backend
// in a temporary directory, on a free loopback port, waits until it answers
// its health check, and returns a client for it with testBucket created. The
// server is stopped when the test ends.
func startVersityGW(t *testing.T, bin string) *s3.Client {
	t.Helper()
	root := t.TempDir()
	const attempts = 3 // the free port may be taken between probe and bind
	for attempt := 1; ; attempt++ {
		addr := freeLoopbackAddr(t)
		ctx, cancel := context.WithCancel(context.Background())
		cmd := exec.CommandContext(ctx, bin,
			"--port", addr,
			"--health", "/health",
			"--quiet",
			"posix", root)
		cmd.Env = append(os.Environ(),
			"ROOT_ACCESS_KEY_ID="+testAccessKey,
			"ROOT_SECRET_ACCESS_KEY="+testSecretKey)
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

		err := waitReady(ctx, "http://"+addr+"/health", exited, 30*time.Second)
		if errors.Is(err, errExited) {
			err = errors.Join(err, waitErr) // waitErr is set before exited closes
		}
		if err == nil {
			t.Cleanup(stop)
			c := newClient("http://" + addr)
			createBucket(t, c)
			return c
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
