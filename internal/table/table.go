// Package table holds what the perfstitch report and stats tables share:
// a tablewriter table set up the one way both print, and the percentage
// their cells show.
package table

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// New returns a tablewriter table with the given headers; columns whose
// index is in right are right-aligned (numbers). Cells never wrap: symbol
// names are long and must stay greppable.
func New(w io.Writer, headers []string, right ...int) *tablewriter.Table {
	aligns := make([]tw.Align, len(headers))
	for i := range aligns {
		aligns[i] = tw.AlignLeft
	}
	for _, i := range right {
		aligns[i] = tw.AlignRight
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	)
	cells := make([]any, len(headers))
	for i, h := range headers {
		cells[i] = h
	}
	t.Header(cells...)
	return t
}

// Percent returns v as a percentage of total, 0 when total is 0.
func Percent(v, total uint64) float64 {
	if total == 0 {
		return 0
	}
	return 100.0 * float64(v) / float64(total)
}

// WriteJSON prints v as one indented JSON document; what names the
// document in errors ("report", "stats").
func WriteJSON(w io.Writer, v any, what string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("%s json: %w", what, err)
	}
	return nil
}
