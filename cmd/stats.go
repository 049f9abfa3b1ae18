package cmd

import (
	"errors"

	"github.com/spf13/cobra"
)

// StatsOptions are the options of perfstitch stats.
type StatsOptions struct{}

// NewCmdStats builds the stats command; runF replaces the run function in tests.
func NewCmdStats(f *Factory, runF func(*StatsOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:  "stats",
		RunE: func(*cobra.Command, []string) error { return errors.New("stats: not implemented yet") },
	}
}
