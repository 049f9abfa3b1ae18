// Package mangen renders man pages for a Cobra command tree and keeps a
// directory of them in step with the tree. The pages are what
// github.com/spf13/cobra/doc makes, made reproducible: no "auto generated"
// footer, and a page whose text did not change keeps its old date.
package mangen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
)

// Ext is the file name extension of the pages (section 1, user commands).
const Ext = ".1"

// Pages renders one page for root and for every available (not hidden, not
// deprecated, not help) command below it, keyed by file name
// ("perfstitch-script.1"). date is printed in each page's header.
//
// Pages first adds what Cobra otherwise adds only when it executes a
// command (the completion command and the help and version flags), so the
// pages describe the command line a user actually gets. It sets
// DisableAutoGenTag on every command of the tree.
func Pages(root *cobra.Command, date time.Time) (map[string][]byte, error) {
	root.InitDefaultCompletionCmd()
	pages := make(map[string][]byte)
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		c.DisableAutoGenTag = true
		// cobra/doc renders through Markdown, where "<dir>" would be taken
		// for an HTML tag and vanish.
		c.Use = escapeAngles(c.Use)
		c.Short = escapeAngles(c.Short)
		c.Long = escapeAngles(c.Long)
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { f.Usage = escapeAngles(f.Usage) })
		c.InitDefaultHelpFlag()
		c.InitDefaultVersionFlag()
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
				continue
			}
			if err := walk(sub); err != nil {
				return err
			}
		}
		var buf bytes.Buffer
		header := &doc.GenManHeader{
			Section: "1",
			Date:    &date,
			Source:  root.Name(),
			Manual:  root.Name() + " manual",
		}
		if err := doc.GenMan(c, header, &buf); err != nil {
			return fmt.Errorf("man page of %q: %w", c.CommandPath(), err)
		}
		pages[strings.ReplaceAll(c.CommandPath(), " ", "-")+Ext] = buf.Bytes()
		return nil
	}
	if err := walk(root); err != nil {
		return nil, err
	}
	return pages, nil
}

// Diff compares pages with the pages in dir and returns, sorted, the names
// of pages that are missing from dir, differ from it (other than in the
// date), or are in dir but not in pages. An absent dir holds no pages.
func Diff(dir string, pages map[string][]byte) ([]string, error) {
	have, err := read(dir)
	if err != nil {
		return nil, err
	}
	var stale []string
	for name, want := range pages {
		if got, ok := have[name]; !ok || !SameText(got, want) {
			stale = append(stale, name)
		}
	}
	for name := range have {
		if _, ok := pages[name]; !ok {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)
	return stale, nil
}

// Write makes dir hold exactly pages: it writes new and changed pages,
// leaves pages that differ only in their date untouched, and removes
// pages (files ending in [Ext]) that pages does not have.
func Write(dir string, pages map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	have, err := read(dir)
	if err != nil {
		return err
	}
	for name, want := range pages {
		if got, ok := have[name]; ok && SameText(got, want) {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), want, 0o644); err != nil {
			return fmt.Errorf("man pages: %w", err)
		}
	}
	for name := range have {
		if _, ok := pages[name]; !ok {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return fmt.Errorf("man pages: %w", err)
			}
		}
	}
	return nil
}

// read returns the pages in dir by file name.
func read(dir string) (map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return map[string][]byte{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("man pages: %w", err)
	}
	pages := make(map[string][]byte)
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), Ext) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("man pages: %w", err)
		}
		pages[e.Name()] = b
	}
	return pages, nil
}

// tagLike matches what Markdown would take for an HTML tag: "<dir>".
var tagLike = regexp.MustCompile(`<([A-Za-z][A-Za-z0-9_.-]*)>`)

// escapeAngles escapes tag-like words such as "<dir>" for Markdown, which
// would otherwise drop them.
func escapeAngles(s string) string {
	return tagLike.ReplaceAllString(s, `\<$1\>`)
}

// thLine matches the title line of a page, `.TH "TITLE" "1" "Nov 2026" ...`,
// capturing what comes before and after the date.
var thLine = regexp.MustCompile(`(?m)^(\.TH "[^"]*" "[^"]*" )"[^"]*"`)

// SameText reports whether pages a and b are equal apart from the date in
// their .TH title lines.
func SameText(a, b []byte) bool {
	return bytes.Equal(thLine.ReplaceAll(a, []byte(`$1""`)), thLine.ReplaceAll(b, []byte(`$1""`)))
}
