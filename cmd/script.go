package cmd

import (
	"errors"

	"github.com/spf13/cobra"
)

// ScriptOptions are the options of perfstitch script.
type ScriptOptions struct{}

// NewCmdScript builds the script command; runF replaces the run function in tests.
func NewCmdScript(f *Factory, runF func(*ScriptOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:  "script",
		RunE: func(*cobra.Command, []string) error { return errors.New("script: not implemented yet") },
	}
}
