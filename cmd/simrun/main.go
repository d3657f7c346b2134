// Command simrun runs the deterministic simulation of S3 leader election:
// the stories of package scenarios, the bug zoo, and the production elector
// under random fault plans. Its subcommands are package simrun's, which a
// user's own main can run for their protocols.
package main

import "github.com/s3lease/s3lease/simrun"

func main() { simrun.Main() }
