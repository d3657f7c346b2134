package flagged

import "time"

// Test files are not analysed.
func inTest() { time.Sleep(time.Millisecond) }
