package hermeshome

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"

	"github.com/hermes-go/hermes/internal/pystr"
	"github.com/hermes-go/hermes/internal/safefile"
)

// Profiles are the Python Hermes' separate homes under one root:
// <root>/profiles/<name> holds its own config.yaml, .env, memories,
// skills and state.db, while the kanban boards stay at the root. A
// program is pointed at one by `-p NAME` / `--profile NAME` anywhere on
// its command line, or by the root's active_profile file (`hermes profile
// use NAME` in the original). HERMES_PROFILE does not choose a profile in
// the original (its dispatcher sets it for workers as the name their
// comments are signed with), so it does not here either.

// ActiveProfileFile is the root's sticky profile choice.
const ActiveProfileFile = "active_profile"

// DefaultProfile names the root home itself.
const DefaultProfile = "default"

var (
	profileNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	// reservedProfiles cannot be created in the original.
	reservedProfiles = map[string]bool{"hermes": true, "test": true, "tmp": true, "root": true, "sudo": true}
)

// ProfileFlag is what -p/--profile said on a command line.
type ProfileFlag struct {
	Name string
	Set  bool
}

// TakeProfileFlag finds the first -p NAME, --profile NAME or
// --profile=NAME in args, before any "--", and returns args without it,
// as the Python Hermes scans its command line before parsing anything
// else. takesValue reports the flags whose next argument is their value
// (so `-m -p` is a model named "-p", not a profile flag).
func TakeProfileFlag(args []string, takesValue func(flag string) bool) (ProfileFlag, []string, error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return ProfileFlag{}, args, nil
		case a == "-p" || a == "--profile" || a == "-profile":
			if i+1 >= len(args) {
				return ProfileFlag{}, nil, fmt.Errorf("%s needs a profile name (e.g. %s work; %q means the main home)", a, a, DefaultProfile)
			}
			rest := append(append([]string(nil), args[:i]...), args[i+2:]...)
			return ProfileFlag{Name: args[i+1], Set: true}, rest, nil
		case strings.HasPrefix(a, "--profile=") || strings.HasPrefix(a, "-profile=") || strings.HasPrefix(a, "-p="):
			_, v, _ := strings.Cut(a, "=")
			rest := append(append([]string(nil), args[:i]...), args[i+1:]...)
			return ProfileFlag{Name: v, Set: true}, rest, nil
		case strings.HasPrefix(a, "-") && !strings.Contains(a, "=") && takesValue != nil && takesValue(a):
			i++ // its value, whatever it looks like
		}
	}
	return ProfileFlag{}, args, nil
}

// NormalizeProfileName is the original's normalize_profile_name: Python's
// strip(), "default" in any case, otherwise Python's lower() (full Unicode
// mapping). It does not validate: kanban assignees go through it without
// validation. The empty-name error is the original's, word for word.
func NormalizeProfileName(name string) (string, error) {
	s := pystr.Strip(name)
	if s == "" {
		return "", errors.New("profile name cannot be empty")
	}
	if strings.EqualFold(s, DefaultProfile) {
		return DefaultProfile, nil
	}
	return pystr.Lower(s), nil
}

// RootOf is the Hermes root a home belongs to: the root itself, or the
// root above a profile's home (<root>/profiles/<name>).
func RootOf(home string) string {
	if IsProfileHome(home) {
		return filepath.Dir(filepath.Dir(home))
	}
	return home
}

// ProfileExists is the original's profile_exists: "default" always
// exists; a named profile exists when its directory under root does and
// has not been deleted.
func ProfileExists(root, name string) bool {
	canon, err := NormalizeProfileName(name)
	if err != nil {
		return false
	}
	if canon == DefaultProfile {
		return true
	}
	if !profileNameRE.MatchString(canon) {
		return false
	}
	_, err = profileHome(root, canon)
	return err == nil
}

// ProfileNames is the original's list_profile_names: "default", then every
// profile directory by name (deleted ones included, as there).
func ProfileNames(root string) []string {
	names := []string{DefaultProfile}
	entries, err := os.ReadDir(filepath.Join(root, "profiles"))
	if err != nil {
		return names
	}
	var named []string
	for _, e := range entries {
		if e.Name() == DefaultProfile || !profileNameRE.MatchString(e.Name()) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(root, "profiles", e.Name())); err == nil && fi.IsDir() {
			named = append(named, e.Name())
		}
	}
	sort.Strings(named)
	return append(names, named...)
}

// CheckProfileName normalises name and checks it as the original's
// validate_profile_name does.
func CheckProfileName(name string) (string, error) {
	canon, err := NormalizeProfileName(name)
	if err != nil {
		return "", err
	}
	if canon == DefaultProfile {
		return canon, nil
	}
	if !profileNameRE.MatchString(canon) {
		return "", fmt.Errorf("%q is not a valid profile name: use lowercase letters, numbers, '-' or '_', starting with a letter or number, up to 64 characters", name)
	}
	if reservedProfiles[canon] {
		return "", fmt.Errorf("%q is a reserved name and cannot be a profile", canon)
	}
	return canon, nil
}

// Selection is the Hermes home a program runs in, and why.
type Selection struct {
	// Home holds config.yaml, .env, memories, skills and state.db.
	Home string
	// Root is the home the profiles live under (the kanban boards too).
	Root string
	// Profile is "default" when Home is the root, the profile's name when
	// it is <root>/profiles/<name>, and "custom" otherwise.
	Profile string
	// Source says what chose Home: "--profile", "--hermes-home",
	// "HERMES_HOME", "active_profile" or "default".
	Source string
	// Base is the home --hermes-home or HERMES_HOME named (absolute), ""
	// when neither did.
	Base string
	// Notes are warnings for the user (an active_profile file that could
	// not be read and was ignored).
	Notes []string
}

// Pin is how another program (a client starting hermes-tools-mcp, the
// agent's own hermes-tools) is pointed at the home a Selection chose, so
// that it resolves the same one: HERMES_HOME and --profile as they must be
// passed. A sticky choice is not pinned, so `hermes profile use` still
// applies to the other program.
type Pin struct {
	// Home is the HERMES_HOME to pass; "" passes none.
	Home string
	// Profile is the --profile to pass; "" passes none.
	Profile string
}

// Pin is what the user chose for this run: -p pins the profile (under the
// root of the home they named, if any); a home they named is pinned as
// named (a root still follows its active_profile there).
func (s Selection) Pin() Pin {
	if s.Source == "--profile" {
		p := Pin{Profile: s.Profile}
		if s.Base != "" {
			p.Home = RootOf(s.Base)
		}
		return p
	}
	return Pin{Home: s.Base}
}

// Args are the command-line arguments that carry the pin's profile.
func (p Pin) Args() []string {
	if p.Profile == "" {
		return nil
	}
	return []string{"--profile", p.Profile}
}

// ExactArgs are hermes-tools-mcp's arguments that serve exactly home,
// whatever the root's active_profile says: a profile's home is taken as
// it is, any other home as the "default" profile of itself.
func ExactArgs(home string) []string {
	if IsProfileHome(home) {
		return []string{"--hermes-home", home}
	}
	return []string{"--hermes-home", home, "--profile", DefaultProfile}
}

// Select resolves the home as the Python Hermes does before it reads
// anything: --hermes-home (ours) or HERMES_HOME give the base; -p picks a
// profile under its root; without -p, a HERMES_HOME that already is a
// profile's home stays, and otherwise the root's active_profile file
// picks one. A profile must exist (the original never creates one on the
// fly).
func Select(homeFlag string, p ProfileFlag, getenv func(string) string) (Selection, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	base, source := homeFlag, "--hermes-home"
	if base == "" {
		base, source = getenv(EnvVar), EnvVar
	}
	var root string
	if base != "" {
		abs, err := Resolve(base, getenv)
		if err != nil {
			return Selection{}, err
		}
		base, root = abs, RootOf(abs)
	} else {
		def, err := defaultRoot(getenv)
		if err != nil {
			return Selection{}, err
		}
		root, source = def, "default"
	}
	if p.Set {
		name, err := CheckProfileName(p.Name)
		if err != nil {
			return Selection{}, fmt.Errorf("--profile: %w", err)
		}
		home, err := profileHome(root, name)
		if err != nil {
			return Selection{}, err
		}
		return Selection{Home: home, Root: root, Profile: name, Source: "--profile", Base: base}, nil
	}
	if base != "" && IsProfileHome(base) {
		return Selection{Home: base, Root: root, Profile: filepath.Base(base), Source: source, Base: base}, nil
	}
	name, unread, err := activeProfile(root)
	if err != nil {
		return Selection{}, err
	}
	if name != "" {
		home, err := profileHome(root, name)
		if err != nil {
			return Selection{}, fmt.Errorf("%s names profile %q: %w (run `hermes profile use default` in the Python Hermes, or delete the file)", filepath.Join(root, ActiveProfileFile), name, err)
		}
		return Selection{Home: home, Root: root, Profile: name, Source: ActiveProfileFile, Base: base}, nil
	}
	home := root
	profile := DefaultProfile
	var notes []string
	if unread != nil {
		notes = append(notes, fmt.Sprintf("%v; ignored, as the Python Hermes ignores it", unread))
	}
	if base != "" {
		home = base
		if home != root {
			profile = "custom"
		}
	}
	return Selection{Home: home, Root: root, Profile: profile, Source: source, Base: base, Notes: notes}, nil
}

// defaultRoot is ~/.hermes (with HERMES_DATA_DIR_SUFFIX appended, as the
// original allows), or %LOCALAPPDATA%\hermes on Windows.
func defaultRoot(getenv func(string) string) (string, error) {
	suffix := getenv("HERMES_DATA_DIR_SUFFIX")
	if runtime.GOOS == "windows" {
		if local := getenv("LOCALAPPDATA"); local != "" {
			return filepath.Join(local, "hermes"+suffix), nil
		}
	}
	home, err := userHome(getenv)
	if err != nil {
		return "", fmt.Errorf("locate the Hermes home: %w (set %s)", err, EnvVar)
	}
	return filepath.Join(home, ".hermes"+suffix), nil
}

// IsProfileHome reports whether dir is <root>/profiles/<name>.
func IsProfileHome(dir string) bool { return filepath.Base(filepath.Dir(dir)) == "profiles" }

// profileHome is root's profile name, which must exist and must not have
// been deleted (the original leaves a marker in profiles/.deleted).
func profileHome(root, name string) (string, error) {
	if name == DefaultProfile {
		return root, nil
	}
	dir := filepath.Join(root, "profiles", name)
	fi, err := os.Stat(dir)
	if err == nil && fi.IsDir() {
		if _, err := os.Lstat(filepath.Join(root, "profiles", ".deleted", name)); errors.Is(err, fs.ErrNotExist) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("profile %q does not exist in %s (create it with the Python Hermes: `hermes profile create %s`, or pick another with -p)", name, filepath.Join(root, "profiles"), name)
}

// activeProfile reads the root's sticky choice; "" or "default" mean the
// root itself. The file is read without blocking, whatever it is; one
// that cannot be read (unread) is ignored, as the original ignores it,
// while a name it holds that is invalid or names no profile is an error.
func activeProfile(root string) (name string, unread, err error) {
	path := filepath.Join(root, ActiveProfileFile)
	data, rerr := safefile.ReadUserFile(path, 4096)
	if errors.Is(rerr, fs.ErrNotExist) {
		return "", nil, nil
	}
	if rerr != nil {
		return "", fmt.Errorf("the sticky profile: %w", rerr), nil
	}
	name = pystr.Strip(strings.TrimPrefix(string(data), "\ufeff"))
	if name == "" || name == DefaultProfile {
		return "", nil, nil
	}
	canon, err := CheckProfileName(name)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	if canon == DefaultProfile {
		return "", nil, nil
	}
	return canon, nil, nil
}

// ValidProfileName reports whether name is a named profile's directory
// name by the original's rule (not "default", which is the root itself).
func ValidProfileName(name string) bool {
	return profileNameRE.MatchString(name) && !reservedProfiles[name]
}

// FlagTakesValue reports, for a flag as written on a command line ("-m",
// "--model"), whether fs defines it with a value (not a boolean), for
// TakeProfileFlag.
func FlagTakesValue(fs *flag.FlagSet) func(string) bool {
	return func(arg string) bool {
		f := fs.Lookup(strings.TrimLeft(arg, "-"))
		if f == nil {
			return false
		}
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		return !ok || !b.IsBoolFlag()
	}
}
