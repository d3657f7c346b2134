//go:build !broken

package liblock

import "github.com/aws/aws-sdk-go-v2/aws"

// createCondition is the condition of a create: If-None-Match: *, so
// that of the processes that all found no object, one creates it.
func createCondition() *string { return aws.String("*") }
