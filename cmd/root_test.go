package cmd

import (
	"bytes"
	"context"
	"testing"
)

// TestSharedFlagsBeforeCommand: the flags script, report and stats share
// (--symfs, --kallsyms, -i, filters, ...) read the same before the command
// name as after it, the way a root's persistent flags would.
func TestSharedFlagsBeforeCommand(t *testing.T) {
	args := demoArgs(t) // --symfs S --kallsyms K DATA
	shared, data := args[:len(args)-1], args[len(args)-1]
	for _, command := range []string{"script", "report", "stats"} {
		t.Run(command, func(t *testing.T) {
			run := func(argv ...string) []byte {
				f, out, errOut := testFactory()
				if code := Run(context.Background(), f, argv); code != ExitOK {
					t.Fatalf("%q: exit %d: %s", argv, code, errOut)
				}
				return out.Bytes()
			}
			after := run(append(append([]string{command}, shared...), "--pid", "217", "-i", data)...)
			before := run(append(append(append([]string{}, shared...), "--pid", "217", "-i", data), command)...)
			if len(after) == 0 || !bytes.Equal(before, after) {
				t.Errorf("flags before %q print %d bytes, after it %d; want the same non-empty output", command, len(before), len(after))
			}
		})
	}
}
