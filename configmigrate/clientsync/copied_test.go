package clientsync

import (
	"strings"
	"testing"
)

// TestCopiedRecordsFromHostileState: a digest read from the state file
// matches only the value it was made from, and one with an iteration
// count out of bounds, a foreign scheme or a malformed part matches
// nothing (the value then counts as the user's, and no planted record
// can make a run spin).
func TestCopiedRecordsFromHostileState(t *testing.T) {
	h, err := hashCopied("sk-value")
	if err != nil {
		t.Fatal(err)
	}
	if !copiedMatches(h, "sk-value") || copiedMatches(h, "sk-other") || copiedMatches(h, "") {
		t.Fatalf("digest %q does not tell its value from others", h)
	}
	if again, _ := hashCopied("sk-value"); again == h {
		t.Errorf("two digests of one value are equal (no salt): %q", h)
	}
	parts := strings.Split(h, "$")
	for _, bad := range []string{
		"",
		"sk-value",
		strings.Join([]string{"sha256", parts[1], parts[2], parts[3]}, "$"),
		strings.Join([]string{parts[0], "2000000000", parts[2], parts[3]}, "$"),
		strings.Join([]string{parts[0], "1", parts[2], parts[3]}, "$"),
		strings.Join([]string{parts[0], parts[1], "", parts[3]}, "$"),
		strings.Join([]string{parts[0], parts[1], parts[2], parts[3][:10]}, "$"),
		strings.Join([]string{parts[0], parts[1], "!!", parts[3]}, "$"),
		h + "$x",
	} {
		if copiedMatches(bad, "sk-value") {
			t.Errorf("record %q matched", bad)
		}
	}
}
