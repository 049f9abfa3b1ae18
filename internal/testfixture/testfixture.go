// Package testfixture finds the test inputs shared by every package's
// tests: the module's testdata/ folder and the corpus and external
// recordings in ../shared next to the checkout.
package testfixture

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ModuleRoot returns the directory holding go.mod, searching upward from
// the working directory.
func ModuleRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// Testdata returns the path of name inside the module's testdata/ folder.
func Testdata(tb testing.TB, name ...string) string {
	tb.Helper()
	return filepath.Join(append([]string{ModuleRoot(tb), "testdata"}, name...)...)
}

// SharedDir returns ../shared next to the module root (the corpus, external
// recordings and docs), skipping the test when it is absent.
func SharedDir(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(ModuleRoot(tb), "..", "shared")
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("shared folder %s absent: %v", dir, err)
	}
	return dir
}

// CorpusCase is one recording of ../shared/corpus.
type CorpusCase struct {
	Name     string // folder name, e.g. "c-nopie"
	Dir      string // absolute folder path
	Data     string // Dir/perf.data
	Symfs    string // Dir/symfs
	Maps     string // Dir/maps
	Kallsyms string // ../shared/corpus/kallsyms
}

// Golden returns the path of a golden file of the case (e.g. "script.txt").
func (c CorpusCase) Golden(name string) string { return filepath.Join(c.Dir, name) }

// Corpus returns every case of ../shared/corpus, skipping the test when the
// corpus is absent.
func Corpus(tb testing.TB) []CorpusCase {
	tb.Helper()
	root := filepath.Join(SharedDir(tb), "corpus")
	ents, err := os.ReadDir(root)
	if err != nil {
		tb.Skipf("corpus absent: %v", err)
	}
	var cases []CorpusCase
	for _, e := range ents {
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "perf.data")); err != nil {
			continue
		}
		cases = append(cases, CorpusCase{
			Name: e.Name(), Dir: dir,
			Data:     filepath.Join(dir, "perf.data"),
			Symfs:    filepath.Join(dir, "symfs"),
			Maps:     filepath.Join(dir, "maps"),
			Kallsyms: filepath.Join(root, "kallsyms"),
		})
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	if len(cases) == 0 {
		tb.Skip("corpus has no cases")
	}
	return cases
}

// CorpusCaseNamed returns the corpus case called name, skipping the test
// when it (or the corpus) is absent.
func CorpusCaseNamed(tb testing.TB, name string) *CorpusCase {
	tb.Helper()
	for _, c := range Corpus(tb) {
		if c.Name == name {
			return &c
		}
	}
	tb.Skipf("corpus case %s absent", name)
	return nil
}

// External returns the paths of every regular file below
// ../shared/external whose name does not look like a golden or a document
// (the perf.data inputs), skipping the test when the folder is absent.
func External(tb testing.TB) []string {
	tb.Helper()
	root := filepath.Join(SharedDir(tb), "external")
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		files = append(files, p)
		return nil
	})
	sort.Strings(files)
	return files
}

// JSONSchema compiles docs/json.schema.json, the schema of script's
// --format json lines.
func JSONSchema(tb testing.TB) *jsonschema.Schema {
	tb.Helper()
	f, err := os.Open(filepath.Join(ModuleRoot(tb), "docs", "json.schema.json"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		tb.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("json.schema.json", doc); err != nil {
		tb.Fatal(err)
	}
	sch, err := c.Compile("json.schema.json")
	if err != nil {
		tb.Fatal(err)
	}
	return sch
}
