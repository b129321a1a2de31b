package argschema

import (
	"strings"
	"testing"
)

const schema = `{
  "type": "object",
  "properties": {
    "name":  {"type": "string", "minLength": 1},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    "mode":  {"type": "string", "enum": ["fast", "slow"]},
    "opts":  {"type": "object", "properties": {"depth": {"type": "integer"}}, "required": ["depth"], "additionalProperties": false}
  },
  "required": ["name"],
  "additionalProperties": false
}`

func TestValidate(t *testing.T) {
	s, err := Compile("tool", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args string
		want []string // substrings of the error; none means valid
	}{
		{`{"name":"x"}`, nil},
		{``, []string{`missing required argument "name"`}},
		{`{}`, []string{`missing required argument "name"`}},
		{`{"name":3}`, []string{`argument "name" must be a string, got number`}},
		{`{"name":"x","limit":"5"}`, []string{`argument "limit" must be an integer, got string`}},
		{`{"name":"x","limit":0}`, []string{`argument "limit": minimum`}},
		{`{"name":"x","mode":"medium"}`, []string{`argument "mode"`, "fast"}},
		{`{"name":"x","extra":1,"more":2}`, []string{`unknown arguments "extra", "more"`}},
		{`{"name":"x","opts":{}}`, []string{`missing required argument "opts.depth"`}},
		{`{"name":"x","opts":{"depth":1,"x":1}}`, []string{`unknown argument "opts.x"`}},
		{`[1]`, []string{"arguments must be a JSON object, got array"}},
		{`{"name":`, []string{"arguments are not valid JSON"}},
		{`{"limit":500}`, []string{`missing required argument "name"`, `argument "limit": maximum`}},
	}
	for _, tt := range tests {
		err := s.Validate([]byte(tt.args))
		if tt.want == nil {
			if err != nil {
				t.Errorf("Validate(%s) = %v, want valid", tt.args, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("Validate(%s) = nil, want an error", tt.args)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Validate(%s) = %q, want it to contain %q", tt.args, err, w)
			}
		}
	}
}

func TestCompileRejectsBadSchemas(t *testing.T) {
	for _, doc := range []string{`not json`, `{"type": 5}`} {
		if _, err := Compile("bad", []byte(doc)); err == nil {
			t.Errorf("Compile(%s) succeeded", doc)
		}
	}
}
