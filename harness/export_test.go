package harness

// What the external tests need of the engine's internals.
var (
	HealedAt = healedAt
	Excuses  = excuses
)
