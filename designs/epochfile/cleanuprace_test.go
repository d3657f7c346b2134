package epochfile

import (
	"fmt"
	"testing"

	"github.com/s3lease/s3lease/harness"
)

// listingSpan is one node's whole listing: its pages, each sent at the
// instant the previous page's answer arrived.
type listingSpan struct {
	node  int
	pages []*call
}

// listings returns every answered listing of the run.
func listings(cs []*call) []listingSpan {
	var out []listingSpan
	open := map[int]int{} // node -> index in out of its listing that may continue
	last := map[int]*call{}
	for _, c := range cs {
		prev := last[c.node]
		last[c.node] = c
		if c.op != "ListObjectsV2" {
			continue
		}
		if i, ok := open[c.node]; ok && prev != nil && prev.op == "ListObjectsV2" && prev.ret != nil && prev.ret.At == c.send.At {
			out[i].pages = append(out[i].pages, c)
			continue
		}
		open[c.node] = len(out)
		out = append(out, listingSpan{node: c.node, pages: []*call{c}})
	}
	return out
}

// midListing counts the cleanup's deletes that S3 applied while another
// node was listing: after its first page was sent and before its last
// page's answer arrived (during), and of those, the ones applied between
// two of its pages (betweenPages).
func midListing(cs []*call) (during, betweenPages int) {
	spans := listings(cs)
	for _, d := range cs {
		if d.op != "DeleteObject" || !d.applied(200) {
			continue
		}
		at := d.apply.At
		in, between := false, false
		for _, l := range spans {
			first, lastPage := l.pages[0], l.pages[len(l.pages)-1]
			if l.node == d.node || lastPage.ret == nil || !(first.send.At < at && at < lastPage.ret.At) {
				continue
			}
			in = true
			for i := 1; i < len(l.pages); i++ {
				if a, b := l.pages[i-1].apply, l.pages[i].apply; a != nil && b != nil && a.At < at && at < b.At {
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
	sweep(t, CleanupRace, seedsOr(300), func(o *harness.Outcome) error {
		if err := survives(o); err != nil {
			return err
		}
		d, b := midListing(calls(o))
		seeds, during, between = seeds+1, during+d, between+b
		if b == 0 {
			return fmt.Errorf("no deletion landed between two pages of another node's listing (%d during one)", d)
		}
		return nil
	})
	t.Logf("%d seeds: %d deletions applied during another node's listing, %d of them between two of its pages", seeds, during, between)
}
