package memory

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/safefile"
)

// snapshotReadLimit bounds what a memory file may hold to be read for a
// snapshot at all: far above any character limit, far below anything that
// would cost memory. A file over it was not written by a memory tool.
const snapshotReadLimit = 256 << 10

// Snapshot is the saved memory as a new session sees it: the MEMORY and
// USER PROFILE blocks Hermes puts in its system prompt, with the same
// framing, read once when the session starts. A session's own writes do
// not change its snapshot (the model has the tool's answer for those);
// the next session sees them.
//
// Each block holds at most its configured character limit: entries past
// it (a file edited by hand) are left out and counted. Stores switched off
// in config.yaml, empty stores and missing files give no block; a file
// that is not a regular file inside the memories directory is an error,
// and the other block is still returned.
func Snapshot(home, configPath string) (string, error) {
	if configPath == "" {
		configPath = filepath.Join(home, hermeshome.ConfigFile)
	}
	k := &kit{opts: Options{Home: home, ConfigPath: configPath}}
	set, err := k.settings()
	if err != nil {
		return "", err
	}
	st := k.store(set)
	// The memories directory may itself be a link (a synced folder); the
	// files must be inside wherever it leads.
	dir, err := filepath.EvalSymlinks(st.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("memory snapshot: %w", err)
	}
	var blocks []string
	var errs []error
	for _, b := range []struct {
		target, title string
		on            bool
	}{
		{TargetMemory, "MEMORY (your personal notes)", enabled(set.Memory.MemoryEnabled)},
		{TargetUser, "USER PROFILE (who the user is)", enabled(set.Memory.UserProfileEnabled)},
	} {
		if !b.on {
			continue
		}
		data, err := safefile.ReadFile(dir, filepath.Join(dir, filepath.Base(st.Path(b.target))), snapshotReadLimit)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("memory snapshot of %s: %w", st.Path(b.target), err))
			continue
		}
		// Read as the original loads it: a BOM and CR line ends are
		// taken in stride, a drifted file shows what parses, and text
		// that is not UTF-8 counts as an empty store.
		text, ok := decode(data)
		if !ok {
			errs = append(errs, fmt.Errorf("memory snapshot of %s: not valid UTF-8 text; left out", st.Path(b.target)))
			continue
		}
		if block := st.block(b.target, b.title, dedupe(split(text))); block != "" {
			blocks = append(blocks, block)
		}
	}
	return strings.Join(blocks, "\n\n"), errors.Join(errs...)
}

// snapshotRule frames a block, as Hermes does.
var snapshotRule = strings.Repeat("═", 46)

// block renders one store's entries, as many as fit its limit.
func (s *Store) block(target, title string, entries []string) string {
	limit := s.limit(target)
	shown := entries
	for len(shown) > 0 && chars(shown) > limit {
		shown = shown[:len(shown)-1]
	}
	if len(shown) == 0 && len(entries) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s [%s]\n%s\n", snapshotRule, title, s.Usage(target, shown), snapshotRule)
	b.WriteString(strings.Join(shown, Delimiter))
	if left := len(entries) - len(shown); left > 0 {
		if len(shown) > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[%d more %s not shown: the store is over its %s-character limit]", left, plural(left, "entry", "entries"), commas(limit))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
