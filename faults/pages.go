package faults

import (
	"fmt"

	"github.com/s3lease/s3lease/sim"
)

// errorPages is the plan's Plan.ErrorPages, checked.
func (p *Plan) errorPages() (sim.ErrorPages, error) {
	pages, err := sim.ParseErrorPages(p.ErrorPages)
	if err != nil {
		return pages, fmt.Errorf("errorPages: %w", err)
	}
	return pages, nil
}
