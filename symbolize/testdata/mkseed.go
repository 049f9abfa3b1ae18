//go:build ignore

// mkseed writes a FuzzELFSymbols seed: go run mkseed.go OUT FILE [LEN]
// writes the first LEN bytes of FILE (all of it without LEN) to OUT in
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
	if len(args) != 2 && len(args) != 3 {
		return fmt.Errorf("usage: mkseed OUT FILE [LEN]")
	}
	b, err := os.ReadFile(args[1])
	if err != nil {
		return err
	}
	if len(args) == 3 {
		n, err := strconv.ParseUint(args[2], 0, 32)
		if err != nil {
			return err
		}
		if n > uint64(len(b)) {
			return fmt.Errorf("%s has %d bytes, not %d", args[1], len(b), n)
		}
		b = b[:n]
	}
	return os.WriteFile(args[0], fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b), 0o644)
}
