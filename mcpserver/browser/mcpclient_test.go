package browser_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// mcpProc is an MCP server subprocess spoken to over stdio JSON-RPC
// (newline-delimited), as codex and Claude Code do: our own server (the
// test binary re-executed) or Playwright MCP for the benchmark.
type mcpProc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	mu     sync.Mutex
	nextID int
}

func startMCP(t testing.TB, cmd *exec.Cmd) *mcpProc {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if testing.Verbose() == false {
		cmd.Stderr = io.Discard
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	p := &mcpProc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	t.Cleanup(p.stop)
	if _, err := p.request("initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "hermes-browser-test", "version": "0"},
	}, 60*time.Second); err != nil {
		t.Fatalf("initialize %s: %v", cmd.Path, err)
	}
	if err := p.notify("notifications/initialized"); err != nil {
		t.Fatal(err)
	}
	return p
}

// selfServer re-executes the test binary as our MCP server.
func selfServer(t testing.TB, home string) *mcpProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serveEnv+"=1", "HERMES_HOME="+home)
	return startMCP(t, cmd)
}

func (p *mcpProc) stop() {
	_ = p.in.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

func (p *mcpProc) notify(method string) error {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	_, err := p.in.Write(append(b, '\n'))
	return err
}

// request sends one request and reads until its response, skipping
// notifications (logs, progress) the server sends meanwhile.
func (p *mcpProc) request(method string, params any, timeout time.Duration) (json.RawMessage, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.nextID++
	id := p.nextID
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	type reply struct {
		raw json.RawMessage
		err error
	}
	ch := make(chan reply, 1)
	go func() {
		for {
			line, err := p.out.ReadBytes('\n')
			if err != nil {
				ch <- reply{err: fmt.Errorf("read: %w", err)}
				return
			}
			var msg struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &msg) != nil || msg.ID == nil || *msg.ID != id {
				continue
			}
			if msg.Error != nil {
				ch <- reply{err: fmt.Errorf("%s: %s", method, msg.Error)}
				return
			}
			ch <- reply{raw: msg.Result}
			return
		}
	}()
	select {
	case r := <-ch:
		return r.raw, r.err
	case <-time.After(timeout):
		return nil, fmt.Errorf("%s: no reply within %s", method, timeout)
	}
}

// callTool runs tools/call and returns the text of its content and
// whether the server marked it an error.
func (p *mcpProc) callTool(name string, args any) (string, bool, error) {
	raw, err := p.request("tools/call", map[string]any{"name": name, "arguments": args}, 90*time.Second)
	if err != nil {
		return "", false, err
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", false, err
	}
	text := ""
	for _, c := range res.Content {
		if c.Type == "text" {
			text += c.Text
		}
	}
	return text, res.IsError, nil
}
