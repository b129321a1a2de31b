package mcpserver

import (
	"testing"
)

func TestFirstSentence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"One. Two.", "One."},
		{"Click a ref (e.g. e12). Then snapshot.", "Click a ref (e.g. e12)."},
		{"Use i.e. this one. Next.", "Use i.e. this one."},
		{"Reads `a. b` files. More.", "Reads `a. b` files."},
		{`Says "stop. go" now. More.`, `Says "stop. go" now.`},
		{"Version 1.2 is fine. More.", "Version 1.2 is fine."},
		{"No full stop at all", "No full stop at all"},
		{"Ends here.", "Ends here."},
		{"Pipes | escaped. More.", `Pipes \| escaped.`},
		{"Asks? Yes. More.", "Asks?"},
	}
	for _, tt := range tests {
		if got := firstSentence(tt.in); got != tt.want {
			t.Errorf("firstSentence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
