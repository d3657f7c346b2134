package epochfile

import (
	"fmt"
	"testing"

	"github.com/s3lease/s3lease/designs/internal/designtest"
	"github.com/s3lease/s3lease/harness"
)

// listingSpan is one node's whole listing: its pages, each sent at the
// instant the previous page's answer arrived.
type listingSpan struct {
	node  int
	pages []*designtest.Call
}

// listings returns every answered listing of the run.
func listings(cs []*designtest.Call) []listingSpan {
	var out []listingSpan
	open := map[int]int{} // node -> index in out of its listing that may continue
	last := map[int]*designtest.Call{}
	for _, c := range cs {
		prev := last[c.Node]
		last[c.Node] = c
		if c.Op != "ListObjectsV2" {
			continue
		}
		if i, ok := open[c.Node]; ok && prev != nil && prev.Op == "ListObjectsV2" && prev.Return != nil && prev.Return.At == c.Send.At {
			out[i].pages = append(out[i].pages, c)
			continue
		}
		open[c.Node] = len(out)
		out = append(out, listingSpan{node: c.Node, pages: []*designtest.Call{c}})
	}
	return out
}

// midListing counts the cleanup's deletes that S3 applied while another
// node was listing: after its first page was sent and before its last
// page's answer arrived (during), and of those, the ones applied between
// two of its pages (betweenPages).
func midListing(cs []*designtest.Call) (during, betweenPages int) {
	spans := listings(cs)
	for _, d := range cs {
		if d.Op != "DeleteObject" || !d.Applied(200) {
			continue
		}
		at := d.Apply.At
		in, between := false, false
		for _, l := range spans {
			first, lastPage := l.pages[0], l.pages[len(l.pages)-1]
			if l.node == d.Node || lastPage.Return == nil || !(first.Send.At < at && at < lastPage.Return.At) {
				continue
			}
			in = true
			for i := 1; i < len(l.pages); i++ {
				if a, b := l.pages[i-1].Apply, l.pages[i].Apply; a != nil && b != nil && a.At < at && at < b.At {
					between = true
				}
			}
		}
		if in {
			during++
		}
		if between {
			betweenPages++
		}
	}
	return during, betweenPages
}

// TestCleanupRace: on every seed, the cleanup deleted an old lock file
// that S3 applied between two pages of another node's listing; the safe
// form survives.
func TestCleanupRace(t *testing.T) {
	seeds, during, between := 0, 0, 0
	designtest.Sweep(t, CleanupRace, seedsOr(300), func(o *harness.Outcome) error {
		if err := survives(o); err != nil {
			return err
		}
		d, b := midListing(designtest.Calls(o.Result.Trace))
		seeds, during, between = seeds+1, during+d, between+b
		if b == 0 {
			return fmt.Errorf("no deletion landed between two pages of another node's listing (%d during one)", d)
		}
		return nil
	})
	t.Logf("%d seeds: %d deletions applied during another node's listing, %d of them between two of its pages", seeds, during, between)
}
