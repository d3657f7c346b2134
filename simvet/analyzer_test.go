package simvet_test

import (
	"testing"

	"github.com/s3lease/s3lease/simvet"
	"golang.org/x/tools/go/analysis/analysistest"
)

func TestAnalyzer(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), simvet.Analyzer, "flagged", "allowed", "directive")
}
