package simrun

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/s3lease/s3lease/harness"
)

// makeDir makes the directory the reproducers go to, once: the one named,
// or a new one in the system's temporary directory. g.mu is held.
func (g *guidedOut) makeDir() error {
	if g.made {
		return nil
	}
	if g.dir == "" {
		prefix := g.prefix
		if prefix == "" {
			prefix = "simrun-guided-"
		}
		dir, err := os.MkdirTemp("", prefix)
		if err != nil {
			return err
		}
		g.dir = dir
	} else if err := os.MkdirAll(g.dir, 0o755); err != nil {
		return err
	}
	g.made = true
	return nil
}

// writeShrunk writes the shrunk reproducer of scenario name to the
// directory as NAME.min.json ("zoo/" left out, other slashes made "-") and
// returns its path.
func (g *guidedOut) writeShrunk(name string, r *harness.Reproducer) (string, error) {
	data, err := r.Marshal()
	if err != nil {
		return "", err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.makeDir(); err != nil {
		return "", err
	}
	path := filepath.Join(g.dir, strings.ReplaceAll(strings.TrimPrefix(name, "zoo/"), "/", "-")+".min.json")
	if err := harness.WriteFileAtomic(path, data); err != nil {
		return "", err
	}
	return path, nil
}
