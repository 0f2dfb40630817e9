// Package shared_test checks the repository's documents: the README stays
// a front door, every relative link in a document resolves (file and
// heading), and the architecture document names only packages and files
// that exist.
package shared_test

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

const root = ".." // the repository, from shared/

// maxReadmeLines is the front door's length (issue 35).
const maxReadmeLines = 200

func TestReadmeIsAFrontDoor(t *testing.T) {
	lines := readLines(t, filepath.Join(root, "README.md"))
	if len(lines) > maxReadmeLines {
		t.Errorf("README.md has %d lines, at most %d: move the detail beside what it documents", len(lines), maxReadmeLines)
	}
}

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link of every document in the repository names a file
// or folder that exists and, after #, a heading of that file.
func TestDocumentLinksResolve(t *testing.T) {
	docs := documents(t)
	if len(docs) < 5 {
		t.Fatalf("found %d documents, want the README and the documents beside the code", len(docs))
	}
	anchors := map[string]map[string]bool{}
	for _, doc := range docs {
		for n, line := range outsideFences(readLines(t, doc)) {
			for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				path := doc
				if file != "" {
					path = filepath.Join(filepath.Dir(doc), file)
				}
				rel, _ := filepath.Rel(root, path)
				if strings.HasPrefix(rel, "..") {
					t.Errorf("%s:%d: link %q leaves the repository", doc, n+1, target)
					continue
				}
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s:%d: link %q: no such file", doc, n+1, target)
					continue
				}
				if frag == "" {
					continue
				}
				if anchors[path] == nil {
					anchors[path] = headings(t, path)
				}
				if !anchors[path][frag] {
					t.Errorf("%s:%d: link %q: %s has no heading #%s", doc, n+1, target, rel, frag)
				}
			}
		}
	}
}

// The architecture document describes the code as it is: every package,
// folder or Go file it names in backquotes exists.
func TestArchitectureNamesWhatExists(t *testing.T) {
	doc := filepath.Join(root, "shared", "ARCHITECTURE.md")
	pathRE := regexp.MustCompile("`([a-z0-9_]+(?:/[a-z0-9_{},.]+)+/?)`")
	named := 0
	for n, line := range readLines(t, doc) {
		for _, m := range pathRE.FindAllStringSubmatch(line, -1) {
			for _, p := range expand(strings.TrimSuffix(m[1], "/")) {
				if strings.Contains(p, "<") {
					continue
				}
				named++
				if !exists(p) {
					t.Errorf("ARCHITECTURE.md:%d: %q is not in the repository (looked under the root and shared/)", n+1, p)
				}
			}
		}
	}
	if named < 30 {
		t.Errorf("ARCHITECTURE.md names %d paths; the check reads backquoted paths such as `survey/grid`", named)
	}
}

// exists reports whether p is a file or folder of the repository, from
// its root or from shared/ (the document names shared packages short).
func exists(p string) bool {
	for _, base := range []string{root, filepath.Join(root, "shared")} {
		if _, err := os.Stat(filepath.Join(base, p)); err == nil {
			return true
		}
	}
	return false
}

// expand spells out one level of braces: a/{b,c} is a/b and a/c.
func expand(p string) []string {
	i, j := strings.Index(p, "{"), strings.Index(p, "}")
	if i < 0 || j < i {
		return []string{p}
	}
	var out []string
	for _, alt := range strings.Split(p[i+1:j], ",") {
		out = append(out, expand(p[:i]+alt+p[j+1:])...)
	}
	return out
}

// documents lists the Markdown files of the repository, outside build
// output, dependencies and test data.
func documents(t *testing.T) []string {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata" || name == "cdk.out" || name == "vendor") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(name, ".md") {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// headings returns the anchors GitHub gives a file's headings.
func headings(t *testing.T, path string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range outsideFences(readLines(t, path)) {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		slug := slugify(text)
		if k := seen[slug]; k > 0 {
			out[fmt.Sprintf("%s-%d", slug, k)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

func slugify(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// outsideFences blanks the lines inside ``` fences, keeping numbering.
func outsideFences(lines []string) []string {
	out := make([]string, len(lines))
	fence := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if !fence {
			out[i] = l
		}
	}
	return out
}

func readLines(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
