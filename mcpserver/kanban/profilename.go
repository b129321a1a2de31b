package kanban

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// errEmptyProfile is Hermes' refusal of a blank profile name, word for
// word: the tools show it as "<tool>: profile name cannot be empty".
var errEmptyProfile = errors.New("profile name cannot be empty")

// NormalizeProfileName is the canonical form of a profile name as Hermes
// writes it into a task's assignee and hands it to `hermes -p`
// (hermes_cli/profiles.py normalize_profile_name): surrounding whitespace
// removed by Python's rules, "default" in any case is "default", anything
// else lower-cased by Python's full Unicode mapping. No character is
// refused here: kanban stores "Researcher A" as "researcher a".
//
// The Python rules matter because both implementations write the same
// column and compare it with "=": Go's strings.ToLower and TrimSpace
// disagree with Python on İ, a word-final Σ and U+001C..U+001F.
func NormalizeProfileName(name string) (string, error) {
	stripped := pyStrip(name)
	if stripped == "" {
		return "", errEmptyProfile
	}
	if strings.EqualFold(stripped, DefaultProfile) {
		return DefaultProfile, nil
	}
	return pyLower(stripped), nil
}

// DefaultProfile is the root profile's name.
const DefaultProfile = "default"

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

// pyIsSpace is Python's str.isspace for one character: Unicode White_Space
// plus the ASCII information separators U+001C..U+001F, which Python counts
// as whitespace (bidirectional class B/S) and Go does not.
func pyIsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pyStrip is Python's str.strip() with no argument.
func pyStrip(s string) string { return strings.TrimFunc(s, pyIsSpace) }

// pyLower is Python's str.lower(): the full Unicode lowercase mapping,
// which differs from Go's per-rune simple mapping in two places: İ
// (U+0130) becomes "i̇" (two code points), and a capital sigma at the end
// of a word becomes final sigma ς.
func pyLower(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch r {
		case 'İ':
			b.WriteString("i\u0307")
		case 'Σ':
			if finalSigma(s, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma is Unicode's Final_Sigma condition for the Σ at byte offset
// i: a cased letter before it and none after it, case-ignorable characters
// skipped on both sides.
func finalSigma(s string, i int) bool {
	if !casedBefore(s[:i]) {
		return false
	}
	for _, r := range s[i+len("Σ"):] {
		if !caseIgnorable(r) {
			return !cased(r)
		}
	}
	return true
}

// casedBefore reports whether the last character of s that is not
// case-ignorable is cased.
func casedBefore(s string) bool {
	for s != "" {
		r, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
		if !caseIgnorable(r) {
			return cased(r)
		}
	}
	return false
}

// cased is Unicode's Cased property.
func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

// caseIgnorable is Unicode's Case_Ignorable property: marks, format
// characters, modifiers, and the word-internal punctuation of Word_Break
// MidLetter, MidNumLet and Single_Quote (listed, as Go has no Word_Break
// table).
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '\u00b7', '\u0387', '\u055f', '\u05f4', '\u2018', '\u2019', '\u2024', '\u2027',
		'\ufe13', '\ufe52', '\ufe55', '\uff07', '\uff0e', '\uff1a':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// profileIDRE is Hermes' rule for a named profile's directory name.
var profileIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`) })

// hermesRoot is the Hermes root above any profile: profiles live in
// <root>/profiles/<name>, whichever profile this process runs as.
func hermesRoot(home string) string {
	if filepath.Base(filepath.Dir(home)) == "profiles" {
		return filepath.Dir(filepath.Dir(home))
	}
	return home
}

// profileExists is hermes_cli/profiles.py profile_exists: "default" always
// exists; a named profile exists when <root>/profiles/<id> is a directory
// that has not been deleted (no <root>/profiles/.deleted/<id> tombstone).
func profileExists(root, name string) bool {
	id, err := NormalizeProfileName(name)
	if err != nil {
		return false
	}
	if id == DefaultProfile {
		return true
	}
	if !profileIDRE().MatchString(id) {
		return false
	}
	fi, err := os.Stat(filepath.Join(root, "profiles", id))
	if err != nil || !fi.IsDir() {
		return false
	}
	_, err = os.Lstat(filepath.Join(root, "profiles", ".deleted", id))
	return errors.Is(err, os.ErrNotExist)
}

// profileNames is hermes_cli/profiles.py list_profile_names: "default",
// then every profile directory by name, deleted ones included.
func profileNames(root string) []string {
	names := []string{DefaultProfile}
	entries, err := os.ReadDir(filepath.Join(root, "profiles"))
	if err != nil {
		return names
	}
	var named []string
	for _, e := range entries {
		if e.Name() == DefaultProfile || !profileIDRE().MatchString(e.Name()) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(root, "profiles", e.Name())); err == nil && fi.IsDir() {
			named = append(named, e.Name())
		}
	}
	sort.Strings(named)
	return append(names, named...)
}
