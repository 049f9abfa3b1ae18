package cmd

import (
	"errors"

	"github.com/spf13/cobra"
)

// ReportOptions are the options of perfstitch report.
type ReportOptions struct{}

// NewCmdReport builds the report command; runF replaces the run function in tests.
func NewCmdReport(f *Factory, runF func(*ReportOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:  "report",
		RunE: func(*cobra.Command, []string) error { return errors.New("report: not implemented yet") },
	}
}
