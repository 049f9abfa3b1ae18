package cmd

import (
	"strings"

	"github.com/spf13/cobra"
)

// isCobraUsageError recognises the argument errors cobra returns without a
// type of their own.
func isCobraUsageError(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires at most", "invalid argument"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// addCompletionCmd adds cobra's completion command now rather than when
// the root runs, and makes it runnable, so that a missing shell is a usage
// error (exit 2) instead of a help page and exit 0. An unknown shell such
// as tcsh already fails its NoArgs check with "unknown command".
func addCompletionCmd(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.RunE = func(c *cobra.Command, _ []string) error {
				var shells []string
				for _, sub := range c.Commands() {
					shells = append(shells, sub.Name())
				}
				return FlagErrorf("completion needs a shell: one of %s", strings.Join(shells, ", "))
			}
		}
	}
}
