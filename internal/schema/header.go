package schema

import (
	"encoding/json"
	"fmt"
	"io"
)

// Version is the version of the documents this package describes.
const Version = 2

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
var ErrVersion = fmt.Errorf("schema: document of another version (this build reads version %d)", Version)

// ReadHeader reads the header of a document, and refuses one of another
// version.
func ReadHeader(data []byte) (Header, error) {
	var h Header
	if err := json.Unmarshal(data, &h); err != nil {
		return h, fmt.Errorf("schema: not a document: %w", err)
	}
	if h.Schema != Version {
		return h, fmt.Errorf("%w: version %d", ErrVersion, h.Schema)
	}
	return h, nil
}
