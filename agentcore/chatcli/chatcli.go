// Package chatcli is what the hermes command does once its flags are read:
// the terminal chat (one question, or a conversation with slash commands,
// or a task the Python Hermes' kanban dispatcher started this hermes as a
// worker for) and the sessions, tools and codex-runtime commands.
// cmd/hermes parses the flags into each command's options and maps the
// returned error to an exit status.
//
// A command writes its output to IO as it goes (a chat streams the answer
// to Out and progress, notices and failures to Err), so what it returns
// on failure is an *ExitError: the failure was already reported, and the
// error carries the exit status it calls for.
package chatcli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/internal/hermesenv"
	"github.com/hermes-go/hermes/internal/hermeshome"
)

// Exit statuses a command returns (in an *ExitError) besides success.
const (
	// ExitFailure: the turn or the command failed.
	ExitFailure = 1
	// ExitUsage: bad input, or a conversation that cannot start.
	ExitUsage = 2
	// ExitWorkerTransient and ExitWorkerTerminal are a kanban worker's
	// failed turn as the Python Hermes' dispatcher reads them: a transient
	// provider failure requeues the task without counting a failure; a
	// terminal one blocks it at once.
	ExitWorkerTransient = 75
	ExitWorkerTerminal  = 78
)

// ExitError is a failure the command has reported on IO.Err already.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// exit is the error for an exit status, nil for 0.
func exit(code int) error {
	if code == 0 {
		return nil
	}
	return &ExitError{Code: code}
}

// IO is a command's terminal.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
}

// System is the part of the outside world a test replaces; a nil field is
// the real one.
type System struct {
	Getenv  func(string) string
	Environ func() []string
	// IsTTY reports whether r is a terminal a person answers prompts on.
	IsTTY func(r io.Reader) bool
	// Interrupts delivers Ctrl+C; nil never fires.
	Interrupts <-chan os.Signal
}

func (s System) withDefaults() System {
	if s.Getenv == nil {
		s.Getenv = os.Getenv
	}
	if s.Environ == nil {
		s.Environ = os.Environ
	}
	if s.IsTTY == nil {
		s.IsTTY = isTerminal
	}
	return s
}

// Home is the Hermes home a command runs in: --hermes-home (or
// $HERMES_HOME) and -p/--profile.
type Home struct {
	Dir     string
	Profile hermeshome.ProfileFlag
}

// useHome resolves the Hermes home as the Python Hermes does (--hermes-home
// or HERMES_HOME, -p, the sticky active_profile) and loads the home's
// .env over the environment: from then on sys reads that environment and
// hands it to everything it starts, HERMES_HOME included, as the original
// exports it. Problems with the .env are warnings on stderr. pin is how
// other programs are pointed at the home chosen.
func (sys *System) useHome(h Home, stderr io.Writer) (home string, pin hermeshome.Pin, err error) {
	sel, err := hermeshome.Select(h.Dir, h.Profile, sys.Getenv)
	if err != nil {
		return "", pin, err
	}
	env := hermesenv.Load(sel.Home, sys.Environ())
	env.Set(hermeshome.EnvVar, sel.Home)
	for _, n := range append(sel.Notes, env.Notes...) {
		fmt.Fprintf(stderr, "hermes: warning: %s\n", n)
	}
	// A misspelt key (modle:, mcp_server:) is otherwise ignored without a
	// word, and the error that follows ("no model configured") misleads.
	if chk, err := hermeshome.CheckConfig(sel.Home); err == nil {
		for _, w := range chk.Warnings {
			fmt.Fprintf(stderr, "hermes: warning: %s: %s\n", filepath.Join(sel.Home, hermeshome.ConfigFile), w)
		}
	}
	sys.Getenv, sys.Environ = env.Getenv, env.Environ
	return sel.Home, sel.Pin(), nil
}

// isTerminal is a portable stand-in for isatty: a character device on stdin
// is a terminal for our purposes (pipes and files are not).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
