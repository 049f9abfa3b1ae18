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
	return &File{File: ef}, nil
}

// Close closes the underlying file if it was opened with [Open].
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// Symbols returns the .symtab symbols (see [elf.File.Symbols]).
func (f *File) Symbols() (syms []elf.Symbol, err error) {
	defer recoverTo(&err)
	return f.File.Symbols()
}

// DynamicSymbols returns the .dynsym symbols (see
// [elf.File.DynamicSymbols]).
func (f *File) DynamicSymbols() (syms []elf.Symbol, err error) {
	defer recoverTo(&err)
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
	return s.Data()
}

// Data returns the contents of section s.
func (f *File) Data(s *elf.Section) (data []byte, err error) {
	defer recoverTo(&err)
	return s.Data()
}

func recoverTo(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("reading ELF file panicked: %v", r)
	}
}
