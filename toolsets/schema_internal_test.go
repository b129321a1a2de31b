package toolsets

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestObjectSchema(t *testing.T) {
	tests := []struct {
		schema  string
		wantErr string // empty: accepted
	}{
		{`{"type":"object"}`, ""},
		{"{\n  \"properties\": {\"a\": {\"type\": \"string\"}},\n  \"type\" :  \"object\"\n}", ""},
		{`{"a":1,"b":true,"c":null,"d":[1,{"type":"x"}],"e":"x\\","f":"\"type\":\"y\"","type":"object","z":{}}`, ""},
		{" \t{ \"a\" : [ ] , \"type\" : \"object\" } ", ""},
		{`{"properties":{"type":{"type":"object"}},"type":"string"}`, `type is "string"`},
		{`{"description":"says \"type\": \"object\"","type":"array"}`, `type is "array"`},
		{`{"properties":{"type":{"type":"object"}}}`, "type is missing"},
		{`{}`, "type is missing"},
		{`[{"type":"object"}]`, "not a JSON object"},
		{`"object"`, "not a JSON object"},
		{``, "not a JSON object"},
	}
	for _, tt := range tests {
		got, err := objectSchema(json.RawMessage(tt.schema))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("objectSchema(%s) = %v, want an error containing %q", tt.schema, err, tt.wantErr)
			}
			continue
		}
		if err != nil || string(got) != tt.schema {
			t.Errorf("objectSchema(%s) = %s, %v; want it accepted as it is", tt.schema, got, err)
		}
	}
}

func TestValidToolName(t *testing.T) {
	for name, want := range map[string]bool{
		"skills_list": true, "a": true, "web.search-2": true, strings.Repeat("x", 63): true,
		"": false, strings.Repeat("x", 64): false, "has space": false, "ünïcode": false, "slash/name": false,
	} {
		if got := validToolName(name); got != want {
			t.Errorf("validToolName(%q) = %v, want %v", name, got, want)
		}
	}
}
