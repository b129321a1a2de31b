package sessions

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/mcpserver/sessions/spec"
)

// TestBind: every tool spec declares gets this package's handler, and a
// name it does not implement is a loud programming error, not a nil
// handler that would fail on the first call.
func TestBind(t *testing.T) {
	ts := Toolset(Options{Home: t.TempDir()})
	for _, tl := range ts.Tools {
		if tl.Handler == nil {
			t.Errorf("%s has no handler", tl.Name)
		}
	}
	if len(ts.Tools) != 1 || ts.Tools[0].Name != spec.SearchTool {
		t.Errorf("tools = %+v", ts.Tools)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "no_such_tool") {
			t.Errorf("recover = %v, want a panic naming the tool", r)
		}
	}()
	(&kit{}).bind("no_such_tool")
}
