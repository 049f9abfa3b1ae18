//go:build ignore

// mkseed writes a FuzzCFI seed: go run mkseed.go OUT EH SECTION [FROM TO]
// takes the bytes [FROM, TO) of the raw section file SECTION (all of it
// without FROM and TO), followed by a zero terminator when cut, and
// writes them with EH (true: .eh_frame, false: .debug_frame) to OUT in
// the Go fuzzing corpus format.
package main

import (
	"fmt"
	"os"
	"strconv"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "mkseed:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 3 && len(args) != 5 {
		return fmt.Errorf("usage: mkseed OUT EH SECTION [FROM TO]")
	}
	eh, err := strconv.ParseBool(args[1])
	if err != nil {
		return err
	}
	b, err := os.ReadFile(args[2])
	if err != nil {
		return err
	}
	if len(args) == 5 {
		from, err := strconv.ParseUint(args[3], 0, 32)
		if err != nil {
			return err
		}
		to, err := strconv.ParseUint(args[4], 0, 32)
		if err != nil {
			return err
		}
		if from > to || to > uint64(len(b)) {
			return fmt.Errorf("range %#x-%#x outside the %d bytes of %s", from, to, len(b), args[2])
		}
		b = append(b[from:to:to], 0, 0, 0, 0)
	}
	out := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nbool(%v)\n", b, eh)
	return os.WriteFile(args[0], []byte(out), 0o644)
}
