package agent

import "testing"

func TestParseTitle(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`{"title": "Fix flaky CI job"}`, "Fix flaky CI job"},
		{"```json\n{\"title\": \"Postgres pool exhaustion\"}\n```", "Postgres pool exhaustion"},
		{`Title: "Kiwi export paperwork."`, "Kiwi export paperwork"},
		{"Release notes for v2\nmore text", "Release notes for v2"},
		{`{"title": ""}`, ""},
		{"Sure! To export kiwis you need to fill in form B7 and send it to the ministry before Friday, then wait.", ""},
	}
	for _, tt := range tests {
		if got := parseTitle(tt.raw); got != tt.want {
			t.Errorf("parseTitle(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}
