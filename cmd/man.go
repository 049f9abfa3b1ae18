package cmd

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/perfstitch/perfstitch/internal/mangen"
)

//go:generate go run .. gen-man ../docs/man

// newCmdGenMan builds the hidden gen-man command, which writes the man
// pages of the command tree into a directory (go generate ./cmd refreshes
// docs/man with it).
func newCmdGenMan(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:    "gen-man <dir>",
		Short:  "Write the man pages of perfstitch into a directory",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pages, err := mangen.Pages(NewCmdRoot(f), time.Now().UTC())
			if err != nil {
				return err
			}
			return mangen.Write(args[0], pages)
		},
	}
}
