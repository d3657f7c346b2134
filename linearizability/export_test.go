package linearizability

// CheckS3PorcupineOnly is the check by porcupine alone, without the fast
// checker, for the benchmarks of the external test package.
var CheckS3PorcupineOnly = checkS3Porcupine
