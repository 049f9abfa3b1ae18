package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/perfstitch/perfstitch/internal/buildinfo"
)

// NewCmdVersion builds the version command, which prints the same line as
// the root command's --version flag.
func NewCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date of perfstitch",
		Long: `Print the version of perfstitch, the git commit it was built from, the
commit or build date, and the Go toolchain and platform.

Release binaries carry the values injected at build time; a binary built
with "go install" reports the module version and the VCS stamp that the Go
toolchain recorded.`,
		Example: `  $ perfstitch version
  $ perfstitch --version`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(f.IO.Out, buildinfo.Get())
			return err
		},
	}
}

// addVersionFlag gives root a --version flag that prints the line of the
// version command.
func addVersionFlag(root *cobra.Command) {
	root.Version = buildinfo.Get().String()
	root.SetVersionTemplate("{{.Version}}\n")
}
