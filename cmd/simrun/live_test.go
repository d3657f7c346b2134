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
	// The default phases, each saying what it exercised.
	phases, _ := doc["phases"].([]any)
	if len(phases) != 4 {
		t.Errorf("%d phases, want the 4 default ones: %v", len(phases), doc["phases"])
	}
	for _, p := range phases {
		if m, _ := p.(map[string]any); m["creationRaces"] == nil || m["contestedIfMatch"] == nil {
			t.Errorf("phase %v does not say what it exercised", p)
		}
	}
	for _, args := range [][]string{
		{"live", "-nodes", "0"},
		{"live", "-phases", "warm-up"},
		{"live", "-endpoint", "http://127.0.0.1:1,http://127.0.0.1:2"}, // no -bucket
		{"live", "-endpoint", "http://127.0.0.1:1,"},
	} {
		if code := run(args, &out, &errOut); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args[1:], code, exitUsage)
		}
	}
}
