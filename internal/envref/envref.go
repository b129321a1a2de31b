// Package envref recognises shell-style environment variable references,
// the syntax Hermes' config.yaml shares with most MCP clients: ${NAME},
// ${NAME:-default}, and, as a whole value only, $NAME. Everything that
// reads or writes such a reference uses these patterns, so the migrator,
// the secret guard and the server agree on what one is.
package envref

import "regexp"

// Name is the pattern of a variable name.
const Name = `[A-Za-z_][A-Za-z0-9_]*`

// Braced is the pattern of ${NAME} or ${NAME:-default}: group 1 the name,
// group 2 the ":-default" part (empty when there is none).
const Braced = `\$\{(` + Name + `)(:-[^}]*)?\}`

var (
	bracedRE = regexp.MustCompile(Braced)
	wholeRE  = regexp.MustCompile(`^(?:` + Braced + `|\$(` + Name + `))$`)
)

// Ref is one reference.
type Ref struct {
	Name string
	// Default is the text after ":-"; HasDefault tells ${NAME:-} from
	// ${NAME}.
	Default    string
	HasDefault bool
}

// Whole parses a value that is nothing but one reference.
func Whole(s string) (Ref, bool) {
	m := wholeRE.FindStringSubmatch(s)
	if m == nil {
		return Ref{}, false
	}
	return ref(m[1]+m[3], m[2]), true
}

// Found is a braced reference and where it sits in the text.
type Found struct {
	Ref
	Start, End int
}

// FindBraced returns every ${NAME} and ${NAME:-default} in s, in order.
func FindBraced(s string) []Found {
	var out []Found
	for _, loc := range bracedRE.FindAllStringSubmatchIndex(s, -1) {
		colonDash := ""
		if loc[4] >= 0 {
			colonDash = s[loc[4]:loc[5]]
		}
		out = append(out, Found{Ref: ref(s[loc[2]:loc[3]], colonDash), Start: loc[0], End: loc[1]})
	}
	return out
}

// HasBraced reports whether s holds a ${NAME} or ${NAME:-default}.
func HasBraced(s string) bool { return bracedRE.MatchString(s) }

// ReplaceBraced replaces every braced reference in s with repl.
func ReplaceBraced(s, repl string) string { return bracedRE.ReplaceAllLiteralString(s, repl) }

func ref(name, colonDash string) Ref {
	r := Ref{Name: name}
	if len(colonDash) >= 2 {
		r.Default, r.HasDefault = colonDash[2:], true
	}
	return r
}

var nameRE = regexp.MustCompile(`^` + Name + `$`)

// IsName reports whether s is a valid variable name.
func IsName(s string) bool { return nameRE.MatchString(s) }
