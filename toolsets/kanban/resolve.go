package kanban

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/pystr"
	"github.com/hermes-go/hermes/internal/safefile"
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
	return hermeshome.RootOf(home), nil
}

// ResolveBoard picks the database for a call: the board argument, else
// HERMES_KANBAN_DB, else the current board (currentBoard:
// HERMES_KANBAN_BOARD, then <root>/kanban/current, each only when it names
// an existing board, then the default board).
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
	return slugRef(root, currentBoard(root, getenv))
}

// currentBoard is Hermes' get_current_board: HERMES_KANBAN_BOARD, else the
// slug in <root>/kanban/current, whichever first names a board that exists
// and is not archived, else the default board. A
// malformed or stale name falls through, as in Hermes, so that the board
// a row is written to and the directory its attachments go to are always
// chosen alike.
func currentBoard(root string, getenv func(string) string) string {
	if slug, ok := normalizeSlug(getenv(envBoard)); ok && boardExists(root, slug) && !boardArchived(root, slug) {
		return slug
	}
	// Read without blocking and bounded: a FIFO or a device planted there
	// must not stall every kanban call.
	if data, err := safefile.ReadUserFile(filepath.Join(root, "kanban", "current"), 4096); err == nil {
		line, _, _ := strings.Cut(strings.TrimPrefix(string(data), "\ufeff"), "\n")
		if slug, ok := normalizeSlug(line); ok && boardExists(root, slug) && !boardArchived(root, slug) {
			return slug
		}
	}
	return DefaultBoard
}

// normalizeSlug lower-cases and trims a board name; ok is false for an
// empty or malformed one.
func normalizeSlug(raw string) (string, bool) {
	slug := strings.ToLower(pyStrip(raw))
	return slug, boardSlugRE().MatchString(slug)
}

// boardDir is a named board's directory (the default board keeps its
// database at <root>/kanban.db, but its metadata here too).
func boardDir(root, slug string) string { return filepath.Join(root, "kanban", "boards", slug) }

// boardExists: the default board always exists; another exists when its
// directory holds board.json, Hermes' mark of a registered board (a
// kanban.db alone is a stub a stray open left behind).
func boardExists(root, slug string) bool {
	if slug == DefaultBoard {
		return true
	}
	_, err := os.Stat(filepath.Join(boardDir(root, slug), "board.json"))
	return err == nil
}

// boardArchived reports a board whose board.json says "archived"; an
// unreadable file says nothing.
func boardArchived(root, slug string) bool {
	dir, err := filepath.EvalSymlinks(boardDir(root, slug))
	if err != nil {
		return false
	}
	data, err := safefile.ReadFile(dir, filepath.Join(dir, "board.json"), 1<<20)
	if err != nil {
		return false
	}
	var meta map[string]any
	if json.Unmarshal(data, &meta) != nil {
		return false
	}
	return pystr.Truthy(meta["archived"])
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
