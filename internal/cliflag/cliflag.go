// Package cliflag parses a command's flags the way a person at a terminal
// needs it: a mistake is one line that names the flag and the nearest
// real one, not the whole usage with the error printed twice; -h still
// prints the usage.
package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hermes-go/hermes/internal/didyoumean"
)

// Parse parses args into fs. On a mistake it returns an error naming the
// flag, with a did-you-mean among fs's flags and the way to the full list,
// and prints nothing; on -h or --help it prints fs's usage to its output and
// returns flag.ErrHelp.
func Parse(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		if fs.Usage != nil {
			fs.Usage()
		} else {
			fs.PrintDefaults()
		}
		return err
	}
	return Explain(fs, err)
}

// Explain rewrites an error of fs.Parse into one line with the fix.
func Explain(fs *flag.FlagSet, err error) error {
	help := fmt.Sprintf("run %s -h for the flags", fs.Name())
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		if hint := didyoumean.Hint(name, Names(fs)); hint != "" {
			return fmt.Errorf("unknown flag --%s: %s (%s)", name, flagQuote(hint), help)
		}
		return fmt.Errorf("unknown flag --%s (%s)", name, help)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return fmt.Errorf("flag --%s needs a value, e.g. --%s=VALUE (%s)", strings.TrimLeft(name, "-"), strings.TrimLeft(name, "-"), help)
	}
	return fmt.Errorf("%w (%s)", err, help)
}

// Names are fs's flag names.
func Names(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// flagQuote puts -- before every quoted name in hint.
func flagQuote(hint string) string {
	var b strings.Builder
	open := false
	for _, r := range hint {
		b.WriteRune(r)
		if r == '"' {
			open = !open
			if open {
				b.WriteString("--")
			}
		}
	}
	return b.String()
}
