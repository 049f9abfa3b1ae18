// Package elfsafe opens ELF files with debug/elf and turns the panics that
// debug/elf can raise on malformed input into errors.
//
// debug/elf documents that it is not hardened against adversarial input;
// every call made through this package recovers and reports
// "reading ELF file panicked: ..." instead.
package elfsafe

import (
	"debug/elf"
	"fmt"
	"io"
	"os"
)

// File is an ELF file whose accessors recover from debug/elf panics.
type File struct {
	*elf.File
	closer io.Closer
	name   string
	size   int64 // file size, -1 if unknown
}

// Name returns the path the file was opened from ("" after [NewFile]).
func (f *File) Name() string { return f.name }

// Open opens the named ELF file.
func Open(name string) (f *File, err error) {
	r, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	f, err = NewFile(r)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if st, err := r.Stat(); err == nil {
		f.size = st.Size()
	}
	f.closer = r
	f.name = name
	return f, nil
}

// NewFile reads an ELF file from r; Close does not close r.
func NewFile(r io.ReaderAt) (f *File, err error) {
	defer recoverTo(&err)
	ef, err := elf.NewFile(r)
	if err != nil {
		return nil, err
	}
	f = &File{File: ef, size: -1}
	if s, ok := r.(interface{ Size() int64 }); ok {
		f.size = s.Size()
	}
	return f, nil
}

// NewNamedFile reads an ELF image from r, as NewFile does, and makes Name
// report name (an in-memory image has no path of its own).
func NewNamedFile(r io.ReaderAt, name string) (*File, error) {
	f, err := NewFile(r)
	if err != nil {
		return nil, err
	}
	f.name = name
	return f, nil
}

// check rejects a section whose contents would lie past the end of the
// file, before debug/elf allocates its claimed size.
func (f *File) check(s *elf.Section) error {
	if s == nil || s.Type == elf.SHT_NOBITS || f.size < 0 {
		return nil
	}
	if s.Offset > uint64(f.size) || s.FileSize > uint64(f.size)-s.Offset {
		return fmt.Errorf("section %s extends past the end of the file", s.Name)
	}
	return nil
}

// checkTable checks every section before a symbol table is read:
// debug/elf also reads the string, version and dynamic sections then.
func (f *File) checkTable() error {
	for _, s := range f.Sections {
		if err := f.check(s); err != nil {
			return err
		}
	}
	return nil
}

// Symbols returns the .symtab symbols (see [elf.File.Symbols]).
func (f *File) Symbols() (syms []elf.Symbol, err error) {
	defer recoverTo(&err)
	if err := f.checkTable(); err != nil {
		return nil, err
	}
	return f.File.Symbols()
}

// DynamicSymbols returns the .dynsym symbols (see
// [elf.File.DynamicSymbols]).
func (f *File) DynamicSymbols() (syms []elf.Symbol, err error) {
	defer recoverTo(&err)
	if err := f.checkTable(); err != nil {
		return nil, err
	}
	return f.File.DynamicSymbols()
}

// SectionData returns the contents of the named section, or nil and no
// error when there is no such section.
func (f *File) SectionData(name string) (data []byte, err error) {
	defer recoverTo(&err)
	s := f.Section(name)
	if s == nil || s.Type == elf.SHT_NOBITS {
		return nil, nil
	}
	if err := f.check(s); err != nil {
		return nil, err
	}
	return s.Data()
}

// Data returns the contents of section s.
func (f *File) Data(s *elf.Section) (data []byte, err error) {
	defer recoverTo(&err)
	if err := f.check(s); err != nil {
		return nil, err
	}
	return s.Data()
}

func recoverTo(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("reading ELF file panicked: %v", r)
	}
}
