package cmd

import (
	"errors"
	"strconv"

	"github.com/perfstitch/perfstitch/internal/table"
)

// tableWidth is the width a table printed on the terminal must fit:
// $COLUMNS when it is a number, else the terminal's width; 0 (no limit)
// for other formats and for output that is not a terminal, which stays
// what it always was.
func tableWidth(o *CommonOptions, format table.Format) int {
	if format != table.Text || !o.IO.OutIsTerminal {
		return 0
	}
	if o.Getenv != nil {
		if n, err := strconv.Atoi(o.Getenv("COLUMNS")); err == nil && n > 0 {
			return n
		}
	}
	return o.IO.TerminalWidth
}

// writePaged prints d in format: a table on a terminal goes through
// $PAGER (default less -FRSX, as perf pages), everything else straight
// to the output.
func writePaged(o *CommonOptions, format table.Format, d table.Document) error {
	if format != table.Text {
		return table.Write(o.IO.Out, format, d)
	}
	var command string
	if o.Getenv != nil {
		command = o.Getenv("PAGER")
	}
	pager := o.IO.StartPager(command)
	err := table.Write(o.IO.Out, format, d)
	if pager != nil {
		err = errors.Join(err, pager.Stop())
	}
	return err
}
