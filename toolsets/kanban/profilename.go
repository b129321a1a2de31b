package kanban

import (
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/pystr"
)

// NormalizeProfileName is the canonical form of a profile name as Hermes
// writes it into a task's assignee and hands it to `hermes -p`: see
// hermeshome.NormalizeProfileName. No character is refused here: kanban
// stores "Researcher A" as "researcher a". Both implementations write the
// same column and compare it with "=", so the Python rules (whitespace,
// İ, a word-final Σ) matter.
func NormalizeProfileName(name string) (string, error) { return hermeshome.NormalizeProfileName(name) }

// DefaultProfile is the root profile's name.
const DefaultProfile = hermeshome.DefaultProfile

// canonicalAssignee normalises an assignee that is set; nil stays nil
// (unassigned), as kanban_db._canonical_assignee does.
func canonicalAssignee(a *string) (*string, error) {
	if a == nil {
		return nil, nil
	}
	n, err := NormalizeProfileName(*a)
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// pyStrip is Python's str.strip() with no argument.
func pyStrip(s string) string { return pystr.Strip(s) }
