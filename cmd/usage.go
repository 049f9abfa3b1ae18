package cmd

import "strings"

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
