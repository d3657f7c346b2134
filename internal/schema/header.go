package schema

import (
	"encoding/json"
	"fmt"
	"io"
)

// Version is the version of the documents this package describes.
// Version 4 records what was judged (Counts.Judged: the seeds inside the
// assumptions, the violations judged and excused by checker); versions
// 2 and 3, which did not, are read still (OldestVersion), and what they
// did not record is reported unknown. Version 3 began writing fencing
// tokens as decimal strings, which version 2 wrote as numbers.
const Version = 4

// OldestVersion is the oldest version a reader of this build accepts: the
// documents of every version from it to Version decode with these types.
const OldestVersion = 2

// Readable reports whether this build reads documents of version v.
func Readable(v int) bool { return v >= OldestVersion && v <= Version }

// The commands whose documents this package describes.
const (
	CommandRun      = "run"
	CommandReplay   = "replay"
	CommandExplore  = "explore"
	CommandZoo      = "zoo"
	CommandBench    = "bench"
	CommandCampaign = "campaign"
	CommandMerge    = "merge"
	CommandCoverage = "coverage"
	// CommandLive's document is live.Result, which begins with its
	// header.
	CommandLive = "live"
)

// Header begins every document: the schema version and the command that
// wrote it.
type Header struct {
	Schema  int    `json:"schema"`
	Command string `json:"command"`
}

// NewHeader is the header of a document command writes today.
func NewHeader(command string) Header { return Header{Schema: Version, Command: command} }

// Write prints a document as indented JSON ending in a newline.
func Write(w io.Writer, doc any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// ErrVersion reports a document of another schema version.
var ErrVersion = fmt.Errorf("schema: document of another version (this build reads versions %d to %d)", OldestVersion, Version)

// ReadHeader reads the header of a document, and refuses one of a version
// this build does not read (Readable).
func ReadHeader(data []byte) (Header, error) {
	var h Header
	if err := json.Unmarshal(data, &h); err != nil {
		return h, fmt.Errorf("schema: not a document: %w", err)
	}
	if !Readable(h.Schema) {
		return h, fmt.Errorf("%w: version %d", ErrVersion, h.Schema)
	}
	return h, nil
}
