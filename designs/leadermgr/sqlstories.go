package leadermgr

import (
	"time"

	"github.com/s3lease/s3lease/faults"
	"github.com/s3lease/s3lease/harness"
	"github.com/s3lease/s3lease/sim"
)

// sqlStory is the world of the SQL stories: two nodes for 30 s, faults
// healed at 10 s. Node 1 cannot reach the server for its first second
// (its first statement is refused a connection), so node 0 leads first.
func sqlStory(seed uint64, p harness.Protocol, events ...faults.Event) harness.Setup {
	cfg := harness.World(seed)
	cfg.Nodes, cfg.Duration = 2, 30*time.Second
	plan := &faults.Plan{HealAt: faults.Duration(10 * time.Second),
		Events: append([]faults.Event{{Kind: faults.Partition, At: 0, Node: 1, For: faults.Duration(time.Second)}}, events...)}
	return harness.Setup{Config: cfg, Plan: plan, Protocol: p}
}

// The stories of the document's manager on the row store, each one of its
// faults on its own, and the safe manager under the same identity fault.
var (
	// NaiveSQLHungRenewal: no local deadline. Node 0 leads; its second
	// renewal (its third statement, about 8 s in) is applied and its
	// answer never comes. WriteEntry waits for ever (the document gives it
	// a context without timeout), so node 0 leads on, while the server's
	// clock expires its row 8 s after the renewal applied and node 1 takes
	// over: two leaders from then to the end of the run.
	NaiveSQLHungRenewal = harness.Scenario{
		Name: "leadermgr/naive-sql-hung-renewal",
		Doc: "The document's manager on the SQL row store, two nodes; node 0 leads and the answer to its second renewal " +
			"is lost: with no local deadline and no timeout it leads on while the server expires its row and node 1 takes over",
		Expect: harness.Caught,
		Build: func(seed uint64) harness.Setup {
			return sqlStory(seed, NaiveSQLProtocol(), faults.Event{Kind: faults.AnswerLost, Node: 0, Op: sim.RowWrite, Nth: 3})
		},
	}
	// NaiveSQLSameIdentity: renewal by identity alone. Node 0 leads; at 5
	// s node 1's process dies and at 5.1 s a new one starts there under
	// node 0's identity, as a replacement scheduled under the leader's name while
	// the leader still runs. Its first WriteEntry finds the row naming
	// "n0", valid, and renews it: it leads at once, and so does node 0,
	// whose renewals go on succeeding by the same rule: two leaders to the
	// end of the run.
	NaiveSQLSameIdentity = harness.Scenario{
		Name: "leadermgr/naive-sql-same-identity",
		Doc: "The document's manager on the SQL row store, two nodes; node 0 leads and at 5.1 s node 1 restarts under " +
			"node 0's identity: the condition leader_id = $2 hands it the live term, and both lead",
		Expect: harness.Caught,
		Build:  func(seed uint64) harness.Setup { return sqlStory(seed, NaiveSQLProtocol(), sameIdentity...) },
	}
	// SafeSQLSameIdentity is NaiveSQLSameIdentity's plan for the safe
	// manager: its renewal is conditioned on the nonce of its own last
	// write, so the process started under node 0's name waits for the row
	// to be released or to expire, like anyone else.
	SafeSQLSameIdentity = harness.Scenario{
		Name: "leadermgr/safe-sql-same-identity",
		Doc: "The safe manager on the SQL row store, two nodes; node 0 leads and at 5.1 s node 1 restarts under node 0's " +
			"identity: it waits like anyone else, since a term belongs to the nonce of the write that began it",
		Expect: harness.Survives,
		Build:  func(seed uint64) harness.Setup { return sqlStory(seed, SafeSQLProtocol(), sameIdentity...) },
	}
)

// sameIdentity crashes node 1 at 5 s and restarts it at 5.1 s under node
// 0's identity.
var sameIdentity = []faults.Event{
	{Kind: faults.Crash, At: faults.Duration(5 * time.Second), Node: 1},
	{Kind: faults.Restart, At: faults.Duration(5100 * time.Millisecond), Node: 1, Identity: "n0"},
}
