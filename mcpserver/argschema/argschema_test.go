package argschema

import (
	"bytes"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const schema = `{
  "type": "object",
  "properties": {
    "name":  {"type": "string", "minLength": 1, "maxLength": 8},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
    "mode":  {"type": "string", "enum": ["fast", "slow"]},
    "tags":  {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}, "minItems": 1, "maxItems": 2, "uniqueItems": true},
    "kind":  {"const": "task"},
    "note":  {"type": ["string", "null"]},
    "opts":  {"type": "object", "properties": {"depth": {"type": "integer"}}, "required": ["depth"], "additionalProperties": false},
    "env":   {"type": "object", "additionalProperties": {"type": "string"}},
    "never": false
  },
  "required": ["name"],
  "additionalProperties": false
}`

// forms mirrors delegate_task: either a goal or a list of tasks.
const forms = `{
  "type": "object",
  "properties": {
    "goal":  {"type": "string"},
    "tasks": {"type": "array", "items": {"type": "string"}},
    "role":  {"type": "string"}
  },
  "anyOf": [
    {"required": ["goal"], "properties": {"goal": {"minLength": 1}}},
    {"required": ["tasks"]}
  ],
  "oneOf": [
    {"required": ["role"]},
    {"properties": {"role": false}}
  ],
  "allOf": [{"properties": {"tasks": {"maxItems": 3}}}],
  "additionalProperties": false
}`

func TestValidateForms(t *testing.T) {
	s, err := Compile("forms", []byte(forms))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ args, want string }{
		{`{"goal":"g"}`, ``},
		{`{"tasks":["a"],"role":"r"}`, ``},
		{`{}`, `arguments must match one of 2 accepted forms (form 1: missing required argument "goal"; form 2: missing required argument "tasks")`},
		{`{"goal":""}`, `arguments must match one of 2 accepted forms (form 1: argument "goal" must be at least 1 character long, got 0; form 2: missing required argument "tasks")`},
		{`{"tasks":["a","b","c","d"]}`, `argument "tasks" must have at most 3 items, got 4`},
	}
	for _, tt := range tests {
		err := s.Validate([]byte(tt.args))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("Validate(%s)\n got: %s\nwant: %s", tt.args, got, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	s, err := Compile("tool", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args string
		want string // the whole error; empty means valid
	}{
		{`{"name":"x"}`, ``},
		{`{"name":"x","limit":1,"ratio":0.5,"mode":"fast","tags":["a"],"kind":"task","note":null,"opts":{"depth":2},"env":{"A":"b"}}`, ``},
		{`{"name":"x","limit":1.0}`, ``},
		{`{"name":"x","limit":1e2}`, ``},
		{`{"name":"x","limit":100.000}`, ``},
		{`{"name":"ééééééé"}`, ``},
		{` `, `missing required argument "name"`},
		{`{}`, `missing required argument "name"`},
		{`{"name":3}`, `argument "name" must be a string, got number`},
		{`{"name":""}`, `argument "name" must be at least 1 character long, got 0`},
		{`{"name":"ninechars"}`, `argument "name" must be at most 8 characters long, got 9`},
		{`{"name":"x","limit":"5"}`, `argument "limit" must be an integer, got string`},
		{`{"name":"x","limit":1.5}`, `argument "limit" must be an integer, got number`},
		{`{"name":"x","limit":0}`, `argument "limit" must be at least 1, got 0`},
		{`{"name":"x","limit":1e3}`, `argument "limit" must be at most 100, got 1e3`},
		{`{"name":"x","limit":1e999999999999}`, `argument "limit" must be at most 100, got 1e999999999999`},
		{`{"name":"x","ratio":0}`, `argument "ratio" must be greater than 0, got 0`},
		{`{"name":"x","ratio":1e-9999}`, ``},
		{`{"name":"x","ratio":-1e-9999}`, `argument "ratio" must be greater than 0, got -1e-9999`},
		{`{"name":"x","ratio":1}`, `argument "ratio" must be less than 1, got 1`},
		{`{"name":"x","mode":"medium"}`, `argument "mode" must be one of "fast", "slow", got "medium"`},
		{`{"name":"x","tags":[]}`, `argument "tags" must have at least 1 item, got 0`},
		{`{"name":"x","tags":["a","b","c"]}`, `argument "tags" must have at most 2 items, got 3`},
		{`{"name":"x","tags":["a","B"]}`, `argument "tags[1]" must match the pattern ^[a-z]+$`},
		{`{"name":"x","tags":["ab","ab"]}`, `argument "tags" must not repeat items, but items 0 and 1 are both "ab"`},
		{`{"name":"x","tags":[1]}`, `argument "tags[0]" must be a string, got number`},
		{`{"name":"x","kind":"job"}`, `argument "kind" must be "task", got "job"`},
		{`{"name":"x","note":1}`, `argument "note" must be a string or null, got number`},
		{`{"name":"x","extra":1,"more":2}`, `unknown arguments "extra", "more" (not in the tool's schema)`},
		{`{"name":"x","opts":{}}`, `missing required argument "opts.depth"`},
		{`{"name":"x","opts":{"depth":1,"x":1}}`, `unknown argument "opts.x" (not in the tool's schema)`},
		{`{"name":"x","env":{"A":1}}`, `argument "env.A" must be a string, got number`},
		{`{"name":"x","never":1}`, `argument "never" is not allowed`},
		{`[1]`, `arguments must be a JSON object, got array`},
		{`{"name":`, `arguments are not valid JSON: unexpected EOF`},
		{`{"name":"x"} {}`, `arguments are not valid JSON: unexpected data after the JSON value`},
		{`{"limit":500,"name":""}`, `argument "limit" must be at most 100, got 500; argument "name" must be at least 1 character long, got 0`},
	}
	for _, tt := range tests {
		err := s.Validate([]byte(tt.args))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("Validate(%s)\n got: %s\nwant: %s", tt.args, got, tt.want)
		}
	}
}

func TestCompileRejects(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`not json`, "is not JSON"},
		{`{"type": 5}`, "top level: type must be a type name"},
		{`{"type": "text"}`, `unknown type text`},
		{`{"properties": {"a": {"if": {}}}}`, `at "a": keyword "if" is not supported`},
		{`{"properties": {"a": 3}}`, `at "a": a schema must be an object or a boolean, got number`},
		{`{"required": "a"}`, "required must be an array of names"},
		{`{"enum": []}`, "enum must be a non-empty array"},
		{`{"minimum": "1"}`, "minimum must be a number"},
		{`{"maxItems": -1}`, "maxItems must be a non-negative integer"},
		{`{"pattern": "("}`, "pattern:"},
		{`{"anyOf": {}}`, "anyOf must be a non-empty array of schemas"},
		{`{"oneOf": [{"not": {}}]}`, `oneOf[0]: top level: keyword "not" is not supported`},
	}
	for _, tt := range tests {
		_, err := Compile("bad", []byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Compile(%s) = %v, want an error containing %q", tt.doc, err, tt.want)
		}
	}
}

// referenceSchemas are the schema above plus every input schema the server
// advertises (the toolsnaps), so the differential test covers the real ones.
func referenceSchemas(t testing.TB) map[string][]byte {
	out := map[string][]byte{"test": []byte(schema), "forms": []byte(forms)}
	files, err := filepath.Glob("../testdata/toolsnaps/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no toolsnaps found (%v): run from the module", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var snap struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(data, &snap); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = snap.InputSchema
	}
	return out
}

type pair struct {
	name string
	doc  any
	ours *Schema
	ref  *jsonschema.Schema
}

func compileBoth(t testing.TB) []pair {
	var compiled []pair
	schemas := referenceSchemas(t)
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		doc := schemas[name]
		ours, err := Compile(name, doc)
		if err != nil {
			t.Fatalf("Compile(%s): %v", name, err)
		}
		parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		url := "mem:///" + name
		if err := c.AddResource(url, parsed); err != nil {
			t.Fatal(err)
		}
		ref, err := c.Compile(url)
		if err != nil {
			t.Fatal(err)
		}
		compiled = append(compiled, pair{name, parsed, ours, ref})
	}
	return compiled
}

// TestAgreesWithReferenceOnGeneratedArguments walks each advertised schema
// and makes arguments that are mostly right with a few things wrong (a
// missing or extra key, a wrong type, a value just past a bound), then checks
// that this checker and the reference validator reach the same verdict.
func TestAgreesWithReferenceOnGeneratedArguments(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var accepted, rejected int
	for _, p := range compileBoth(t) {
		for range 3000 {
			v := generate(rng, p.doc, 0)
			args, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
			if err != nil {
				t.Fatal(err)
			}
			ourErr := p.ours.Validate(args)
			refErr := p.ref.Validate(inst)
			if (ourErr == nil) != (refErr == nil) {
				t.Fatalf("%s: disagreement on %s:\n ours: %v\n  ref: %v", p.name, args, ourErr, refErr)
			}
			if ourErr == nil {
				accepted++
			} else {
				rejected++
			}
		}
	}
	// Both verdicts must be well represented, or the test proves little.
	if accepted < 10000 || rejected < 10000 {
		t.Errorf("generated %d valid and %d invalid argument sets; want at least 10000 of each", accepted, rejected)
	}
}

// generate makes a value for schema s: usually a valid one, sometimes not.
func generate(rng *rand.Rand, s any, depth int) any {
	m, ok := s.(map[string]any)
	if !ok || depth > 6 || rng.IntN(40) == 0 {
		return wildValue(rng)
	}
	if e, ok := m["enum"].([]any); ok && rng.IntN(8) != 0 {
		return e[rng.IntN(len(e))]
	}
	if c, ok := m["const"]; ok && rng.IntN(8) != 0 {
		return c
	}
	typ, _ := m["type"].(string)
	if list, ok := m["type"].([]any); ok && len(list) > 0 {
		typ, _ = list[rng.IntN(len(list))].(string)
	}
	switch typ {
	case "object":
		obj := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		required, _ := m["required"].([]any)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			isRequired := slices.Contains(required, any(name))
			if (isRequired && rng.IntN(30) != 0) || (!isRequired && rng.IntN(2) == 0) {
				obj[name] = generate(rng, props[name], depth+1)
			}
		}
		if rng.IntN(25) == 0 {
			obj["unexpected"] = wildValue(rng)
		}
		if ap, ok := m["additionalProperties"].(map[string]any); ok && rng.IntN(2) == 0 {
			obj["extra_key"] = generate(rng, ap, depth+1)
		}
		return obj
	case "array":
		n := rng.IntN(5)
		if mx, ok := m["maxItems"].(json.Number); ok && rng.IntN(2) == 0 {
			v, _ := mx.Int64()
			n = int(v) + rng.IntN(3) - 1
		}
		arr := make([]any, max(n, 0))
		for i := range arr {
			arr[i] = generate(rng, m["items"], depth+1)
		}
		return arr
	case "integer", "number":
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if b, ok := m[k].(json.Number); ok && rng.IntN(3) == 0 {
				f, _ := b.Float64()
				return json.Number(strconv.FormatFloat(f+float64(rng.IntN(3)-1)*[]float64{1, 0.5}[rng.IntN(2)], 'g', -1, 64))
			}
		}
		if typ == "number" && rng.IntN(3) == 0 {
			return rng.Float64() * 100
		}
		return rng.IntN(200) - 20
	case "string":
		return []string{"", "a", "hello world", "ü", "https://example.com/x"}[rng.IntN(5)]
	case "boolean":
		return rng.IntN(2) == 0
	case "null":
		return nil
	}
	return wildValue(rng)
}

func wildValue(rng *rand.Rand) any {
	return []any{nil, true, 1, 2.5, json.Number("1e2"), "x", []any{}, map[string]any{}, []any{1, "a"}}[rng.IntN(9)]
}

// FuzzAgreesWithReference checks that this checker accepts exactly what a
// general JSON Schema validator (used in tests only) accepts, on every
// advertised schema.
func FuzzAgreesWithReference(f *testing.F) {
	compiled := compileBoth(f)
	for _, seed := range []string{
		`{}`, `{"name":"x"}`, `{"name":"x","limit":1.0}`, `{"name":"x","limit":-0}`, `{"name":"x","ratio":5e-1}`,
		`{"query":"q","limit":3}`, `{"todos":[{"id":"1","content":"c","status":"pending"}]}`,
		`{"action":"add","target":"memory","content":"x"}`, `{"url":"https://example.com","ref":"e1"}`,
		`{"urls":["a","b","c","d","e","f"]}`, `{"name":"x","tags":["ab"],"opts":{"depth":1e0}}`,
		`{"name":"x","mode":"slow","kind":"task","note":null,"env":{}}`, `[]`, `null`, `"s"`, `{"name":"x","limit":100.0000000000000000001}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, args string) {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
		if err != nil || !json.Valid([]byte(args)) || strings.TrimSpace(args) == "" {
			return // the checker's own JSON errors are tested above
		}
		if hugeExponent(args) {
			return // the reference builds exact rationals: 1e999999999 would hang it
		}
		for _, p := range compiled {
			ourErr := p.ours.Validate([]byte(args))
			refErr := p.ref.Validate(inst)
			if (ourErr == nil) != (refErr == nil) {
				t.Fatalf("disagreement on %s:\n ours: %v\n  ref: %v", args, ourErr, refErr)
			}
		}
	})
}

func hugeExponent(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			j := i + 1
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				j++
			}
			k := j
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			if k-j > 3 {
				return true
			}
		}
	}
	return false
}
