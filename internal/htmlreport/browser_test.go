package htmlreport

import (
	"bytes"
	"context"
	"encoding/json"
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
	"write the screenshots of TestPageFitsWindow (report-1280.png, report-1920.png) to `DIR`, e.g. ../docs/screenshots")

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
		"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + t.TempDir(),
		// Porcupine measures its text in its iframes; headless Chromium
		// measures nothing in an iframe of another process, and draws its
		// boxes too small. One process draws them as a browser does.
		"--disable-features=IsolateOrigins,site-per-process", "--disable-site-isolation-trials",
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

// overflowScript, added to a copy of a page, opens every details element
// and then measures, into the element #overflow-check: the window's
// innerWidth, the document's scrollWidth, and every visible element whose
// right edge is beyond the window's, but for elements inside a box that
// clips or scrolls them (overflow-x other than visible: the SVGs, the
// scrolling boxes), whose box is measured instead.
const overflowScript = `<pre id="overflow-check"></pre>
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
  const offenders = [];
  let checked = 0;
  for (const el of document.body.querySelectorAll('*')) {
    if (el.id === 'overflow-check' || contained(el)) continue;
    const st = getComputedStyle(el);
    if (st.display === 'none' || st.visibility !== 'visible') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    checked++;
    if (r.right > vw + 0.5) offenders.push(name(el) + ' ends at ' + Math.round(r.right));
  }
  document.getElementById('overflow-check').textContent = JSON.stringify({
    innerWidth: vw,
    scrollWidth: document.documentElement.scrollWidth,
    checked: checked,
    offenders: offenders,
  });
});
</script>
`

// overflowResult is what overflowScript measured.
type overflowResult struct {
	InnerWidth  int      `json:"innerWidth"`
	ScrollWidth int      `json:"scrollWidth"`
	Checked     int      `json:"checked"`
	Offenders   []string `json:"offenders"`
}

var overflowCheck = regexp.MustCompile(`(?s)<pre id="overflow-check">(.*?)</pre>`)

// measure opens page (with overflowScript added) in a window width pixels
// wide and returns what the script measured.
func measure(t *testing.T, browser string, page []byte, width int) overflowResult {
	t.Helper()
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		t.Fatal("the page has no </body>")
	}
	checked := append(append(append([]byte(nil), page[:i]...), overflowScript...), page[i:]...)
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, checked, 0o644); err != nil {
		t.Fatal(err)
	}
	dom := runChromium(t, browser, path, fmt.Sprintf("--window-size=%d,1200", width), "--virtual-time-budget=5000", "--dump-dom")
	m := overflowCheck.FindSubmatch(dom)
	if m == nil || len(bytes.TrimSpace(m[1])) == 0 {
		t.Fatalf("the browser's DOM has no measurement (did the script run?):\n%s", tail(string(dom), 2000))
	}
	var r overflowResult
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &r); err != nil {
		t.Fatalf("reading the measurement %q: %v", m[1], err)
	}
	if r.InnerWidth != width {
		t.Fatalf("the window is %d pixels wide, want %d", r.InnerWidth, width)
	}
	// The header, legend, tables and boxes alone are hundreds of elements.
	if r.Checked < 100 {
		t.Fatalf("only %d elements measured: the page did not render", r.Checked)
	}
	t.Logf("window %d pixels wide: the document is %d wide; %d elements measured, %d too wide", width, r.ScrollWidth, r.Checked, len(r.Offenders))
	return r
}

// fits reports what overflows the window, if anything.
func (r overflowResult) fits() error {
	var problems []string
	if r.ScrollWidth > r.InnerWidth {
		problems = append(problems, fmt.Sprintf("the document is %d pixels wide in a window of %d", r.ScrollWidth, r.InnerWidth))
	}
	if n := len(r.Offenders); n > 0 {
		problems = append(problems, fmt.Sprintf("%d elements end beyond the window's right edge: %s", n, strings.Join(r.Offenders[:min(n, 10)], "; ")))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// failingPage is the page of a run of the naive lock that breaks more than
// once: several violations, each with its zoomed strip.
func failingPage(t *testing.T) (*harness.Outcome, []byte) {
	t.Helper()
	o := findRun(t, "naive-skew", 1, 50, true, func(o *harness.Outcome) bool {
		return o.Verdict == harness.Unsafe && len(o.Violations) >= 3
	})
	return o, render(t, "", o)
}

// The page of a failing run fits windows 1280 and 1920 pixels wide, every
// details element open: the timelines scale to the window, and long text
// wraps or scrolls in its own box. The page measured has a title and a
// replay command with words longer than the window is wide (a campaign's
// title, a reproducer's path), as well as the run's own long lines (the
// trace, the plan, the violations).
func TestPageFitsWindow(t *testing.T) {
	browser := chromium(t)
	o, page := failingPage(t)
	long := strings.Repeat("testdata/harness/TestMyLock/", 12) + "unsafe-overlap-seed-1.json"
	var buf bytes.Buffer
	if err := WriteOptions(&buf, "campaign "+long, o, Options{Replay: "go run ./cmd/simrun replay " + long}); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int{1280, 1920} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			if err := measure(t, browser, buf.Bytes(), width).fits(); err != nil {
				t.Error(err)
			}
			if *screenshots != "" {
				screenshot(t, browser, page, width, filepath.Join(*screenshots, fmt.Sprintf("report-%d.png", width)))
			}
		})
	}
}

// The check can fail: an element wider than the window, or a word too long
// to wrap, is caught.
func TestOverflowCheckCatchesWideElements(t *testing.T) {
	browser := chromium(t)
	_, page := failingPage(t)
	for name, wide := range map[string]string{
		"block": `<div id="too-wide" style="width: 2400px; height: 4px"></div>`,
		"word":  `<p id="too-long">` + strings.Repeat("x", 400) + `</p>`,
	} {
		t.Run(name, func(t *testing.T) {
			broken := bytes.Replace(page, []byte("<main>"), []byte("<main>"+wide), 1)
			r := measure(t, browser, broken, 1280)
			if r.fits() == nil {
				t.Errorf("a page with %s fits a window 1280 pixels wide: the check cannot fail", wide[:40])
			}
		})
	}
}
