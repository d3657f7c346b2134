package pgbackend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// installLine is how to get the server binaries on Debian.
const installLine = "apt-get install -y postgresql"

// Deadlines of the server's life in a test.
const (
	initdbTimeout = 60 * time.Second // initdb, fsync off
	readyTimeout  = 30 * time.Second // from starting postgres to a connection
	stopTimeout   = 15 * time.Second // fast shutdown; then SIGKILL
)

// pgServer is a PostgreSQL server of the test's own, on loopback.
type pgServer struct {
	port int
	log  string        // the server's log file
	cmd  *exec.Cmd     // the postmaster
	done chan struct{} // closed once it exited
	err  error         // its exit status, once done
}

// dsn is the connection string of database postgres through addr
// (host:port), as the superuser postgres, without TLS.
func dsn(addr string) string {
	return "postgres://postgres@" + addr + "/postgres?sslmode=disable&connect_timeout=2"
}

// addr is the server's own address.
func (s *pgServer) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// findPostgres returns the bin directory of the newest PostgreSQL server
// installed by Debian's packages, or "".
func findPostgres() string {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(found, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(found[i]))))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(found[j]))))
		return vi < vj
	})
	if len(found) == 0 {
		return ""
	}
	return filepath.Dir(found[len(found)-1])
}

// startPostgres initdbs a cluster in a temporary directory and starts a
// server on a free loopback port, waits until it accepts connections, and
// stops it (fast shutdown, then SIGKILL) when the test ends. PostgreSQL
// refuses to run as root: as root, both run as the user postgres. Without
// the binaries the test is skipped with the install line.
func startPostgres(t *testing.T) *pgServer {
	t.Helper()
	bin := findPostgres()
	if bin == "" {
		t.Skipf("PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin/initdb): this test starts its own server; install them with '%s'", installLine)
	}
	var cred *syscall.Credential
	base := t.TempDir()
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skipf("running as root and no user postgres to run the server as (%v): install the server with '%s'", err, installLine)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
		// The server's user must reach the directory: it owns it, and the
		// test's own temporary root above it is made traversable.
		if err := os.Chmod(filepath.Dir(base), 0o711); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(base, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(base, "data")
	env := []string{"PATH=" + bin + ":/usr/bin:/bin", "LC_ALL=C", "LANG=C", "TZ=UTC"}

	ctx, cancel := context.WithTimeout(context.Background(), initdbTimeout)
	defer cancel()
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres",
		"--auth=trust", "--no-sync", "--no-instructions", "--locale=C", "-E", "UTF8")
	initdb.Dir, initdb.Env = base, env
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}

	var lastErr error
	for range 3 { // a port taken between choosing it and binding it: choose again
		s, err := launch(bin, data, base, env, cred)
		if err != nil {
			t.Fatal(err)
		}
		if lastErr = s.waitReady(); lastErr == nil {
			t.Cleanup(func() {
				if err := s.stop(); err != nil {
					t.Errorf("stopping PostgreSQL: %v", err)
				}
			})
			return s
		}
		_ = s.stop()
	}
	t.Fatalf("PostgreSQL did not start: %v", lastErr)
	return nil
}

// launch starts postgres on a free port.
func launch(bin, data, base string, env []string, cred *syscall.Credential) (*pgServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("choose a port: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	s := &pgServer{port: port, log: filepath.Join(base, "postgres-"+strconv.Itoa(port)+".log"), done: make(chan struct{})}
	logf, err := os.Create(s.log)
	if err != nil {
		return nil, fmt.Errorf("server log: %w", err)
	}
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port), "-k", base,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=60", "-c", "log_min_messages=warning")
	s.cmd.Dir, s.cmd.Env = base, env
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	go func() {
		s.err = s.cmd.Wait()
		_ = logf.Close()
		close(s.done)
	}()
	return s, nil
}

// waitReady waits until the server accepts a connection, until
// readyTimeout, or until it exits.
func (s *pgServer) waitReady() error {
	deadline := time.Now().Add(readyTimeout)
	for {
		select {
		case <-s.done:
			return fmt.Errorf("postgres exited: %v\n%s", s.err, s.tail())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		c, err := pgx.Connect(ctx, dsn(s.addr()))
		if err == nil {
			err = c.Ping(ctx)
			_ = c.Close(ctx)
		}
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no connection within %v: %w\n%s", readyTimeout, err, s.tail())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop asks for a fast shutdown (SIGINT) and waits stopTimeout; then it
// kills the server's process group.
func (s *pgServer) stop() error {
	select {
	case <-s.done:
		return nil
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	t := time.NewTimer(stopTimeout)
	defer t.Stop()
	select {
	case <-s.done:
		return nil
	case <-t.C:
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-s.done:
		return fmt.Errorf("no fast shutdown within %v: killed", stopTimeout)
	case <-time.After(5 * time.Second):
		return errors.New("postgres survived SIGKILL for 5s")
	}
}

// tail is the end of the server's log.
func (s *pgServer) tail() string {
	b, _ := os.ReadFile(s.log)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(bytes.TrimSpace(b))
}
