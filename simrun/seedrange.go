package simrun

import (
	"context"
	"fmt"
	"time"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/internal/cmdline"
	"github.com/s3lease/s3lease/internal/schema"
)

// checkRange is cmdline.CheckCounts, and that the range of seeds from start does
// not overflow.
func checkRange(start uint64, seeds, workers int) error {
	if err := cmdline.CheckCounts(seeds, workers); err != nil {
		return err
	}
	if start+uint64(seeds)-1 < start {
		return fmt.Errorf("%w: seed range %d+%d overflows", errUsage, start, seeds)
	}
	return nil
}

// runRange runs seeds runs of sc from start: plain swarm seeds, or a
// guided campaign when guided is non-nil (whose figures it then returns
// too).
func (cli *program) runRange(ctx context.Context, sc harness.Scenario, start, seeds uint64, workers int, untilFailure bool,
	prog *runProgress, path s3Path, guided *guidedOut) ([]seedResult, *schema.Coverage, *schema.Guided, time.Duration, error) {
	if guided != nil {
		return cli.guidedCampaign(ctx, sc, start, seeds, workers, untilFailure, prog, path, guided)
	}
	results, cov, wall, err := cli.campaign(ctx, sc, start, seeds, workers, untilFailure, prog, path)
	return results, cov, nil, wall, err
}
