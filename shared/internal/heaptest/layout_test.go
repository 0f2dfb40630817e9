package heaptest

import (
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// measures matches what a heap or RSS bound is measured with.
var measures = regexp.MustCompile(`runtime\.ReadMemStats|heaptest\.(Peak|Live|Lowest)|\.HeapAlloc|\.HeapInuse|Maxrss|/gc/heap|VmHWM|VmRSS|RssFile|RssAnon`)

// notYetMoved are test files that measure the heap or RSS outside make
// test-heap, and why.
var notYetMoved = map[string]string{
	// The metered store behind TestListHeapFlat (paging_test.go) samples
	// the heap on every store read, and the paging tests share it without
	// sampling; splitting the sampling out under the heaptest tag is still
	// to do (issue 35, left open).
	"shared/energy/energyapi/bigdata_test.go": "TestListHeapFlat's metered store, not yet split",
	// TestProvinceBuild, skipped unless MERIDIAN_DATALAYERS_PROVINCE is
	// set, logs the peak RSS of a province-size build and bounds nothing.
	"shared/tile/datalayers/scale_test.go": "logs, bounds nothing",
}

// TestMeasuringTestsStayOutOfMakeTest keeps the rule make test and make
// test-heap rely on: a test that measures the heap or RSS lives in a
// *_heap_test.go file built only with the heaptest tag, its name says Heap
// or RSS (make test-heap runs -run 'Heap|RSS'), and no other test's name
// does.
// Benchmarks and fuzz targets are not run by make test and may measure.
func TestMeasuringTestsStayOutOfMakeTest(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not at %s: %v", root, err)
	}
	heapFiles := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "testdata" || n == "cdk.out") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		heapFile := strings.HasSuffix(rel, "_heap_test.go")
		if heapFile {
			heapFiles++
			if !taggedHeaptest(f) {
				t.Errorf("%s: a heap test file without //go:build heaptest", rel)
			}
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			test := fn.Recv == nil && strings.HasPrefix(name, "Test")
			if says := strings.Contains(name, "Heap") || strings.Contains(name, "RSS"); test && heapFile != says && notYetMoved[rel] == "" {
				if heapFile {
					t.Errorf("%s: %s says neither Heap nor RSS in its name: make test-heap runs -run 'Heap|RSS'", rel, name)
				} else {
					t.Errorf("%s: %s says Heap or RSS in its name but is not in a *_heap_test.go file", rel, name)
				}
			}
			if heapFile || notYetMoved[rel] != "" || fn.Recv == nil && (strings.HasPrefix(name, "Benchmark") || strings.HasPrefix(name, "Fuzz")) {
				continue
			}
			body := src[fset.Position(fn.Body.Pos()).Offset:fset.Position(fn.Body.End()).Offset]
			if m := measures.Find(body); m != nil {
				t.Errorf("%s: %s measures the heap (%s) in make test: move it to a *_heap_test.go file", rel, name, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if heapFiles < 20 {
		t.Errorf("%d *_heap_test.go files found under %s, want the 20 or more there are", heapFiles, root)
	}
}

// taggedHeaptest reports whether f is built only with the heaptest tag:
// its constraint holds with heaptest alone and fails without it, whatever
// other tags say.
func taggedHeaptest(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() >= f.Package {
			break
		}
		for _, c := range cg.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				return false
			}
			return !expr.Eval(func(tag string) bool { return tag != "heaptest" }) && expr.Eval(func(string) bool { return true })
		}
	}
	return false
}
