package simrun

// The protocols of the designs the product grew from (docs/sources.md),
// registered with the harness on import so that every subcommand runs
// them: seed 000's lock file per epoch (epochfile/naive, epochfile/safe
// and its stories) and seed 004's leader manager (leadermgr/naive-s3,
// leadermgr/safe-s3, leadermgr/naive-sql, leadermgr/safe-sql and the SQL
// stories).
import (
	_ "github.com/s3lease/s3lease/designs/epochfile"
	_ "github.com/s3lease/s3lease/designs/leadermgr"
)
