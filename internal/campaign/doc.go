// Package campaign runs long, resumable campaigns of one scenario's seeds:
// the nightly job of the simulator. A campaign runs a range of seeds (or
// as many as a wall-clock budget allows), or one shard of it, on several
// goroutines, and keeps everything in a directory as it goes:
//
//	DIR/state.json                             progress: the seeds done, counts, coverage, groups (atomically, twice a second)
//	DIR/report.json                            the report (Report), rewritten with every state save
//	DIR/failures/<slug>/seed-<S>.json          a reproducer of a failing seed, expecting its signature
//	DIR/failures/<slug>/seed-<S>.trace.txt     the readable trace of that seed
//	DIR/failures/<slug>/seed-<S>.html          its page: timeline, S3 history, plan, trace
//
// Failures (every verdict but pass) are grouped by signature
// (harness.SignatureOf; a seed whose two runs' trace hashes differ under
// CheckDeterminism is "nondeterministic"), one directory
// per group (Slug); a group counts every seed but keeps at most Keep
// reproducers on disk, the first found, never deleted. Every file is
// written atomically and a seed is recorded as done only once its files
// are on disk, so a campaign killed at any instant loses nothing it
// recorded: opened again on the same directory, it resumes, skipping the
// seeds done, and its counts include the earlier ones.
//
// The state and the report also hold the campaign's coverage
// (schema.Coverage): for every coverage set of the scenario's protocol
// and the harness's run shapes (harness.CoverageSet), how many seeds
// reached each point and the lowest that did. It is counted with the
// seed, so it too survives a kill and a resumption, and Merge adds the
// shards' up.
//
// The wall clock is read only here, to limit the campaign by its Duration
// and to time saves and progress; never inside a simulated run.
package campaign
