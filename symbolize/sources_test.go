package symbolize

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadFileReason: a DSO whose file exists but is not ELF (here: text,
// and a truncated ELF header) is BadFile, one without a file NotFound.
func TestBadFileReason(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "text.so"), []byte("not an ELF file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cut.so"), []byte("\x7fELF\x02\x01\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want Reason
	}{{"/text.so", BadFile}, {"/cut.so", BadFile}, {"/missing.so", NotFound}} {
		s, err := New(Options{Symfs: dir})
		if err != nil {
			t.Fatal(err)
		}
		d := newDSO(c.name, dsoUser)
		s.loadUser(d)
		if d.reason != c.want {
			t.Errorf("%s: reason %v, want %v", c.name, d.reason, c.want)
		}
	}
}

// TestMapsBadLines: a malformed line of a maps snapshot is skipped, named
// and counted; the other entries are used.
func TestMapsBadLines(t *testing.T) {
	in := "00400000-00401000 r-xp 00000000 08:01 12 /bin/a\n" +
		"garbage\n" +
		"00500000-00501000 r-xp 00000000 08:01 13 /bin/b\n" +
		"00600000-00500000 r-xp 00000000 08:01 13 /bin/c\n"
	es, err := ParseMaps("m", strings.NewReader(in))
	if len(es) != 2 || es[1].Path != "/bin/b" {
		t.Errorf("entries %+v, want /bin/a and /bin/b", es)
	}
	var me *MapsError
	if !errors.As(err, &me) || me.Line != 2 || me.Skipped != 2 || !strings.HasSuffix(err.Error(), "(2 bad lines skipped)") {
		t.Errorf("error %v, want line 2 with 2 skipped", err)
	}
}

// TestSourceFiles: FIFOs and directories are refused, /dev/null is an
// empty source, /dev/zero is cut at the size limit.
func TestSourceFiles(t *testing.T) {
	dir := t.TempDir()
	if err := CheckSourceFile(dir); !errors.Is(err, ErrNotRegular) {
		t.Errorf("directory: %v", err)
	}
	if err := CheckSourceFile(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if err := CheckSourceFile(os.DevNull); err != nil {
		t.Errorf("%s: %v", os.DevNull, err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := loadKallsyms("/dev/zero"); !errors.Is(err, errTooLarge) {
			t.Errorf("/dev/zero: %v, want %v", err, errTooLarge)
		}
		// One endless line: the scanner's line limit ends it.
		if _, err := ReadMapsFile("/dev/zero"); err == nil {
			t.Error("/dev/zero as maps: no error")
		}
	}
}
