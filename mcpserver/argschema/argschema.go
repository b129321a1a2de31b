// Package argschema checks tool arguments against the tool's advertised JSON
// Schema and explains a violation in words a model can act on: which
// argument, what was wrong, what is expected.
//
// It implements the part of JSON Schema that tool input schemas use (types,
// properties, required, additionalProperties, items, enum/const, numeric and
// length bounds, uniqueItems, pattern, allOf/anyOf/oneOf) rather than linking a general validator: the
// general ones compile their metaschemas at package init, which cost the
// stdio server several milliseconds of start-up on every spawn (see the
// README's benchmark section), and their messages name schema internals
// that a model tends to misread. Compile refuses a schema that uses any
// keyword outside that part, so a tool can never advertise a constraint
// that goes unchecked.
package argschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Schema is a compiled input schema.
type Schema struct {
	root *node
}

// node is one compiled (sub)schema. A nil *node accepts everything.
type node struct {
	never bool // the boolean schema false

	types      []string // JSON Schema type names; empty means any
	properties map[string]*node
	required   []string
	// additional is the schema for properties not listed in properties;
	// noAdditional is additionalProperties: false.
	additional   *node
	noAdditional bool
	items        *node

	// enum and const are kept as JSON to compare with, and decoded (with
	// UseNumber) to quote in errors.
	enum       []value
	enumValues []any
	hasConst   bool
	constRaw   value
	constVal   any

	minimum, maximum                   *big.Rat
	exclusiveMinimum, exclusiveMaximum *big.Rat
	minLength, maxLength               int // -1 when absent
	minItems, maxItems                 int // -1 when absent
	uniqueItems                        bool
	pattern                            *regexp.Regexp
	patternText                        string

	allOf, anyOf, oneOf []*node
}

// annotations are keywords that describe a value without constraining it.
var annotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "title": true, "description": true,
	"default": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	// format is an annotation unless a validator opts in (2020-12 §7.2).
	"format": true,
}

var constraints = []string{
	"type", "properties", "required", "additionalProperties", "items", "enum", "const",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
	"minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "pattern", "allOf", "anyOf", "oneOf",
}

var typeNames = []string{"object", "array", "string", "number", "integer", "boolean", "null"}

// Compile compiles a JSON Schema document. The name only labels errors.
func Compile(name string, doc []byte) (*Schema, error) {
	v, err := decode(doc)
	if err != nil {
		return nil, fmt.Errorf("schema of %s is not JSON: %w", name, err)
	}
	root, err := compileNode(v, "")
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", name, err)
	}
	return &Schema{root: root}, nil
}

func compileNode(v any, at string) (*node, error) {
	switch s := v.(type) {
	case bool:
		if s {
			return nil, nil
		}
		return &node{never: true}, nil
	case map[string]any:
		return compileObject(s, at)
	default:
		return nil, fmt.Errorf("%s: a schema must be an object or a boolean, got %s", where(at), jsonType(v))
	}
}

func compileObject(s map[string]any, at string) (*node, error) {
	n := &node{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
	for _, k := range slices.Sorted(maps.Keys(s)) {
		if !annotations[k] && !slices.Contains(constraints, k) {
			return nil, fmt.Errorf("%s: keyword %q is not supported by the argument checker (it supports %s)", where(at), k, strings.Join(constraints, ", "))
		}
	}
	var err error
	if t, ok := s["type"]; ok {
		if n.types, err = compileTypes(t, at); err != nil {
			return nil, err
		}
	}
	if p, ok := s["properties"]; ok {
		props, ok := p.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: properties must be an object", where(at))
		}
		n.properties = make(map[string]*node, len(props))
		for name, sub := range props {
			if n.properties[name], err = compileNode(sub, join(at, name)); err != nil {
				return nil, err
			}
		}
	}
	if r, ok := s["required"]; ok {
		list, ok := r.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: required must be an array of names", where(at))
		}
		for _, x := range list {
			name, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%s: required must be an array of names, found %s", where(at), jsonType(x))
			}
			n.required = append(n.required, name)
		}
	}
	if a, ok := s["additionalProperties"]; ok {
		if b, isBool := a.(bool); isBool && !b {
			n.noAdditional = true
		} else if n.additional, err = compileNode(a, join(at, "*")); err != nil {
			return nil, err
		}
	}
	if it, ok := s["items"]; ok {
		if n.items, err = compileNode(it, at+"[]"); err != nil {
			return nil, err
		}
	}
	if e, ok := s["enum"]; ok {
		list, ok := e.([]any)
		if !ok || len(list) == 0 {
			return nil, fmt.Errorf("%s: enum must be a non-empty array", where(at))
		}
		n.enumValues = list
		for _, e := range list {
			raw, err := json.Marshal(e)
			if err != nil {
				return nil, fmt.Errorf("%s: enum: %w", where(at), err)
			}
			n.enum = append(n.enum, raw)
		}
	}
	if c, ok := s["const"]; ok {
		raw, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("%s: const: %w", where(at), err)
		}
		n.hasConst, n.constVal, n.constRaw = true, c, raw
	}
	for _, b := range []struct {
		key string
		dst **big.Rat
	}{{"minimum", &n.minimum}, {"maximum", &n.maximum}, {"exclusiveMinimum", &n.exclusiveMinimum}, {"exclusiveMaximum", &n.exclusiveMaximum}} {
		if x, ok := s[b.key]; ok {
			num, ok := x.(json.Number)
			if !ok {
				return nil, fmt.Errorf("%s: %s must be a number", where(at), b.key)
			}
			r, ok := new(big.Rat).SetString(num.String())
			if !ok {
				return nil, fmt.Errorf("%s: %s %s is out of range", where(at), b.key, num)
			}
			*b.dst = r
		}
	}
	for _, c := range []struct {
		key string
		dst *int
	}{{"minLength", &n.minLength}, {"maxLength", &n.maxLength}, {"minItems", &n.minItems}, {"maxItems", &n.maxItems}} {
		if x, ok := s[c.key]; ok {
			num, ok := x.(json.Number)
			v, err := strconv.Atoi(num.String())
			if !ok || err != nil || v < 0 {
				return nil, fmt.Errorf("%s: %s must be a non-negative integer", where(at), c.key)
			}
			*c.dst = v
		}
	}
	if u, ok := s["uniqueItems"]; ok {
		b, ok := u.(bool)
		if !ok {
			return nil, fmt.Errorf("%s: uniqueItems must be true or false", where(at))
		}
		n.uniqueItems = b
	}
	if p, ok := s["pattern"]; ok {
		text, ok := p.(string)
		if !ok {
			return nil, fmt.Errorf("%s: pattern must be a string", where(at))
		}
		if n.pattern, err = regexp.Compile(text); err != nil {
			return nil, fmt.Errorf("%s: pattern: %w", where(at), err)
		}
		n.patternText = text
	}
	for _, c := range []struct {
		key string
		dst *[]*node
	}{{"allOf", &n.allOf}, {"anyOf", &n.anyOf}, {"oneOf", &n.oneOf}} {
		x, ok := s[c.key]
		if !ok {
			continue
		}
		list, ok := x.([]any)
		if !ok || len(list) == 0 {
			return nil, fmt.Errorf("%s: %s must be a non-empty array of schemas", where(at), c.key)
		}
		for i, sub := range list {
			branch, err := compileNode(sub, at)
			if err != nil {
				return nil, fmt.Errorf("%s[%d]: %w", c.key, i, err)
			}
			*c.dst = append(*c.dst, branch)
		}
	}
	return n, nil
}

func compileTypes(t any, at string) ([]string, error) {
	var list []any
	switch x := t.(type) {
	case string:
		list = []any{x}
	case []any:
		list = x
	default:
		return nil, fmt.Errorf("%s: type must be a type name or an array of them", where(at))
	}
	var out []string
	for _, x := range list {
		name, ok := x.(string)
		if !ok || !slices.Contains(typeNames, name) {
			return nil, fmt.Errorf("%s: unknown type %v (use one of %s)", where(at), x, strings.Join(typeNames, ", "))
		}
		out = append(out, name)
	}
	return out, nil
}

// Validate checks a JSON arguments document. The returned error, when
// non-nil, is a *Error.
func (s *Schema) Validate(args []byte) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	if !json.Valid(args) {
		if _, err := decode(args); err != nil {
			return &Error{Problems: []string{"arguments are not valid JSON: " + err.Error()}}
		}
		// The decoder forgives trailing space JSON does not know (a
		// vertical tab, U+0085), and so does this.
		args = bytes.TrimSpace(args)
	}
	var problems []string
	s.root.check(value(args[skipSpace(args, 0):len(bytes.TrimRight(args, " \t\r\n"))]), "", &problems)
	if len(problems) == 0 {
		return nil
	}
	slices.Sort(problems)
	problems = slices.Compact(problems)
	// The error goes back to the model whole: it names what to fix, and
	// never grows with the arguments.
	for i, p := range problems {
		problems[i] = Excerpt(p, maxProblemChars)
	}
	if len(problems) > maxProblems {
		more := len(problems) - maxProblems
		problems = append(problems[:maxProblems], fmt.Sprintf("and %d more %s", more, plural(more, "problem")))
	}
	return &Error{Problems: problems}
}

// Error lists every problem found in the arguments.
type Error struct {
	Problems []string
}

func (e *Error) Error() string {
	return strings.Join(e.Problems, "; ")
}

// check appends a sentence per violation. It keeps going after the first so
// the model can fix every argument in one retry.
func (n *node) check(v value, at string, out *[]string) {
	if n == nil {
		return
	}
	if n.never {
		*out = append(*out, subject(at)+" is not allowed")
		return
	}
	if len(n.types) > 0 && !slices.ContainsFunc(n.types, func(t string) bool { return valueHasType(v, t) }) {
		want := strings.Join(n.types, " or ")
		if at == "" {
			*out = append(*out, fmt.Sprintf("arguments must be a JSON %s, got %s", want, v.kind()))
		} else {
			*out = append(*out, fmt.Sprintf("%s must be %s, got %s", subject(at), article(want), v.kind()))
		}
		// The remaining keywords would only restate the type mismatch.
		return
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(e value) bool { return equalValues(e, v) }) {
		opts := make([]string, len(n.enumValues))
		for i, e := range n.enumValues {
			opts[i] = render(e)
		}
		*out = append(*out, fmt.Sprintf("%s must be one of %s, got %s", subject(at), strings.Join(opts, ", "), renderValue(v)))
	}
	if n.hasConst && !equalValues(n.constRaw, v) {
		*out = append(*out, fmt.Sprintf("%s must be %s, got %s", subject(at), render(n.constVal), renderValue(v)))
	}
	for _, sub := range n.allOf {
		sub.check(v, at, out)
	}
	if n.anyOf != nil {
		if failed := branchProblems(n.anyOf, v, at); len(failed) == len(n.anyOf) {
			*out = append(*out, fmt.Sprintf("%s must match one of %d accepted forms (%s)", subject(at), len(n.anyOf), strings.Join(failed, "; ")))
		}
	}
	if n.oneOf != nil {
		failed := branchProblems(n.oneOf, v, at)
		switch {
		case len(failed) == len(n.oneOf):
			*out = append(*out, fmt.Sprintf("%s must match one of %d accepted forms (%s)", subject(at), len(n.oneOf), strings.Join(failed, "; ")))
		case len(n.oneOf)-len(failed) > 1:
			*out = append(*out, fmt.Sprintf("%s matches %d of the accepted forms but must match exactly one; remove what makes it ambiguous", subject(at), len(n.oneOf)-len(failed)))
		}
	}
	switch v.kind() {
	case "object":
		n.checkObject(v.members(), at, out)
	case "array":
		if n.minItems < 0 && n.maxItems < 0 && n.items == nil && !n.uniqueItems {
			return // nothing to check: the elements need not be found
		}
		x := v.items()
		if n.minItems >= 0 && len(x) < n.minItems {
			*out = append(*out, fmt.Sprintf("%s must have at least %d %s, got %d", subject(at), n.minItems, plural(n.minItems, "item"), len(x)))
		}
		if n.maxItems >= 0 && len(x) > n.maxItems {
			*out = append(*out, fmt.Sprintf("%s must have at most %d %s, got %d", subject(at), n.maxItems, plural(n.maxItems, "item"), len(x)))
			// The items of an oversized array are not looked at: that
			// would be the very work the bound is there to avoid, and
			// a sentence per item would make the error as big as the
			// argument.
			return
		}
		for i, item := range x {
			n.items.check(item, at+"["+strconv.Itoa(i)+"]", out)
		}
		if n.uniqueItems {
		dups:
			for i := range x {
				for j := range i {
					if equalValues(x[i], x[j]) {
						*out = append(*out, fmt.Sprintf("%s must not repeat items, but items %d and %d are both %s", subject(at), j, i, renderValue(x[i])))
						break dups
					}
				}
			}
		}
	case "string":
		if n.minLength < 0 && n.maxLength < 0 && n.pattern == nil {
			return
		}
		x := stringOf(v)
		// Lengths count code points, as JSON Schema defines them.
		l := utf8.RuneCountInString(x)
		if n.minLength >= 0 && l < n.minLength {
			*out = append(*out, fmt.Sprintf("%s must be at least %d %s long, got %d", subject(at), n.minLength, plural(n.minLength, "character"), l))
		}
		if n.maxLength >= 0 && l > n.maxLength {
			*out = append(*out, fmt.Sprintf("%s must be at most %d %s long, got %d", subject(at), n.maxLength, plural(n.maxLength, "character"), l))
		}
		if n.pattern != nil && !n.pattern.MatchString(x) {
			*out = append(*out, fmt.Sprintf("%s must match the pattern %s", subject(at), n.patternText))
		}
	case "number":
		n.checkNumber(json.Number(v), at, out)
	}
}

// branchProblems checks v against each branch and describes every branch
// that fails, as "form N: ...".
func branchProblems(branches []*node, v value, at string) []string {
	var failed []string
	for i, b := range branches {
		var problems []string
		b.check(v, at, &problems)
		if len(problems) > 0 {
			slices.Sort(problems)
			failed = append(failed, fmt.Sprintf("form %d: %s", i+1, strings.Join(slices.Compact(problems), ", ")))
		}
	}
	return failed
}

func (n *node) checkObject(obj map[string]value, at string, out *[]string) {
	var missing []string
	for _, name := range n.required {
		if _, ok := obj[name]; !ok {
			missing = append(missing, quote(join(at, name)))
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		*out = append(*out, fmt.Sprintf("missing required %s %s", plural(len(missing), "argument"), strings.Join(slices.Compact(missing), ", ")))
	}
	var unknown []string
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		if sub, ok := n.properties[name]; ok {
			sub.check(obj[name], join(at, name), out)
			continue
		}
		if n.noAdditional {
			unknown = append(unknown, quote(join(at, name)))
			continue
		}
		n.additional.check(obj[name], join(at, name), out)
	}
	if len(unknown) > 0 {
		*out = append(*out, fmt.Sprintf("unknown %s %s (not in the tool's schema)", plural(len(unknown), "argument"), strings.Join(unknown, ", ")))
	}
}

func (n *node) checkNumber(x json.Number, at string, out *[]string) {
	if n.minimum == nil && n.maximum == nil && n.exclusiveMinimum == nil && n.exclusiveMaximum == nil {
		return
	}
	for _, b := range []struct {
		bound *big.Rat
		ok    func(c int) bool
		words string
	}{
		{n.minimum, func(c int) bool { return c >= 0 }, "at least"},
		{n.maximum, func(c int) bool { return c <= 0 }, "at most"},
		{n.exclusiveMinimum, func(c int) bool { return c > 0 }, "greater than"},
		{n.exclusiveMaximum, func(c int) bool { return c < 0 }, "less than"},
	} {
		if b.bound != nil && !b.ok(compareNumber(x.String(), b.bound)) {
			*out = append(*out, fmt.Sprintf("%s must be %s %s, got %s", subject(at), b.words, b.bound.RatString(), x))
		}
	}
}

// maxExact bounds the decimal exponent compared exactly: beyond it a number
// is astronomically far from any bound a tool declares, and building the
// exact rational would let one argument cost seconds of CPU.
const maxExact = 400

// compareNumber compares a JSON number literal with a bound: -1, 0 or 1.
func compareNumber(lit string, bound *big.Rat) int {
	mant, exp := splitExponent(lit)
	if exp > -maxExact && exp < maxExact {
		if r, ok := new(big.Rat).SetString(lit); ok {
			return r.Cmp(bound)
		}
	}
	sign := 1
	if strings.HasPrefix(mant, "-") {
		sign = -1
	}
	if strings.Trim(mant, "-+0.") == "" {
		return new(big.Rat).Cmp(bound)
	}
	if exp > 0 { // ±huge: beyond every finite bound
		return sign
	}
	// ±tiny: on 0's side of every non-zero bound; its own sign against 0.
	if bound.Sign() == 0 {
		return sign
	}
	return -bound.Sign()
}

func splitExponent(lit string) (mant string, exp int) {
	i := strings.IndexAny(lit, "eE")
	if i < 0 {
		return lit, 0
	}
	e, err := strconv.Atoi(lit[i+1:])
	if err != nil { // does not fit an int: enormous either way
		if strings.HasPrefix(lit[i+1:], "-") {
			return lit[:i], -maxExact * 2
		}
		return lit[:i], maxExact * 2
	}
	return lit[:i], e
}

// isInteger reports whether a JSON number literal has no fractional part,
// whatever its notation (1, 1.0 and 1e2 are integers; JSON Schema 2020-12
// §6.1.1), without materialising the value.
func isInteger(lit string) bool {
	mant, exp := splitExponent(lit)
	intPart, frac, _ := strings.Cut(strings.TrimLeft(mant, "-+"), ".")
	frac = strings.TrimRight(frac, "0")
	if strings.Trim(intPart, "0") == "" && frac == "" {
		return true // zero in any notation
	}
	return exp >= len(frac)
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// equal is JSON equality: numbers by value, objects by members, arrays in order.
func equal(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		_, ex := splitExponent(x.String())
		_, ey := splitExponent(y.String())
		if ex <= -maxExact || ex >= maxExact || ey <= -maxExact || ey >= maxExact {
			return false
		}
		rx, ok1 := new(big.Rat).SetString(x.String())
		ry, ok2 := new(big.Rat).SetString(y.String())
		return ok1 && ok2 && rx.Cmp(ry) == 0
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, equal)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

func decode(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(doc[dec.InputOffset():])) != 0 {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

func render(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

const (
	maxProblems     = 10
	maxProblemChars = 300
)

// Excerpt returns s when it has at most limit characters, else its start
// marked as cut with the full length, so an error can quote an argument
// without echoing a megabyte of it.
func Excerpt(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	cut := 0
	for i := range s {
		if cut == limit {
			return fmt.Sprintf("%s…[cut: %d characters in all]", s[:i], utf8.RuneCountInString(s))
		}
		cut++
	}
	return s
}

func subject(at string) string {
	if at == "" {
		return "arguments"
	}
	return "argument " + quote(at)
}

// where names a position in the schema for compile errors.
func where(at string) string {
	if at == "" {
		return "top level"
	}
	return "at " + quote(at)
}

func join(at, name string) string {
	name = Excerpt(name, 64)
	if at == "" {
		return name
	}
	return at + "." + name
}

func quote(s string) string { return `"` + s + `"` }

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func article(typ string) string {
	switch typ[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an " + typ
	}
	return "a " + typ
}

// Walking the arguments. The checker reads them where they lie, as bytes,
// and builds no Go values from them: the tool's handler decodes them into
// its own types afterwards, and that is the one decode a call's arguments
// get. Only the error path decodes a fragment, to quote it.

// value is one JSON value inside arguments that are known to be valid
// JSON, without surrounding space.
type value []byte

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default: // a number, true, false or null
		for i < len(b) && !bytes.ContainsRune([]byte(" \t\r\n,]}"), rune(b[i])) {
			i++
		}
		return i
	}
}

// stringEnd returns the index just past the string that starts at b[i].
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// kind is the value's JSON type name.
func (v value) kind() string {
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// elements calls fn with each element of an array, or each member of an
// object (name is the member's raw name, quotes included).
func (v value) elements(fn func(name, elem value)) {
	i := skipSpace(v, 1)
	for i < len(v) && v[i] != ']' && v[i] != '}' {
		var name value
		if v[0] == '{' {
			end := stringEnd(v, i)
			name = v[i:end]
			i = skipSpace(v, skipSpace(v, end)+1) // past the colon
		}
		end := valueEnd(v, i)
		fn(name, v[i:end])
		i = skipSpace(v, end)
		if i < len(v) && v[i] == ',' {
			i = skipSpace(v, i+1)
		}
	}
}

// items are an array's elements.
func (v value) items() []value {
	var out []value
	v.elements(func(_, e value) { out = append(out, e) })
	return out
}

// members are an object's members by name; a name given twice keeps its
// last value, as a decoder does.
func (v value) members() map[string]value {
	out := map[string]value{}
	v.elements(func(name, e value) { out[stringOf(name)] = e })
	return out
}

// stringOf is a string value's text, as a decoder yields it (escapes
// resolved, invalid UTF-8 replaced).
func stringOf(v value) string {
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(v, &s) // valid JSON: cannot fail
	return s
}

// equalValues is JSON equality: numbers by value, strings by text, objects
// by members, arrays in order.
func equalValues(a, b value) bool {
	ka := a.kind()
	if ka != b.kind() {
		return false
	}
	switch ka {
	case "number":
		return equal(json.Number(a), json.Number(b))
	case "string":
		return stringOf(a) == stringOf(b)
	case "array":
		return slicesEqual(a.items(), b.items())
	case "object":
		ma, mb := a.members(), b.members()
		if len(ma) != len(mb) {
			return false
		}
		for k, x := range ma {
			y, ok := mb[k]
			if !ok || !equalValues(x, y) {
				return false
			}
		}
		return true
	default: // true, false, null: the literal is the value
		return bytes.Equal(a, b)
	}
}

func slicesEqual(a, b []value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !equalValues(a[i], b[i]) {
			return false
		}
	}
	return true
}

// renderValue quotes a value in an error, as render quotes a decoded one.
func renderValue(v value) string {
	d, err := decode(v)
	if err != nil {
		return Excerpt(string(v), 77)
	}
	return render(d)
}

// valueHasType reports whether v is of the JSON Schema type t; integer is
// a number without a fractional part, in any notation.
func valueHasType(v value, t string) bool {
	if t == "integer" {
		return v.kind() == "number" && isInteger(string(v))
	}
	return v.kind() == t
}
