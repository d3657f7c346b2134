package simrun

import (
	"errors"
	"flag"

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
func s3Flag(fs *flag.FlagSet) *s3Path {
	p := s3Fast
	fs.Var(&p, "s3", "how nodes reach the simulated S3: `fast` (directly) or sdk (the real aws-sdk-go-v2 client over a simulated HTTP transport)")
	return &p
}

// Set reads the -s3 flag's value.
func (p *s3Path) Set(v string) error {
	switch s3Path(v) {
	case s3Fast, s3SDK:
		*p = s3Path(v)
		return nil
	}
	return errors.New("want fast or sdk")
}

func (p *s3Path) String() string { return string(*p) }

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
