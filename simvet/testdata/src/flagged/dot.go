package flagged

import . "time"

func dot() Time {
	return Now() // want `time.Now reads the real clock`
}
