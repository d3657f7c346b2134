package protocol

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

func TestFenceProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var f Fence
		var admitted []uint64
		tokens := rapid.SliceOf(rapid.Uint64Range(0, 12)).Draw(t, "tokens")
		for _, tok := range tokens {
			before := f.Highest()
			err := f.Admit(tok)
			switch {
			case tok < before:
				if !errors.Is(err, ErrStaleToken) {
					t.Fatalf("Admit(%d) with highest %d: %v, want ErrStaleToken", tok, before, err)
				}
				msg := err.Error()
				if !strings.Contains(msg, strconv.FormatUint(tok, 10)) || !strings.Contains(msg, strconv.FormatUint(before, 10)) {
					t.Fatalf("error %q does not name both tokens %d and %d", msg, tok, before)
				}
				if f.Highest() != before {
					t.Fatalf("a rejected token moved Highest from %d to %d", before, f.Highest())
				}
			case err != nil:
				t.Fatalf("Admit(%d) with highest %d: %v", tok, before, err)
			default:
				admitted = append(admitted, tok)
				if f.Highest() != tok {
					t.Fatalf("after Admit(%d), Highest = %d", tok, f.Highest())
				}
			}
		}
		for i := 1; i < len(admitted); i++ {
			if admitted[i] < admitted[i-1] {
				t.Fatalf("admitted tokens decrease: %v", admitted)
			}
		}
	})
}

// TestFenceConcurrent is for the race detector: many goroutines admitting
// interleaved tokens end with the largest one as Highest.
func TestFenceConcurrent(t *testing.T) {
	var f Fence
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 200 {
				tok := uint64(i*8 + w)
				_ = f.Admit(tok)
				_ = f.Highest()
			}
		})
	}
	wg.Wait()
	if f.Highest() != 8*200-1 {
		t.Errorf("Highest = %d, want %d", f.Highest(), 8*200-1)
	}
	if err := f.Admit(f.Highest() - 1); !errors.Is(err, ErrStaleToken) {
		t.Errorf("Admit below Highest after the run: %v", err)
	}
}
