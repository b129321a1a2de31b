package argschema

// The checker as it was before it walked the arguments' bytes, kept as the
// oracle the byte-walking one must agree with sentence for sentence
// (TestWalkAgreesWithDecoded, FuzzWalkAgreesWithDecoded).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// validateDecoded is the checker as it was before it walked the bytes:
// it decodes the arguments into Go values and checks those. It is the
// oracle the byte-walking checker must agree with, message for message.
func (s *Schema) validateDecoded(args []byte) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	inst, err := decode(args)
	if err != nil {
		return &Error{Problems: []string{"arguments are not valid JSON: " + err.Error()}}
	}
	var problems []string
	s.root.checkDecoded(inst, "", &problems)
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

// check appends a sentence per violation. It keeps going after the first so
// the model can fix every argument in one retry.
func (n *node) checkDecoded(v any, at string, out *[]string) {
	if n == nil {
		return
	}
	if n.never {
		*out = append(*out, subject(at)+" is not allowed")
		return
	}
	if len(n.types) > 0 && !slices.ContainsFunc(n.types, func(t string) bool { return hasType(v, t) }) {
		want := strings.Join(n.types, " or ")
		if at == "" {
			*out = append(*out, fmt.Sprintf("arguments must be a JSON %s, got %s", want, jsonType(v)))
		} else {
			*out = append(*out, fmt.Sprintf("%s must be %s, got %s", subject(at), article(want), jsonType(v)))
		}
		// The remaining keywords would only restate the type mismatch.
		return
	}
	if n.enumValues != nil && !slices.ContainsFunc(n.enumValues, func(e any) bool { return equal(e, v) }) {
		opts := make([]string, len(n.enumValues))
		for i, e := range n.enumValues {
			opts[i] = render(e)
		}
		*out = append(*out, fmt.Sprintf("%s must be one of %s, got %s", subject(at), strings.Join(opts, ", "), render(v)))
	}
	if n.hasConst && !equal(n.constVal, v) {
		*out = append(*out, fmt.Sprintf("%s must be %s, got %s", subject(at), render(n.constVal), render(v)))
	}
	for _, sub := range n.allOf {
		sub.checkDecoded(v, at, out)
	}
	if n.anyOf != nil {
		if failed := branchProblemsDecoded(n.anyOf, v, at); len(failed) == len(n.anyOf) {
			*out = append(*out, fmt.Sprintf("%s must match one of %d accepted forms (%s)", subject(at), len(n.anyOf), strings.Join(failed, "; ")))
		}
	}
	if n.oneOf != nil {
		failed := branchProblemsDecoded(n.oneOf, v, at)
		switch {
		case len(failed) == len(n.oneOf):
			*out = append(*out, fmt.Sprintf("%s must match one of %d accepted forms (%s)", subject(at), len(n.oneOf), strings.Join(failed, "; ")))
		case len(n.oneOf)-len(failed) > 1:
			*out = append(*out, fmt.Sprintf("%s matches %d of the accepted forms but must match exactly one; remove what makes it ambiguous", subject(at), len(n.oneOf)-len(failed)))
		}
	}
	switch x := v.(type) {
	case map[string]any:
		n.checkObjectDecoded(x, at, out)
	case []any:
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
			n.items.checkDecoded(item, at+"["+strconv.Itoa(i)+"]", out)
		}
		if n.uniqueItems {
		dups:
			for i := range x {
				for j := range i {
					if equal(x[i], x[j]) {
						*out = append(*out, fmt.Sprintf("%s must not repeat items, but items %d and %d are both %s", subject(at), j, i, render(x[i])))
						break dups
					}
				}
			}
		}
	case string:
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
	case json.Number:
		n.checkNumber(x, at, out)
	}
}

// branchProblems checks v against each branch and describes every branch
// that fails, as "form N: ...".
func branchProblemsDecoded(branches []*node, v any, at string) []string {
	var failed []string
	for i, b := range branches {
		var problems []string
		b.checkDecoded(v, at, &problems)
		if len(problems) > 0 {
			slices.Sort(problems)
			failed = append(failed, fmt.Sprintf("form %d: %s", i+1, strings.Join(slices.Compact(problems), ", ")))
		}
	}
	return failed
}

func (n *node) checkObjectDecoded(obj map[string]any, at string, out *[]string) {
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
			sub.checkDecoded(obj[name], join(at, name), out)
			continue
		}
		if n.noAdditional {
			unknown = append(unknown, quote(join(at, name)))
			continue
		}
		n.additional.checkDecoded(obj[name], join(at, name), out)
	}
	if len(unknown) > 0 {
		*out = append(*out, fmt.Sprintf("unknown %s %s (not in the tool's schema)", plural(len(unknown), "argument"), strings.Join(unknown, ", ")))
	}
}

func hasType(v any, t string) bool {
	switch t {
	case "integer":
		n, ok := v.(json.Number)
		return ok && isInteger(n.String())
	case "number":
		_, ok := v.(json.Number)
		return ok
	default:
		return jsonType(v) == t
	}
}

// errText is a checker's verdict as text: "" for accepted.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// walkCases are arguments whose bytes differ from their values: escapes,
// repeated names, spacing, number notations, invalid UTF-8.
var walkCases = []string{
	`{"name":"x"}`, ` { "name" : "x" , "limit" : 1.0 } `, "{\n\t\"name\":\"\\u0078\"\r\n}",
	`{"na\u006de":"x"}`, `{"name":"x","name":"toolongforthis"}`, `{"name":"toolongforthis","name":"x"}`,
	`{"name":"\ud83d\ude00"}`, "{\"name\":\"\xff\xfe\"}", `{"name":"a\"b"}`, `{"name":"a\\"}`,
	`{"name":"x","limit":1e2}`, `{"name":"x","limit":-0}`, `{"name":"x","limit":100.0000000000000000001}`,
	`{"name":"x","mode":"f\u0061st"}`, `{"name":"x","kind":"t\u0061sk"}`, `{"name":"x","kind":["task"]}`,
	`{"name":"x","tags":["ab","a\u0062"]}`, `{"name":"x","tags":[ "ab" , "cd" ]}`, `{"name":"x","tags":[]}`,
	`{"name":"x","tags":[[],{}]}`, `{"name":"x","opts":{"depth":1,"depth":"deep"}}`, `{"name":"x","opts":{}}`,
	`{"name":"x","env":{"A":"1","B":2}}`, `{"name":"x","never":null}`, `{"name":"x","note":null}`,
	`{"goal":"g","role":"r","tasks":["a","b","c","d"]}`, `{"tasks":[]}`, `{"role":1}`,
	`[]`, `null`, `"s"`, `1`, `true`, `{}`, ``, `   `, `{"name":`, `{"name":"x"} {}`, `{"name":"x",}`,
	`{"name":"x","tags":["ab","ab"]}`, `{"name":"x","tags":[{"a":1,"b":[1,2]},{"b":[1,2.0],"a":1e0}]}`,
}

// The checker that walks the bytes says what the decoding one said, word
// for word, on every advertised schema: for hand-written arguments whose
// bytes and values differ, and for generated ones.
func TestWalkAgreesWithDecoded(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	compiled := compileBoth(t)
	for _, p := range compiled {
		check := func(args []byte) {
			t.Helper()
			if got, want := errText(p.ours.Validate(args)), errText(p.ours.validateDecoded(args)); got != want {
				t.Fatalf("%s: %s\n walk: %s\n  dec: %s", p.name, args, got, want)
			}
		}
		for _, c := range walkCases {
			check([]byte(c))
		}
		for range 1000 {
			args, err := json.MarshalIndent(generate(rng, p.doc, 0), "", " ")
			if err != nil {
				t.Fatal(err)
			}
			check(args)
		}
	}
}

func FuzzWalkAgreesWithDecoded(f *testing.F) {
	compiled := compileBoth(f)
	for _, c := range walkCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, args string) {
		for _, p := range compiled {
			if got, want := errText(p.ours.Validate([]byte(args))), errText(p.ours.validateDecoded([]byte(args))); got != want {
				t.Fatalf("%s: %q\n walk: %s\n  dec: %s", p.name, args, got, want)
			}
		}
	})
}

// BenchmarkValidate is the check of one call's arguments (a todo list of
// 20 items against the todo_list tool's advertised schema) by walking its bytes
// against decoding it first, as the checker did before.
func BenchmarkValidate(b *testing.B) {
	raw, err := os.ReadFile("../testdata/toolsnaps/todo_list.json")
	if err != nil {
		b.Fatal(err)
	}
	var snap struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(raw, &snap); err != nil {
		b.Fatal(err)
	}
	s, err := Compile("todo_list", snap.InputSchema)
	if err != nil {
		b.Fatal(err)
	}
	var todos []map[string]any
	for i := range 20 {
		todos = append(todos, map[string]any{"id": strconv.Itoa(i), "content": "write the release notes for item " + strconv.Itoa(i), "status": "pending"})
	}
	args, _ := json.Marshal(map[string]any{"todos": todos, "merge": true})
	for _, tc := range []struct {
		name string
		fn   func([]byte) error
	}{{"walk", s.Validate}, {"decoded", s.validateDecoded}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := tc.fn(args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
