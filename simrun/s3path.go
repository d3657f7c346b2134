package simrun

import (
	"flag"
	"fmt"

	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sdkhttp"
)

// s3Path is how a run's nodes reach the simulated S3: "fast", straight
// through the simulator's client, or "sdk", through the real aws-sdk-go-v2
// client (its serializers, signing, deserializers and error decoding) over
// the simulated HTTP transport of package sdkhttp. The runs are the same
// but for the differences sdkhttp names; the SDK path is about ten times
// slower.
type s3Path string

const (
	s3Fast s3Path = "fast"
	s3SDK  s3Path = "sdk"
)

// s3Flag registers the -s3 flag.
func s3Flag(fs *flag.FlagSet) *string {
	return fs.String("s3", string(s3Fast), "how nodes reach the simulated S3: `fast` (directly) or sdk (the real aws-sdk-go-v2 client over a simulated HTTP transport)")
}

// parseS3 reads the -s3 flag's value.
func parseS3(v string) (s3Path, error) {
	switch p := s3Path(v); p {
	case s3Fast, s3SDK:
		return p, nil
	}
	return "", fmt.Errorf("%w: -s3 %q: want fast or sdk", errUsage, v)
}

// setup makes s reach S3 by path p.
func (p s3Path) setup(s harness.Setup) harness.Setup {
	if p == s3SDK {
		s.Config.WrapStore = sdkhttp.Beneath(s.Config.WrapStore)
	}
	return s
}

// scenario is sc with its runs reaching S3 by path p.
func (p s3Path) scenario(sc harness.Scenario) harness.Scenario {
	if p != s3SDK {
		return sc
	}
	build := sc.Build
	sc.Build = func(seed uint64) harness.Setup { return p.setup(build(seed)) }
	return sc
}

// flag is what a printed command adds to name the path: nothing for the
// default.
func (p s3Path) flags() []string {
	if p == s3SDK {
		return []string{"-s3", "sdk"}
	}
	return nil
}
