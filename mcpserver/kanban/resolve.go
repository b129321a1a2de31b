package kanban

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/hermeshome"
)

// DefaultBoard is the board whose database sits at <root>/kanban.db.
const DefaultBoard = "default"

// boardSlugRE is Hermes' rule for board slugs: they are directory names.
var boardSlugRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9\-_]{0,63}$`) })

// BoardRef says which database a call uses and why.
type BoardRef struct {
	// Slug is the board's name; empty when the path was pinned by
	// HERMES_KANBAN_DB.
	Slug string
	// Path is the kanban.db file.
	Path string
	// Pinned is true when HERMES_KANBAN_DB named the file explicitly.
	Pinned bool
}

// mayCreate says whether a missing database may be created: the default
// board always exists in Hermes' eyes, and an explicitly pinned file is the
// user's choice. A missing named board is more likely a typo.
func (r BoardRef) mayCreate() bool { return r.Pinned || r.Slug == DefaultBoard }

// Root is the shared kanban root: HERMES_KANBAN_HOME, else the Hermes root
// above any profile. Boards are shared by all profiles, so a profile home
// (<root>/profiles/<name>) resolves to the root it belongs to.
func Root(home string, getenv func(string) string) (string, error) {
	if v := strings.TrimSpace(getenv(envHome)); v != "" {
		p, err := hermeshome.ExpandPath(v, getenv)
		if err != nil {
			return "", fmt.Errorf("HERMES_KANBAN_HOME: %w", err)
		}
		return filepath.Abs(p)
	}
	if filepath.Base(filepath.Dir(home)) == "profiles" {
		return filepath.Dir(filepath.Dir(home)), nil
	}
	return home, nil
}

// ResolveBoard picks the database for a call: the board argument, else
// HERMES_KANBAN_DB, else HERMES_KANBAN_BOARD, else the slug in
// <root>/kanban/current, else the default board.
func ResolveBoard(home, board string, getenv func(string) string) (BoardRef, error) {
	root, err := Root(home, getenv)
	if err != nil {
		return BoardRef{}, err
	}
	if strings.TrimSpace(board) != "" {
		return slugRef(root, board)
	}
	if v := strings.TrimSpace(getenv(envDB)); v != "" {
		p, err := hermeshome.ExpandPath(v, getenv)
		if err != nil {
			return BoardRef{}, fmt.Errorf("HERMES_KANBAN_DB: %w", err)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return BoardRef{}, fmt.Errorf("HERMES_KANBAN_DB %q: %w", v, err)
		}
		return BoardRef{Path: abs, Pinned: true}, nil
	}
	if v := strings.TrimSpace(getenv(envBoard)); v != "" {
		ref, err := slugRef(root, v)
		if err != nil {
			return ref, fmt.Errorf("HERMES_KANBAN_BOARD: %w", err)
		}
		return ref, nil
	}
	current := filepath.Join(root, "kanban", "current")
	slug, err := readFirstLine(current)
	switch {
	case errors.Is(err, fs.ErrNotExist) || (err == nil && slug == ""):
		return slugRef(root, DefaultBoard)
	case err != nil:
		return BoardRef{}, fmt.Errorf("read the current board from %s: %w", current, err)
	}
	ref, err := slugRef(root, slug)
	if err != nil {
		return ref, fmt.Errorf("%s: %w (fix the file or run `hermes kanban boards switch default`)", current, err)
	}
	return ref, nil
}

func slugRef(root, raw string) (BoardRef, error) {
	slug := strings.ToLower(strings.TrimSpace(raw))
	if !boardSlugRE().MatchString(slug) {
		return BoardRef{}, inputErrorf("invalid board slug '%s': must be 1-64 chars, lowercase alphanumerics / hyphens / underscores, not starting with '-' or '_'", raw)
	}
	if slug == DefaultBoard {
		return BoardRef{Slug: slug, Path: filepath.Join(root, "kanban.db")}, nil
	}
	return BoardRef{Slug: slug, Path: filepath.Join(root, "kanban", "boards", slug, "kanban.db")}, nil
}

func readFirstLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if sc.Scan() {
		return strings.TrimSpace(sc.Text()), nil
	}
	return "", sc.Err()
}
