package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/mcpserver"
)

// TestToolTableCellsAreWholeSentences checks the rule on every tool the
// server declares: a README cell never stops inside brackets, quotes or
// code, and it is the description's first sentence or all of it.
func TestToolTableCellsAreWholeSentences(t *testing.T) {
	toolsets := builtinToolsets(t, t.TempDir())
	descriptions := map[string]string{}
	for _, ts := range toolsets {
		for _, tool := range ts.Tools {
			descriptions[tool.Name] = strings.ReplaceAll(strings.Join(strings.Fields(tool.Description), " "), "|", `\|`)
		}
	}
	rows := strings.Split(strings.TrimSpace(mcpserver.MarkdownToolTable(toolsets)), "\n")[2:]
	if len(rows) != len(descriptions) {
		t.Fatalf("table has %d rows for %d tools", len(rows), len(descriptions))
	}
	for _, row := range rows {
		row = strings.TrimSuffix(row, " |")
		name := strings.Trim(strings.SplitN(row, " | ", 2)[0], "|` ")
		cell := row[strings.LastIndex(row, " | ")+3:]
		whole := descriptions[name]
		if !strings.HasPrefix(whole, cell) {
			t.Errorf("%s: cell %q is not the start of the description", name, cell)
			continue
		}
		if strings.Count(cell, "(") != strings.Count(cell, ")") || strings.Count(cell, "[") != strings.Count(cell, "]") ||
			strings.Count(cell, "`")%2 != 0 || strings.Count(cell, `"`)%2 != 0 {
			t.Errorf("%s: cell is cut inside brackets, quotes or code: %q", name, cell)
		}
		if cell != whole && !strings.HasSuffix(cell, ".") && !strings.HasSuffix(cell, "!") && !strings.HasSuffix(cell, "?") {
			t.Errorf("%s: cell does not end a sentence: %q", name, cell)
		}
	}
}
