package todo

import (
	"testing"

	"github.com/hermes-go/hermes/mcpserver/todo/spec"
)

// Every declared tool has a handler here, and a name spec does not declare
// is a programming error that fails loudly rather than serving nil.
func TestHandlerBinding(t *testing.T) {
	k := &kit{}
	for _, tl := range Toolset(Options{Home: t.TempDir()}).Tools {
		if tl.Handler == nil {
			t.Errorf("%s has no handler", tl.Name)
		}
	}
	if k.handler(spec.ToolName) == nil {
		t.Errorf("no handler for %s", spec.ToolName)
	}
	defer func() {
		if recover() == nil {
			t.Error("binding an undeclared tool did not panic")
		}
	}()
	k.handler("todo_undeclared")
}
