// Package broken does not type-check.
package broken

var x int = "not an int"
