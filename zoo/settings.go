package zoo

import (
	"time"

	"github.com/s3lease/s3lease/harness/elector"
)

// settings are the careful lock's: the production elector's
// (elector.Settings), whose term, assumptions and liveness bound it
// shares. The zoo runs every lock with those of the swarm campaign's
// elector (elector.DefaultSettings), so that a variant's failure is
// measured under exactly the plans the production elector passes.
type settings struct{ elector.Settings }

var defaults = settings{elector.DefaultSettings}

// requestTimeout bounds every S3 call: RequestTimeout, 0 meaning
// RetryPeriod, as for the elector.
func (s settings) requestTimeout() time.Duration {
	if s.RequestTimeout == 0 {
		return s.RetryPeriod
	}
	return s.RequestTimeout
}
