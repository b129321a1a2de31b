package clientsync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/golden"
	"github.com/hermes-go/hermes/internal/unidiff"
)

const (
	clientTableBegin = "<!-- client table: generated from configmigrate/clientsync's client table; run make docs -->"
	clientTableEnd   = "<!-- end client table -->"
)

// TestReadmeClientTable fails when docs/hermes-migrate.md's client table no longer
// matches the client table in code; make docs rewrites it.
func TestReadmeClientTable(t *testing.T) {
	readme := filepath.Join("..", "..", "docs", "hermes-migrate.md")
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, clientTableBegin)
	j := strings.Index(text, clientTableEnd)
	if i < 0 || j < i {
		t.Fatalf("docs/hermes-migrate.md lacks the client table markers %q ... %q", clientTableBegin, clientTableEnd)
	}
	want := MarkdownClientTable()
	got := text[i+len(clientTableBegin) : j]
	if got == want {
		return
	}
	if golden.Update() {
		text = text[:i+len(clientTableBegin)] + want + text[j:]
		if err := os.WriteFile(readme, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/hermes-migrate.md client table is out of date; run `%s`\n%s", golden.Command, unidiff.Diff("docs/hermes-migrate.md", "client table", []byte(got), []byte(want)))
}
