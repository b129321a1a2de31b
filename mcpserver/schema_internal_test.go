package mcpserver

import (
	"bytes"
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
		{"{\n  \"properties\": {\"a\": {\"type\": \"string\"}},\n  \"type\": \"object\"\n}", ""},
		{`{"a":1,"b":true,"c":null,"d":[1,{"type":"x"}],"e":"x\\","f":"\"type\":\"y\"","type":"object","z":{}}`, ""},
		{`{"properties":{"type":{"type":"object"}},"type":"string"}`, `type is "string"`},
		{`{"description":"says \"type\": \"object\"","type":"array"}`, `type is "array"`},
		{`{"properties":{"type":{"type":"object"}}}`, "type is missing"},
		{`{}`, "type is missing"},
		{`[{"type":"object"}]`, "not a JSON object"},
		{`{"type":"object"`, "not JSON"},
		{``, "not JSON"},
	}
	for _, tt := range tests {
		got, err := objectSchema(json.RawMessage(tt.schema))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("objectSchema(%s) = %v, want an error containing %q", tt.schema, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("objectSchema(%s): %v", tt.schema, err)
			continue
		}
		var want bytes.Buffer
		json.Compact(&want, []byte(tt.schema))
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("objectSchema(%s) = %s, want the compact form %s", tt.schema, got, want.Bytes())
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
