package skills

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/hermes-go/hermes/internal/pystr"
)

// Limits the original applies to what a listing shows (Anthropic's
// progressive-disclosure recommendations).
const (
	maxNameLen        = 64
	maxDescriptionLen = 1024
	// listingPrefixChars is how much of SKILL.md the index reads: enough for
	// any sane frontmatter, and it keeps rescans of big skills cheap.
	listingPrefixChars = 4000
)

// closingFence is the original's end-of-frontmatter rule, searched from just
// after the opening "---". It requires a newline after the closing fence,
// so a file that ends right at "---" has no frontmatter; we keep that quirk
// so both implementations agree on every file.
var closingFence = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n---\s*\n`) })

// document is a SKILL.md split into its frontmatter and body.
type document struct {
	raw    string         // frontmatter YAML exactly as written, without fences
	fields map[string]any // parsed frontmatter, JSON-safe; never nil
	body   string
}

// decodeText turns file bytes into the text the original sees: UTF-8 with a
// leading BOM dropped and undecodable bytes replaced, so a stray byte never
// makes a skill vanish.
func decodeText(b []byte) string {
	s := string(b)
	s = strings.TrimPrefix(s, "\uFEFF")
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}

// truncateRunes cuts s to at most n characters; the original counts
// characters, not bytes.
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// parseDocument splits content into frontmatter and body. YAML that does not
// parse falls back to naive "key: value" lines, as the original does, so a
// skill with one bad quote still shows its name and description.
func parseDocument(content string) document {
	content = strings.TrimPrefix(content, "\uFEFF")
	doc := document{fields: map[string]any{}, body: content}
	if !strings.HasPrefix(content, "---") {
		return doc
	}
	loc := closingFence().FindStringIndex(content[3:])
	if loc == nil {
		return doc
	}
	doc.raw = content[3 : loc[0]+3]
	doc.body = content[loc[1]+3:]

	var parsed any
	if err := yaml.Unmarshal([]byte(doc.raw), &parsed); err == nil {
		if m, ok := jsonSafe(parsed).(map[string]any); ok {
			doc.fields = m
		}
		return doc
	}
	for _, line := range strings.Split(strings.TrimSpace(doc.raw), "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		doc.fields[strings.TrimSpace(key)] = strings.TrimSpace(value)
	}
	return doc
}

// openingFence is the strict first line of a frontmatter block: "---" alone
// on the line, as YAML-aware readers of SKILL.md (Agent Skills hosts) expect.
var openingFence = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^---[ \t]*\r?\n`) })

// ParseFrontmatter parses the frontmatter of a complete SKILL.md strictly,
// the way Agent Skills hosts read it: the file must open with a "---" line
// (no byte-order mark before it), the block ends where the index's rule
// ends it, and the YAML must be a mapping, resolved with the YAML 1.2 core
// schema (see coreSchema). Where the index is lenient, so that a damaged
// skill still lists, this fails instead: it is for consumers that publish
// the fields for hosts to compare with their own parse of the file, such as
// the MCP skills extension. Values are JSON-safe as in Skill.Fields.
func ParseFrontmatter(content []byte) (map[string]any, error) {
	text := string(content)
	if !openingFence().MatchString(text) {
		return nil, errors.New("SKILL.md does not begin with a --- frontmatter line")
	}
	if !utf8.ValidString(text) {
		return nil, errors.New("SKILL.md is not valid UTF-8")
	}
	loc := closingFence().FindStringIndex(text[3:])
	if loc == nil {
		return nil, errors.New("SKILL.md frontmatter has no closing --- line")
	}
	// The block's last line break is part of the YAML (the index's raw
	// Frontmatter drops it): without it, a block scalar ending the block
	// would lose its final newline, which YAML 1.2 parsers keep.
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(text[3:loc[0]+4]), &node); err != nil {
		return nil, fmt.Errorf("SKILL.md frontmatter is not valid YAML: %w", err)
	}
	if node.Kind == 0 {
		return map[string]any{}, nil // nothing but comments and blank lines
	}
	coreSchema(&node)
	var parsed any
	if err := node.Decode(&parsed); err != nil {
		return nil, fmt.Errorf("SKILL.md frontmatter is not valid YAML: %w", err)
	}
	if parsed == nil {
		return map[string]any{}, nil
	}
	fields, ok := jsonSafe(parsed).(map[string]any)
	if !ok {
		return nil, errors.New("SKILL.md frontmatter is not a YAML mapping")
	}
	return fields, nil
}

// coreScalars are the YAML 1.2 core schema's forms of the non-string plain
// scalars. yaml.v3 also resolves YAML 1.1 forms (timestamps such as
// 2024-01-02, binary and underscored numbers) that 1.2 parsers, which hosts
// use, read as strings.
var coreScalars = sync.OnceValue(func() map[string]*regexp.Regexp {
	return map[string]*regexp.Regexp{
		"!!null":  regexp.MustCompile(`^(~|null|Null|NULL|)$`),
		"!!bool":  regexp.MustCompile(`^(true|True|TRUE|false|False|FALSE)$`),
		"!!int":   regexp.MustCompile(`^([-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$`),
		"!!float": regexp.MustCompile(`^([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`),
	}
})

// decimalLeadingZeros finds the zeros yaml.v3 takes for a YAML 1.1 octal
// prefix (0777 is 511 there); in YAML 1.2 the number is decimal 777.
var decimalLeadingZeros = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([-+]?)0+([0-9])`) })

// coreSchema re-resolves untagged plain scalars with the YAML 1.2 core
// schema: one that schema would read as a string is made a string, so the
// fields are those a host's own parse of the file yields.
func coreSchema(n *yaml.Node) {
	const notPlain = yaml.TaggedStyle | yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle
	if n.Kind == yaml.ScalarNode && n.Style&notPlain == 0 && n.Tag == "!!merge" {
		n.Tag = "!!str" // 1.2 has no merge keys: "<<" is a key like any other
	} else if n.Kind == yaml.ScalarNode && n.Style&notPlain == 0 && n.Tag != "!!str" {
		if re, ok := coreScalars()[n.Tag]; !ok || !re.MatchString(n.Value) {
			n.Tag = "!!str"
		} else if n.Tag == "!!int" {
			n.Value = decimalLeadingZeros().ReplaceAllString(n.Value, "$1$2")
		}
	}
	for _, c := range n.Content {
		coreSchema(c)
	}
}

// jsonSafe converts decoded YAML into values encoding/json accepts:
// non-string map keys become strings and non-finite floats become their
// YAML spelling. Frontmatter is echoed back in results, and one odd value
// must not make a whole result unencodable.
func jsonSafe(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonSafe(e)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonSafe(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = jsonSafe(e)
		}
		return x
	case float64:
		switch {
		case math.IsNaN(x):
			return ".nan"
		case math.IsInf(x, 1):
			return ".inf"
		case math.IsInf(x, -1):
			return "-.inf"
		}
		return x
	default:
		if _, err := json.Marshal(x); err != nil {
			return fmt.Sprint(x)
		}
		return x
	}
}

// str renders a scalar frontmatter value the way a user wrote it; nil is "".
func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}

// stringList accepts a YAML list, a single string, or a "[a, b]" / "a, b"
// string — all forms found in real skills.
func stringList(v any) []string {
	out := []string{}
	switch x := v.(type) {
	case nil:
	case []any:
		for _, e := range x {
			if pystr.Truthy(e) {
				out = append(out, strings.TrimSpace(str(e)))
			}
		}
	default:
		s := strings.TrimSpace(str(x))
		if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
			s = s[1 : len(s)-1]
		}
		for _, part := range strings.Split(s, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, strings.Trim(part, `"'`))
			}
		}
	}
	return out
}

// hermesMeta returns metadata.hermes, where agentskills.io-style skills keep
// Hermes-specific fields.
func hermesMeta(fields map[string]any) map[string]any {
	md, _ := fields["metadata"].(map[string]any)
	h, _ := md["hermes"].(map[string]any)
	return h
}

// listField reads tags / related_skills: metadata.hermes wins, the top-level
// key is the older spelling.
func listField(fields map[string]any, key string) []string {
	if v := hermesMeta(fields)[key]; pystr.Truthy(v) {
		return stringList(v)
	}
	return stringList(fields[key])
}

// skillName is the frontmatter name, else the directory name.
func skillName(fields map[string]any, dirName string) string {
	if n := strings.TrimSpace(str(fields["name"])); n != "" {
		return n
	}
	return dirName
}

// listingDescription is the frontmatter description, else the first body
// line that is not a heading, capped at the original's limit. null reports
// an explicit `description: null` with no body line to stand in, which the
// original lists as null rather than "".
func listingDescription(doc document) (d string, null bool) {
	v, given := doc.fields["description"]
	d = str(v)
	if d == "" {
		for _, line := range strings.Split(strings.TrimSpace(doc.body), "\n") {
			line = strings.TrimSpace(line)
			if line != "" && !strings.HasPrefix(line, "#") {
				d = line
				break
			}
		}
	}
	if d == "" && given && v == nil {
		return "", true
	}
	if utf8.RuneCountInString(d) > maxDescriptionLen {
		d = truncateRunes(d, maxDescriptionLen-3) + "..."
	}
	return d, false
}

// platformAliases maps the names skills use to the prefixes of Python's
// sys.platform, which is what the original compares against.
var platformAliases = map[string]string{
	"macos":   "darwin",
	"linux":   "linux",
	"windows": "win32",
}

// matchesPlatform reports whether a skill's `platforms` allows current (a
// sys.platform-style name). No platforms means every platform.
func matchesPlatform(fields map[string]any, current string) bool {
	v := fields["platforms"]
	if !pystr.Truthy(v) {
		return true
	}
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	for _, p := range list {
		norm := strings.ToLower(strings.TrimSpace(str(p)))
		if alias, ok := platformAliases[norm]; ok {
			norm = alias
		}
		if strings.HasPrefix(current, norm) {
			return true
		}
	}
	return false
}
