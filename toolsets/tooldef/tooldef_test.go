package tooldef

import (
	"encoding/json"
	"strings"
	"testing"
)

// Integers as JSON Schema counts them (2.0, 1e1) reach an int field as
// their value; what is no integer still fails, naming the field.
func TestDecodeArgsIntegers(t *testing.T) {
	type args struct {
		Limit int            `json:"limit"`
		Ratio float64        `json:"ratio"`
		Extra map[string]any `json:"extra"`
	}
	for _, tt := range []struct {
		in    string
		limit int
		err   string
	}{
		{`{"limit":2}`, 2, ""},
		{`{"limit":2.0}`, 2, ""},
		{`{"limit":1e1,"ratio":0.5}`, 10, ""},
		{`{"limit":-15e-1}`, 0, "cannot unmarshal number -15e-1"},
		{`{"limit":120E-1,"extra":{"a":[1.0]}}`, 12, ""},
		{`{"limit":2.5}`, 0, "cannot unmarshal number 2.5"},
		{`{"limit":1e99999999}`, 0, "cannot unmarshal number 1e99999999"},
		{`{"limit":"2"}`, 0, "cannot unmarshal string"},
	} {
		got, err := DecodeArgs[args](json.RawMessage(tt.in))
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.in, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: error %v, want one with %q", tt.in, err, tt.err)
		case tt.err == "" && got.Limit != tt.limit:
			t.Errorf("%s: limit %d, want %d", tt.in, got.Limit, tt.limit)
		}
	}
}
