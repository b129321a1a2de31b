package hermesstate

import (
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/hermeshome"
)

// OwnProfile names the Hermes profile a state.db belongs to, which Hermes
// stamps on every session it creates (sessions.profile_name): "default" for
// the state.db at the Hermes root, the profile's name for
// <root>/profiles/<name>/state.db, "" (NULL) for a file anywhere else.
//
// home is the HERMES_HOME the file lives in and nativeHome the platform's
// default home (~/.hermes). The root is found as Hermes finds it: a home
// inside nativeHome has nativeHome as its root; any other home is its own
// root, or its grandparent when it is <root>/profiles/<name>.
func OwnProfile(home, nativeHome string) string {
	home = canonical(home)
	if home == "" {
		return ""
	}
	root := home
	native := canonical(nativeHome)
	if native != "" && (home == native || strings.HasPrefix(home, native+string(filepath.Separator))) {
		root = native
	} else {
		root = hermeshome.RootOf(home)
	}
	if home == root {
		return "default"
	}
	if filepath.Dir(home) == filepath.Join(root, "profiles") && hermeshome.ValidProfileName(filepath.Base(home)) {
		return filepath.Base(home)
	}
	return ""
}

func canonical(p string) string {
	if strings.TrimSpace(p) == "" {
		return ""
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}
