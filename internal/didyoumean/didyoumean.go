// Package didyoumean finds the names a user probably meant when they typed
// one that does not exist: a misspelt flag, client name or config key.
//
// Two kinds of closeness count. Edit distance (optimal string alignment:
// insertions, deletions, substitutions and swaps of neighbouring letters,
// ignoring case, with '-' and '_' treated alike) catches typos such as
// "modle" for "model". A prefix catches abbreviations such as "claude" for
// "claude-desktop" and "claude-code". Closest uses edit distance alone, for
// places where a short real name must not be mistaken for a typo of a
// longer one (config keys); Suggest uses both.
package didyoumean

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxDistance is how many edits a name of n letters may be away from a
// candidate and still be called a typo of it: none for one or two letters
// (every short name is one edit from many others), then about one edit in
// three letters, at most three.
func maxDistance(n int) int {
	switch {
	case n <= 2:
		return 0
	case n <= 5:
		return 1
	case n <= 8:
		return 2
	default:
		return 3
	}
}

// minPrefix is the shortest input taken as an abbreviation: "c" or "cl"
// would match half of any list.
const minPrefix = 3

// normalize folds what users do not see as a difference: case, the dashes
// in front of a flag, and '-' versus '_'.
func normalize(s string) string {
	s = strings.TrimLeft(strings.TrimSpace(s), "-")
	return strings.ToLower(strings.ReplaceAll(s, "_", "-"))
}

// Distance is the optimal-string-alignment edit distance between a and b,
// counted in runes: the fewest insertions, deletions, substitutions and
// transpositions of adjacent runes that turn a into b.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows suffice: the transposition step looks two rows back.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

type match struct {
	name   string
	prefix bool
	dist   int
	order  int
}

func rank(input string, candidates []string, prefixes bool) []match {
	in := normalize(input)
	if in == "" {
		return nil
	}
	limit := maxDistance(utf8.RuneCountInString(in))
	var found []match
	seen := map[string]bool{}
	for i, c := range candidates {
		if seen[c] {
			continue
		}
		seen[c] = true
		nc := normalize(c)
		if nc == "" {
			continue
		}
		m := match{name: c, order: i, dist: Distance(in, nc)}
		if prefixes && utf8.RuneCountInString(in) >= minPrefix && strings.HasPrefix(nc, in) {
			m.prefix = true
		}
		if m.dist <= limit || m.prefix {
			found = append(found, m)
		}
	}
	slices.SortStableFunc(found, func(a, b match) int {
		if c := cmp.Compare(a.tier(), b.tier()); c != 0 {
			return c
		}
		if a.tier() != tierAbbrev {
			if c := cmp.Compare(a.dist, b.dist); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.order, b.order)
	})
	return found
}

// Tiers order the guesses: the same name spelt differently, then a one-edit
// typo, then abbreviations (in the caller's order, which is usually the
// order of importance), then farther typos.
const (
	tierExact = iota
	tierNear
	tierAbbrev
	tierFar
)

func (m match) tier() int {
	switch {
	case m.dist == 0:
		return tierExact
	case m.dist == 1:
		return tierNear
	case m.prefix:
		return tierAbbrev
	default:
		return tierFar
	}
}

// Closest returns the candidate nearest to input by edit distance, or ""
// when none is close enough to be a typo of it. Ties go to the candidate
// listed first. A candidate equal to input (ignoring case and '-'/'_') is
// returned as written in candidates.
func Closest(input string, candidates []string) string {
	found := rank(input, candidates, false)
	if len(found) == 0 {
		return ""
	}
	return found[0].name
}

// Suggest returns every candidate input may have meant, best first: an
// exact match ignoring case, then typos by edit distance, then candidates
// input is an abbreviation of, in the order given. It returns nil when
// nothing is close.
func Suggest(input string, candidates []string) []string {
	found := rank(input, candidates, true)
	if len(found) == 0 {
		return nil
	}
	names := make([]string, len(found))
	for i, m := range found {
		names[i] = m.name
	}
	return names
}

// Hint is the phrase a message appends for input: `did you mean
// "claude-desktop" or "claude-code"?`, naming at most three candidates, or
// "" when Suggest finds none.
func Hint(input string, candidates []string) string {
	names := Suggest(input, candidates)
	if len(names) == 0 {
		return ""
	}
	if len(names) > 3 {
		names = names[:3]
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = `"` + n + `"`
	}
	var list string
	switch len(quoted) {
	case 1:
		list = quoted[0]
	case 2:
		list = quoted[0] + " or " + quoted[1]
	default:
		list = strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1]
	}
	return "did you mean " + list + "?"
}
