package cmd

import (
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// expandPrefixes rewrites every long option of args that is a unique
// prefix of one of the command's long options to that option's full
// name, as perf's option parser accepts them ("--comm" for "--comms",
// "--show-task" for "--show-task-events"). An exact name always wins; a
// prefix of more than one name is a usage error listing the candidates.
// Arguments after "--" and option values are left alone. The command is
// the one args name (root.Find), so its local and inherited flags decide.
func expandPrefixes(root *cobra.Command, args []string) ([]string, error) {
	c, _, err := root.Find(args)
	if err != nil || c == nil {
		return args, nil // cobra reports the unknown command itself
	}
	fs := pflag.NewFlagSet(c.Name(), pflag.ContinueOnError)
	fs.AddFlagSet(c.LocalFlags())
	fs.AddFlagSet(c.InheritedFlags())
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	sort.Strings(names)

	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		switch {
		case a == "--":
			return append(out, args[i+1:]...), nil
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			full, err := resolvePrefix(names, name)
			if err != nil {
				return nil, err
			}
			if full != name {
				a = "--" + full
				if hasValue {
					a += "=" + value
				}
				out[len(out)-1] = a
			}
			if f := fs.Lookup(full); f != nil && !hasValue && f.NoOptDefVal == "" && i+1 < len(args) {
				i++ // the option's value, whatever it looks like
				out = append(out, args[i])
			}
		case len(a) > 1 && a[0] == '-':
			// A group of shorthands: the first one that takes a value
			// takes the rest of the group, or the next argument.
			for j := 1; j < len(a); j++ {
				f := fs.ShorthandLookup(a[j : j+1])
				if f == nil || f.NoOptDefVal != "" {
					continue
				}
				if j == len(a)-1 && i+1 < len(args) {
					i++
					out = append(out, args[i])
				}
				break
			}
		}
	}
	return out, nil
}

// resolvePrefix returns the long option name that name abbreviates:
// name itself when it is one (or when nothing starts with it, for pflag
// to report), else the only name it is a prefix of. "no-" forms are
// matched as written: perfstitch declares its negative options by name.
func resolvePrefix(names []string, name string) (string, error) {
	if name == "" {
		return name, nil
	}
	var cands []string
	for _, n := range names {
		if n == name {
			return name, nil
		}
		if strings.HasPrefix(n, name) {
			cands = append(cands, n)
		}
	}
	switch len(cands) {
	case 0:
		return name, nil
	case 1:
		return cands[0], nil
	}
	return "", FlagErrorf("ambiguous option --%s: could be --%s", name, strings.Join(cands, ", --"))
}
