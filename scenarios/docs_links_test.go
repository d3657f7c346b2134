package scenarios

import (
	"io/fs"
	"net/url"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"unicode"
)

// TestDocsLinks checks the repository's documentation links: every relative
// markdown link in a .md file, and every reference to a page of docs/ (with
// or without an #anchor) in a .go or .md file, names a file that exists and,
// with an anchor, a heading of that file (by GitHub's anchor rules); and no
// file names the background documents the docs/ pages replaced.
func TestDocsLinks(t *testing.T) {
	for _, p := range checkDocLinks(os.DirFS("..")) {
		t.Error(p)
	}
}

// TestDocLinkCheckerFails shows that the checker reports each kind of broken
// reference, and only those, on a small tree. (The tree is written with
// DOCS/ for docs/ and RETIRED for a retired name, so that this file itself
// holds no reference for TestDocsLinks to check.)
func TestDocLinkCheckerFails(t *testing.T) {
	fix := strings.NewReplacer("DOCS/", "docs/", "RETIRED", "FAILURE-MODES"+".md").Replace
	tree := fstest.MapFS{}
	for name, text := range map[string]string{
		"README.md": "# Top\n\n" +
			"[good](DOCS/a.md#2-second-mode) [good too](DOCS/a.md) [web](https://example.com/x.md#y) [self](#top)\n" +
			"[missing anchor](DOCS/a.md#3-third-mode)\n" +
			"[missing file](DOCS/nope.md)\n" +
			"[bad self](#bottom)\n" +
			"```sh\n[ignored in code](DOCS/nope.md)\n```\n" +
			"see RETIRED\n",
		"DOCS/a.md": "# A\n\n## 1. First mode\n\n## 2. Second mode\n\n[back](../README.md#top) [up](../README.md#nowhere)\n",
		"pkg/x.go":  "package x\n\n// See DOCS/a.md#1-first-mode and DOCS/a.md#first-mode\n// and DOCS/gone.md.\n",
	} {
		tree[fix(name)] = &fstest.MapFile{Data: []byte(fix(text))}
	}
	got := checkDocLinks(tree)
	want := []string{
		"README.md:4: link DOCS/a.md#3-third-mode: no heading with anchor #3-third-mode in DOCS/a.md",
		"README.md:5: link DOCS/nope.md: no file DOCS/nope.md",
		"README.md:6: link #bottom: no heading with anchor #bottom in README.md",
		"README.md:10: names RETIRED, which the docs/ pages replace",
		"DOCS/a.md:7: link ../README.md#nowhere: no heading with anchor #nowhere in README.md",
		"pkg/x.go:3: reference DOCS/a.md#first-mode: no heading with anchor #first-mode in DOCS/a.md",
		"pkg/x.go:4: reference DOCS/gone.md: no file DOCS/gone.md",
	}
	for i := range want {
		want[i] = fix(want[i])
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

func TestGitHubAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"13. Renewal conflict":                     "13-renewal-conflict",
		"ABA on If-Match":                          "aba-on-if-match",
		"Last-Modified and the S3 clock":           "last-modified-and-the-s3-clock",
		"quanttype: one lock object with If-Match": "quanttype-one-lock-object-with-if-match",
		"What `safe` means, *here*":                "what-safe-means-here",
		"The [zoo](zoo/) and S3's clock":           "the-zoo-and-s3s-clock",
		"Two  spaces_and_underscores":              "two--spaces_and_underscores",
	} {
		if got := gitHubAnchor(heading); got != want {
			t.Errorf("gitHubAnchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

var (
	// mdLink is an inline markdown link or image: [text](target "title").
	mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// mdRefDef is a reference-style link definition: [label]: target.
	mdRefDef = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$`)
	// docsRef is a reference to a page of docs/ from the repository root,
	// as Go comments and prose write it.
	docsRef = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])(docs/[A-Za-z0-9_./-]*\.md)(#[A-Za-z0-9_-]+)?`)
	// atxHeading is a "# Heading" line; htmlAnchor an explicit HTML anchor.
	atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	htmlAnchor = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	setextLine = regexp.MustCompile(`^ {0,3}(?:=+|-+)[ \t]*$`)
	codeSpan   = regexp.MustCompile("`+[^`]*`+")
	htmlTag    = regexp.MustCompile(`<[^>]+>`)
	scheme     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// checkDocLinks returns the broken documentation references in fsys, a
// repository tree, as "file:line: problem", sorted by file and line.
func checkDocLinks(fsys fs.FS) []string {
	retired := []string{"FAILURE-MODES" + ".md", "S3-SEMANTICS" + ".md"}
	type file struct {
		name string
		text string
	}
	var files []file
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		files = append(files, file{name, string(b)})
		return nil
	})
	if err != nil {
		return []string{"walking the repository: " + err.Error()}
	}

	anchors := map[string]map[string]bool{} // .md file -> its anchors
	anchorsOf := func(name string) map[string]bool {
		if a, ok := anchors[name]; ok {
			return a
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil
		}
		anchors[name] = markdownAnchors(string(b))
		return anchors[name]
	}
	exists := func(name string) bool {
		_, err := fs.Stat(fsys, name)
		return err == nil
	}

	var problems []string
	report := func(f file, offset int, format string) {
		line := strings.Count(f.text[:offset], "\n") + 1
		problems = append(problems, f.name+":"+strconv.Itoa(line)+": "+format)
	}
	// check reports a target (a path relative to dir, and an anchor) that
	// does not resolve.
	check := func(f file, offset int, kind, ref, dir, target, anchor string) {
		name := f.name
		if target != "" {
			if p, err := url.PathUnescape(target); err == nil {
				target = p
			}
			name = path.Clean(path.Join(dir, target))
			if name == ".." || strings.HasPrefix(name, "../") || !exists(name) {
				report(f, offset, kind+" "+ref+": no file "+name)
				return
			}
		}
		if anchor == "" {
			return
		}
		if !strings.HasSuffix(name, ".md") || !anchorsOf(name)[anchor] {
			report(f, offset, kind+" "+ref+": no heading with anchor #"+anchor+" in "+name)
		}
	}

	for _, f := range files {
		for _, r := range retired {
			if i := strings.Index(f.text, r); i >= 0 {
				report(f, i, "names "+r+", which the docs/ pages replace")
			}
		}
		isMD, isGo := strings.HasSuffix(f.name, ".md"), strings.HasSuffix(f.name, ".go")
		if isMD {
			prose := markdownProse(f.text)
			var targets [][]int
			for _, m := range mdLink.FindAllStringSubmatchIndex(prose, -1) {
				targets = append(targets, m[2:4])
			}
			for _, m := range mdRefDef.FindAllStringSubmatchIndex(prose, -1) {
				targets = append(targets, m[2:4])
			}
			slices.SortFunc(targets, func(a, b []int) int { return a[0] - b[0] })
			for _, m := range targets {
				ref := prose[m[0]:m[1]]
				if scheme.MatchString(ref) || strings.HasPrefix(ref, "//") {
					continue
				}
				target, anchor, _ := strings.Cut(ref, "#")
				check(f, m[0], "link", ref, path.Dir(f.name), target, anchor)
			}
		}
		if isMD || isGo {
			for _, m := range docsRef.FindAllStringSubmatchIndex(f.text, -1) {
				target, anchor := f.text[m[2]:m[3]], ""
				if m[4] >= 0 {
					anchor = f.text[m[4]+1 : m[5]]
				}
				if isMD && strings.HasPrefix(f.text[max(m[2]-2, 0):m[2]], "](") {
					continue // a markdown link, checked above relative to its file
				}
				check(f, m[2], "reference", f.text[m[2]:max(m[3], m[5])], ".", target, anchor)
			}
		}
	}
	slices.SortStableFunc(problems, func(a, b string) int {
		fa, la := splitProblem(a)
		fb, lb := splitProblem(b)
		if fa != fb {
			return strings.Compare(fa, fb)
		}
		return la - lb
	})
	return problems
}

// splitProblem returns the file and line of a problem.
func splitProblem(p string) (string, int) {
	name, rest, _ := strings.Cut(p, ":")
	n, _ := strconv.Atoi(rest[:strings.IndexByte(rest, ':')])
	return name, n
}

// markdownProse returns text with fenced code blocks and inline code spans
// blanked out (same length, newlines kept), so that offsets still name the
// original lines and code is not read as links.
func markdownProse(text string) string {
	lines := strings.SplitAfter(text, "\n")
	fence := ""
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		switch {
		case fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			fence = trimmed[:3]
			lines[i] = blank(l)
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			lines[i] = blank(l)
		default:
			lines[i] = codeSpan.ReplaceAllStringFunc(l, blank)
		}
	}
	return strings.Join(lines, "")
}

// blank replaces every byte of s but newlines with a space.
func blank(s string) string {
	b := []byte(s)
	for i := range b {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// markdownAnchors returns the anchors GitHub gives the headings of a
// markdown document (duplicates numbered -1, -2, ...), and its explicit
// HTML anchors.
func markdownAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	add := func(heading string) {
		a := gitHubAnchor(heading)
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	lines := strings.Split(text, "\n")
	fence := ""
	for i, l := range lines {
		trimmed := strings.TrimLeft(l, " ")
		if fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			fence = trimmed[:3]
			continue
		}
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(l, -1) {
			out[m[1]] = true
		}
		if m := atxHeading.FindStringSubmatch(l); m != nil {
			add(m[1])
			continue
		}
		// A setext heading: a line of text underlined with = or -.
		if i > 0 && setextLine.MatchString(l) {
			prev := strings.TrimSpace(lines[i-1])
			if prev != "" && !strings.ContainsAny(prev[:1], "|#>-*+") && !atxHeading.MatchString(lines[i-1]) {
				add(prev)
			}
		}
	}
	return out
}

// gitHubAnchor is the anchor GitHub gives a heading: its text without
// markup, lower-cased, with every character that is not a letter, a digit,
// a space, '-' or '_' dropped, and spaces replaced by '-'.
func gitHubAnchor(heading string) string {
	heading = mdLink.ReplaceAllStringFunc(heading, func(link string) string {
		text, _, _ := strings.Cut(strings.TrimPrefix(link, "!")[1:], "](")
		return text
	})
	heading = htmlTag.ReplaceAllString(heading, "")
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
