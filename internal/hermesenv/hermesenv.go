// Package hermesenv is the environment a Hermes program runs with: the
// process environment with the Hermes home's .env loaded over it, as the
// Python Hermes loads it before it does anything else. That is where
// `hermes config set OPENROUTER_API_KEY …` and the setup wizard put keys,
// so a key there must reach our programs and the processes they start just
// as it reaches the original's.
//
// The rules are the original's (hermes_cli env_loader): only the current
// home's .env is read (a profile's own, never the root's beside it); the
// file wins over a variable already set in the process (it "overrides
// stale shell-exported values"); PYTHON_DOTENV_DISABLED turns loading
// off; and non-ASCII characters are dropped from variables named like
// credentials (*_API_KEY, *_TOKEN, *_SECRET, *_KEY), which are always
// ASCII and otherwise break HTTP headers; when the home has a .env, the
// six ACP/Copilot command variables it does not set are taken out of the
// environment. The syntax is python-dotenv's (internal/dotenv).
//
// Unlike the original, a .env that is not a regular file (a FIFO, a
// directory) or is over 1 MiB is not read, with a note: reading it could
// block the program or fill its memory. A variable no environment can
// hold (a name with "=" or NUL, a value with NUL) is skipped with a note,
// where the original stops with an exception.
package hermesenv

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/dotenv"
	"github.com/hermes-go/hermes/internal/safefile"
)

// FileName is the keys file in a Hermes home.
const FileName = ".env"

// MaxFileSize bounds what is read of a .env file.
const MaxFileSize = 1 << 20

// credentialSuffixes name the variables the original keeps ASCII-only.
var credentialSuffixes = []string{"_API_KEY", "_TOKEN", "_SECRET", "_KEY"}

// Env is a process environment with a Hermes home's .env applied. It is
// read-only after Load, apart from Set, and safe for concurrent reads.
type Env struct {
	vars  map[string]string
	order []string
	// fromFile are the keys whose value came from the .env file.
	fromFile map[string]bool
	// File is the .env path that was read; "" when there was none.
	File string
	// Notes are one-line warnings about the file (lines skipped, an
	// encoding guessed, a file refused), for stderr or doctor.
	Notes []string
}

// Load reads <home>/.env over environ (KEY=value strings, as os.Environ
// gives them). It never fails: a .env that cannot be used is a note, and
// the process environment is used as it is, so a broken keys file cannot
// stop a program that may not even need a key.
func Load(home string, environ []string) *Env {
	e := &Env{vars: map[string]string{}, fromFile: map[string]bool{}}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		e.set(k, v)
	}
	if home != "" && !disabled(e.vars["PYTHON_DOTENV_DISABLED"]) {
		e.loadFile(filepath.Join(home, FileName))
	}
	e.sanitizeCredentials()
	return e
}

func disabled(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "t", "yes", "y":
		return true
	}
	return false
}

func (e *Env) loadFile(path string) {
	data, err := safefile.ReadUserFile(path, MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		e.Notes = append(e.Notes, fmt.Sprintf("%s not loaded: %v", path, err))
		return
	}
	text, latin1, err := dotenv.Decode(data)
	if err != nil {
		e.Notes = append(e.Notes, fmt.Sprintf("%s not loaded: %v", path, err))
		return
	}
	e.File = path
	if latin1 {
		e.Notes = append(e.Notes, fmt.Sprintf("%s is not valid UTF-8; read as Latin-1 (save it as UTF-8)", path))
	}
	bindings, skipped := dotenv.Parse(text)
	for _, line := range skipped {
		e.Notes = append(e.Notes, fmt.Sprintf("%s:%d: not a KEY=value line, skipped (check its quotes)", path, line))
	}
	for _, v := range dotenv.Resolve(bindings, e.LookupEnv) {
		if !v.Set {
			continue
		}
		// An environment holds no such variable: a name with "=" would
		// come out as another variable in every child's environment, a
		// NUL makes the child refuse to start. Python refuses both too.
		if strings.ContainsAny(v.Key, "=\x00") || strings.ContainsRune(v.Value, 0) {
			e.Notes = append(e.Notes, fmt.Sprintf("%s: %q skipped: a variable's name cannot hold \"=\" or a NUL byte, nor its value a NUL byte", path, v.Key))
			continue
		}
		e.set(v.Key, v.Value)
		e.fromFile[v.Key] = true
	}
	e.clearManagedKeys()
}

// managedKeys are variables the original's profiles manage through their
// .env: once a home has a .env, such a variable it does not set is taken
// out of the environment (inherited from another profile's process, it
// would point this one at the wrong agent command).
var managedKeys = []string{"HERMES_ACP_AUTH_METHOD", "HERMES_ACP_AUTO_APPROVE", "HERMES_COPILOT_ACP_COMMAND",
	"HERMES_COPILOT_ACP_ARGS", "COPILOT_CLI_PATH", "COPILOT_ACP_BASE_URL"}

// clearManagedKeys is the original's _clear_known_keys_missing_from_dotenv.
func (e *Env) clearManagedKeys() {
	for _, k := range managedKeys {
		if _, ok := e.vars[k]; ok && !e.fromFile[k] {
			delete(e.vars, k)
			e.order = slices.DeleteFunc(e.order, func(o string) bool { return o == k })
		}
	}
}

func (e *Env) sanitizeCredentials() {
	for _, k := range e.order {
		if !slices.ContainsFunc(credentialSuffixes, func(s string) bool { return strings.HasSuffix(k, s) }) {
			continue
		}
		v := e.vars[k]
		clean := strings.Map(func(r rune) rune {
			if r > 0x7f {
				return -1
			}
			return r
		}, v)
		if clean != v {
			e.vars[k] = clean
			e.Notes = append(e.Notes, fmt.Sprintf("%s held non-ASCII characters (a pasted quote or space?); they were dropped, as the Python Hermes drops them", k))
		}
	}
}

func (e *Env) set(k, v string) {
	if _, ok := e.vars[k]; !ok {
		e.order = append(e.order, k)
	}
	e.vars[k] = v
}

// Getenv is os.Getenv over this environment.
func (e *Env) Getenv(k string) string { return e.vars[k] }

// LookupEnv is os.LookupEnv over this environment.
func (e *Env) LookupEnv(k string) (string, bool) {
	v, ok := e.vars[k]
	return v, ok
}

// Environ is os.Environ over this environment: what a child process gets.
func (e *Env) Environ() []string {
	out := make([]string, 0, len(e.order))
	for _, k := range e.order {
		out = append(out, k+"="+e.vars[k])
	}
	return out
}

// Set changes a variable for this program and its children (HERMES_HOME,
// once a profile is chosen, as the original exports it).
func (e *Env) Set(k, v string) {
	e.set(k, v)
	delete(e.fromFile, k)
}

// FromFile reports whether k's value came from the .env file.
func (e *Env) FromFile(k string) bool { return e.fromFile[k] }

// Source names where k's value came from, for doctor: the .env file's
// path, "environment", or "" when k is unset or empty. Never the value.
func (e *Env) Source(k string) string {
	switch {
	case e.vars[k] == "":
		return ""
	case e.fromFile[k]:
		return e.File
	}
	return "environment"
}
