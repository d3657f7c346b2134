package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/s3lease/s3lease/internal/schema"
)

// TestLiveAgainstTheEmbeddedServer: `simrun live` with its defaults (the
// embedded gofakes3, faults on) passes, prints a document of the schema,
// and writes its page.
func TestLiveAgainstTheEmbeddedServer(t *testing.T) {
	page := filepath.Join(t.TempDir(), "live.html")
	var out, errOut bytes.Buffer
	code := run([]string{"live", "-duration", "3s", "-restart-every", "1s", "-json", "-html", page}, &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	h, err := schema.ReadHeader(out.Bytes())
	if err != nil || h.Command != schema.CommandLive {
		t.Fatalf("header %+v, %v", h, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["verdict"] != "pass" {
		t.Fatalf("verdict %v, want pass\n%s", doc["verdict"], out.String())
	}
	for _, problem := range schema.Conventions(doc) {
		t.Errorf("live: %s", problem)
	}
	if code := run([]string{"live", "-nodes", "0"}, &out, &errOut); code != exitUsage {
		t.Errorf("-nodes 0: exit %d, want %d", code, exitUsage)
	}
}
