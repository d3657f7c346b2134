package htmlreport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/s3lease/s3lease/harness"
)

// These tests open pages in headless Chromium (Debian's chromium package)
// and skip where it is not installed.

var screenshots = flag.String("htmlreport.screenshots", "",
	"write the screenshots of TestPagesReadable (report-800.png, report-1400.png) to `DIR`, e.g. ../../docs/screenshots")

// browserTimeout bounds each run of the browser.
const browserTimeout = time.Minute

// chromium returns the browser's path, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	t.Skip("chromium is not installed (neither /usr/bin/chromium nor chromium in PATH); on Debian: apt-get install -y chromium")
	return ""
}

// runChromium runs headless Chromium on a file with args, and returns its
// standard output.
func runChromium(t *testing.T, browser, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	all := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--disable-quic",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(),
	}, args...)
	all = append(all, "file://"+page)
	cmd := exec.CommandContext(ctx, browser, all...)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, tail(stderr.String(), 2000))
	}
	return stdout.Bytes()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// measureScript, added to a copy of a page, opens every details element
// and then measures, into the element #measure: the window's innerWidth,
// the document's scrollWidth, and every visible element whose right edge
// is beyond the window's, but for elements inside a box that clips or
// scrolls them (overflow-x other than visible: the scrolling boxes), whose
// box is measured instead; the smallest text on the page, in the frames
// of porcupine's views too, as the window draws it (its font size times
// the scale it is drawn at); and every two texts of a timeline, or of the
// election history's view, that overprint each other (their boxes
// overlapping by more than a pixel both ways). A frame the page cannot
// read is a problem of its own.
const measureScript = `<pre id="measure"></pre>
<script>
addEventListener('load', () => {
  for (const d of document.querySelectorAll('details')) d.open = true;
  const vw = window.innerWidth;
  const contained = (el) => {
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') return true;
    }
    return false;
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\s+/).join('.') : '');
  const shown = (el) => {
    const st = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    return st.display !== 'none' && st.visibility === 'visible' && (r.width > 0 || r.height > 0);
  };
  const out = {innerWidth: vw, scrollWidth: document.documentElement.scrollWidth, checked: 0, offenders: [],
    texts: 0, minText: 1000, minTextAt: '', overlaps: [], problems: []};
  for (const el of document.body.querySelectorAll('*')) {
    if (el.id === 'measure' || contained(el) || !shown(el)) continue;
    out.checked++;
    const r = el.getBoundingClientRect();
    if (r.right > vw + 0.5) out.offenders.push(name(el) + ' ends at ' + Math.round(r.right));
  }
  // Every element with text of its own, in the page and in its frames.
  const texts = (doc, where) => {
    for (const el of doc.body.querySelectorAll('*')) {
      if (el.id === 'measure' || !shown(el)) continue;
      if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '')) continue;
      const scale = el.getScreenCTM ? Math.abs(el.getScreenCTM().a) : 1;
      const size = parseFloat(getComputedStyle(el).fontSize) * scale;
      out.texts++;
      if (size < out.minText) {
        out.minText = size;
        out.minTextAt = where + name(el) + ' "' + el.textContent.trim().slice(0, 40) + '"';
      }
    }
  };
  const overprints = (root, where) => {
    const boxes = [...root.querySelectorAll('text')].filter(shown).map((t) => ({t, r: t.getBoundingClientRect()}));
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].r, b = boxes[j].r;
        if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1) {
          out.overlaps.push(where + ': "' + boxes[i].t.textContent + '" and "' + boxes[j].t.textContent + '" at ' +
            Math.round(a.left) + ',' + Math.round(a.top));
        }
      }
    }
  };
  texts(document, '');
  for (const svg of document.querySelectorAll('svg.timeline')) overprints(svg, svg.id);
  for (const f of document.querySelectorAll('iframe')) {
    let doc = null;
    try { doc = f.contentDocument; } catch (e) {}
    if (!doc || !doc.body) { out.problems.push('cannot read the frame ' + f.id); continue; }
    texts(doc, f.id + ' ');
    if (f.id === 'election-history-frame') overprints(doc.getElementById('canvas') || doc.body, f.id);
  }
  document.getElementById('measure').textContent = JSON.stringify(out);
});
</script>
`

// measurement is what measureScript measured.
type measurement struct {
	InnerWidth  int      `json:"innerWidth"`
	ScrollWidth int      `json:"scrollWidth"`
	Checked     int      `json:"checked"`
	Offenders   []string `json:"offenders"`
	Texts       int      `json:"texts"`
	MinText     float64  `json:"minText"`
	MinTextAt   string   `json:"minTextAt"`
	Overlaps    []string `json:"overlaps"`
	Problems    []string `json:"problems"`
}

var measured = regexp.MustCompile(`(?s)<pre id="measure">(.*?)</pre>`)

// measure opens page (with measureScript added) in a window width pixels
// wide and returns what the script measured.
func measure(t *testing.T, browser string, page []byte, width int) measurement {
	t.Helper()
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		t.Fatal("the page has no </body>")
	}
	checked := append(append(append([]byte(nil), page[:i]...), measureScript...), page[i:]...)
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, checked, 0o644); err != nil {
		t.Fatal(err)
	}
	dom := runChromium(t, browser, path, fmt.Sprintf("--window-size=%d,1200", width), "--virtual-time-budget=5000", "--dump-dom")
	m := measured.FindSubmatch(dom)
	if m == nil || len(bytes.TrimSpace(m[1])) == 0 {
		t.Fatalf("the browser's DOM has no measurement (did the script run?):\n%s", tail(string(dom), 2000))
	}
	var r measurement
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &r); err != nil {
		t.Fatalf("reading the measurement %q: %v", m[1], err)
	}
	if r.InnerWidth != width {
		t.Fatalf("the window is %d pixels wide, want %d", r.InnerWidth, width)
	}
	// The header, legend and tables alone are scores of elements, the
	// timeline hundreds of texts.
	if r.Checked < 50 || r.Texts < 100 {
		t.Fatalf("only %d elements and %d texts measured: the page did not render", r.Checked, r.Texts)
	}
	t.Logf("window %d pixels wide: the document is %d wide; %d elements measured, %d too wide; %d texts, the smallest %.1f px (%s); %d overprinted",
		width, r.ScrollWidth, r.Checked, len(r.Offenders), r.Texts, r.MinText, r.MinTextAt, len(r.Overlaps))
	return r
}

// readable reports what makes the page hard to read, if anything: what
// overflows the window, text smaller than 11 pixels, texts overprinted.
func (r measurement) readable() error {
	problems := r.Problems
	if r.ScrollWidth > r.InnerWidth {
		problems = append(problems, fmt.Sprintf("the document is %d pixels wide in a window of %d", r.ScrollWidth, r.InnerWidth))
	}
	if n := len(r.Offenders); n > 0 {
		problems = append(problems, fmt.Sprintf("%d elements end beyond the window's right edge: %s", n, strings.Join(r.Offenders[:min(n, 10)], "; ")))
	}
	if r.MinText < smallText {
		problems = append(problems, fmt.Sprintf("text %.1f pixels high: %s", r.MinText, r.MinTextAt))
	}
	if n := len(r.Overlaps); n > 0 {
		problems = append(problems, fmt.Sprintf("%d pairs of texts overprint each other: %s", n, strings.Join(r.Overlaps[:min(n, 10)], "; ")))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// failingPage is the page of a run of the naive lock that breaks more than
// once: several violations, each with its zoomed strip, and many terms.
func failingPage(t *testing.T) (*harness.Outcome, []byte) {
	t.Helper()
	o := findRun(t, "naive-skew", 1, 50, true, func(o *harness.Outcome) bool {
		return o.Verdict == harness.Unsafe && len(o.Violations) >= 3 && len(o.Result.History.Terms) >= 10
	})
	return o, render(t, "", o)
}

// passesWithTerms is a condition on a run: it passes with n leadership
// terms.
func passesWithTerms(n int) func(*harness.Outcome) bool {
	return func(o *harness.Outcome) bool { return o.Verdict == harness.Pass && len(o.Result.History.Terms) == n }
}

// Pages read well in windows 800 and 1400 pixels wide, every details
// element open: nothing wider than the window (the timelines fit their
// box, long text wraps or scrolls in its own box), no text smaller than 11
// pixels, no two texts of a timeline or of the election history's view
// overprinting each other. The pages: a failing run's, with a title and a
// replay command with words longer than the window is wide (a campaign's
// title, a reproducer's path) as well as its own long lines (the trace,
// the plan, the violations); a passing run of the swarm; runs with one,
// two and very many leadership terms.
func TestPagesReadable(t *testing.T) {
	browser := chromium(t)
	o, failing := failingPage(t)
	long := strings.Repeat("testdata/harness/TestMyLock/", 12) + "unsafe-overlap-seed-1.json"
	var buf bytes.Buffer
	if err := WriteOptions(&buf, "campaign "+long, o, Options{Replay: "go run ./cmd/simrun replay " + long}); err != nil {
		t.Fatal(err)
	}
	pages := []struct {
		name string
		page []byte
	}{
		{"failing", buf.Bytes()},
		{"swarm", render(t, "", findRun(t, "swarm", 1, 20, true, func(o *harness.Outcome) bool { return o.Verdict == harness.Pass }))},
		{"one-term", render(t, "", findRun(t, "reference", 1, 20, true, passesWithTerms(1)))},
		{"two-terms", render(t, "", findRun(t, "reference", 1, 20, true, passesWithTerms(2)))},
		{"many-terms", render(t, "", findRun(t, "zoo/last-modified", 1, 20, true, func(o *harness.Outcome) bool {
			return len(o.Result.History.Terms) >= 100
		}))},
	}
	for _, p := range pages {
		for _, width := range []int{800, 1400} {
			t.Run(fmt.Sprintf("%s/%d", p.name, width), func(t *testing.T) {
				if err := measure(t, browser, p.page, width).readable(); err != nil {
					t.Error(err)
				}
				if *screenshots != "" && p.name == "failing" {
					screenshot(t, browser, failing, width, filepath.Join(*screenshots, fmt.Sprintf("report-%d.png", width)))
				}
			})
		}
	}
}

// The checks can fail: an element wider than the window, a word too long
// to wrap, text too small, two labels of a timeline on top of each other,
// a frame the page cannot read and a garbled election history are each
// caught.
func TestReadabilityCheckCatches(t *testing.T) {
	browser := chromium(t)
	_, page := failingPage(t)
	for name, change := range map[string][2]string{
		"block":   {"<main>", `<main><div id="too-wide" style="width: 2400px; height: 4px"></div>`},
		"word":    {"<main>", `<main><p id="too-long">` + strings.Repeat("x", 400) + `</p>`},
		"small":   {"<main>", `<main><p style="font-size: 9px">small print</p>`},
		"overlap": {`<svg class="plot"`, `<text x="40" y="300">one label</text><text x="44" y="302">another</text><svg class="plot"`},
		"frame":   {`sandbox="allow-scripts allow-same-origin"`, `sandbox="allow-scripts"`},
		// Porcupine measures its words in a hidden element: hidden
		// further, it measures nothing, and draws the election history
		// garbled, its boxes too narrow for their words.
		"garbled": {`id=&#34;calc&#34;&gt;`, `id=&#34;calc&#34; style=&#34;display: none&#34;&gt;`},
	} {
		t.Run(name, func(t *testing.T) {
			if !bytes.Contains(page, []byte(change[0])) {
				t.Fatalf("the page has no %q", change[0])
			}
			broken := bytes.Replace(page, []byte(change[0]), []byte(change[1]), 1)
			err := measure(t, browser, broken, 1400).readable()
			if err == nil {
				t.Errorf("a page changed to have %.40s reads well: the check cannot fail", change[1])
			}
			t.Log(err)
		})
	}
}
