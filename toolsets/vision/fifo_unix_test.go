//go:build unix

package vision

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
)

// A FIFO given as the image path is refused at once, by name; the call
// never waits for a writer. Were it to block, the test unblocks the open
// itself (a writer that closes at once) and fails.
func TestVisionRefusesAFIFO(t *testing.T) {
	fake := fakeapis.Start(t)
	fifo := filepath.Join(t.TempDir(), "shot.png")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	f := mediatest.NewFixture(t, fake, mediatest.OpenAIEnv(fake), visionConfig)
	tl := mediatest.OnlyTool(t, Toolset(f.Opts))
	type result struct {
		out   map[string]any
		isErr bool
	}
	done := make(chan result, 1)
	go func() {
		out, res := mediatest.Call(t, context.Background(), tl, map[string]any{"image_url": fifo, "question": "What is it?"})
		done <- result{out, res.IsError}
	}()
	select {
	case r := <-done:
		msg, _ := r.out["error"].(string)
		if !r.isErr || !strings.Contains(msg, fifo) || !strings.Contains(msg, "FIFO") {
			t.Errorf("result %v; want an error naming %s as a FIFO", r.out, fifo)
		}
	case <-time.After(10 * time.Second):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatal("vision_analyze blocked on a FIFO")
	}
}
