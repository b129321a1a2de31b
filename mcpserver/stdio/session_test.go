package stdio

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// Streams that share a Session share its calls in flight: an id in use on
// one is refused on another, a notifications/cancelled on one cancels the
// call running on another (which then gets no response), and the session
// is the owner's to register, so Serve leaves it alone.
func TestStreamsShareASession(t *testing.T) {
	started := make(chan struct{}, 1)
	ended := make(chan error, 1)
	srv := newTestServer(tool("block", func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, ctx.Err()
	}))
	sess := NewSession("shared-1")
	a := startServeWith(t, context.Background(), srv, Options{Session: sess})
	b := startServeWith(t, context.Background(), srv, Options{Session: sess})
	a.send(initLine)
	a.untilID(`"init"`)
	if !sess.Initialized() || sess.ProtocolVersion() == "" {
		t.Fatal("initialize on one stream did not reach the shared session")
	}
	if err := srv.SendNotificationToSpecificClient(sess.SessionID(), "x", nil); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("Serve registered a session it does not own: %v", err)
	}
	a.send(callLine(7, "block", ""))
	<-started
	b.send(`{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n")
	if _, resp := b.untilID("7"); !strings.Contains(string(resp), "already in use") {
		t.Errorf("id in use on another stream: %s", resp)
	}
	b.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}` + "\n")
	if err := <-ended; err == nil {
		t.Fatal("call not cancelled from the other stream")
	}
	a.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}` + "\n")
	if before, _ := a.untilID(`"after"`); len(before) != 0 {
		t.Errorf("the cancelled call was answered: %s", before)
	}
	// CancelAll ends whatever runs on any stream.
	b.send(callLine(8, "block", ""))
	<-started
	sess.CancelAll()
	if err := <-ended; err == nil {
		t.Fatal("CancelAll did not cancel the call")
	}
}
