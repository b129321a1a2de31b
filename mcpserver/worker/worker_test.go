package worker_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/mcpserver/tooldef"
	"github.com/hermes-go/hermes/mcpserver/worker"
)

// The test binary doubles as the worker: with HERMES_WORKER_TEST=serve it
// serves testTools over stdio, as hermes-tools-worker serves the real ones.
func TestMain(m *testing.M) {
	switch os.Getenv("HERMES_WORKER_TEST") {
	case "serve":
		os.Exit(serveTestWorker())
	case "stuck":
		// Answers initialize, then never reads again.
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal([]byte(line), &req)
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"stuck","version":"1"}}}`+"\n", req.ID)
		time.Sleep(time.Hour)
		os.Exit(0)
	case "mute":
		// Never answers initialize.
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func serveTestWorker() int {
	reg, err := mcpserver.NewRegistry(testTools())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	plan, err := reg.Resolve(mcpserver.Selection{Toolsets: []string{mcpserver.SelectAll}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Fprintln(os.Stderr, "test worker ready")
	if err := mcpserver.New(mcpserver.Options{Version: "test", Plan: plan}).ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

const object = `{"type":"object","properties":{"text":{"type":"string"},"marker":{"type":"string"}},"additionalProperties":false}`

func testTools() tooldef.Toolset {
	tool := func(name string, out string, h tooldef.Handler) tooldef.Tool {
		t := tooldef.Tool{Name: name, Description: name, InputSchema: json.RawMessage(object), Handler: h,
			Hints: tooldef.Hints{ReadOnly: true, Idempotent: true}}
		if out != "" {
			t.OutputSchema = json.RawMessage(out)
		}
		return t
	}
	type args struct{ Text, Marker string }
	decode := func(raw json.RawMessage) args {
		a, _ := tooldef.DecodeArgs[args](raw)
		return a
	}
	return tooldef.Toolset{Name: "test", Description: "tools for the worker tests", Tools: []tooldef.Tool{
		tool("structured", `{"type":"object"}`, func(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
			return tooldef.OK(map[string]any{"success": true, "echo": decode(raw).Text, "html": "<b>&</b>"}), nil
		}),
		tool("plain", "", func(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
			return tooldef.OK("plain " + decode(raw).Text), nil
		}),
		tool("failing", `{"type":"object"}`, func(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
			return tooldef.Errorf("no such page: %s", decode(raw).Text), nil
		}),
		tool("picture", "", func(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
			return tooldef.Result{Value: "a picture", Images: []tooldef.Image{{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, 1, 2}}}}, nil
		}),
		tool("progress", "", func(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
			for i := 1; i <= 3; i++ {
				tooldef.ReportProgress(ctx, float64(i), 3, fmt.Sprintf("step %d", i))
			}
			return tooldef.OK("done"), nil
		}),
		tool("block", "", func(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
			// Records that the worker saw the cancellation.
			<-ctx.Done()
			os.WriteFile(decode(raw).Marker, []byte("cancelled"), 0o600)
			return tooldef.OK("cancelled"), nil
		}),
		tool("crash", "", func(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
			fmt.Fprintln(os.Stderr, "about to crash: "+decode(raw).Text)
			os.Exit(3)
			return tooldef.Result{}, nil
		}),
		tool("pid", "", func(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
			return tooldef.OK(fmt.Sprint(os.Getpid())), nil
		}),
	}}
}

func newClient(t *testing.T) *worker.Client {
	t.Helper()
	return newClientMode(t, "serve", 0)
}

func newClientMode(t *testing.T, mode string, closeTimeout time.Duration) *worker.Client {
	t.Helper()
	c := worker.New(worker.Config{
		Path:         os.Args[0],
		Env:          append(os.Environ(), "HERMES_WORKER_TEST="+mode),
		CloseTimeout: closeTimeout,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// within fails t unless fn returns within d.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

func TestCallReturnsWhatTheToolReturned(t *testing.T) {
	c := newClient(t)
	tests := []struct {
		tool string
		want tooldef.Result
	}{
		{"structured", tooldef.Result{Value: json.RawMessage(`{"echo":"hi","html":"<b>&</b>","success":true}`)}},
		{"plain", tooldef.Result{Value: "plain hi"}},
		{"failing", tooldef.Result{Value: `{"error":"no such page: hi","success":false}`, IsError: true}},
		{"picture", tooldef.Result{Value: "a picture", Images: []tooldef.Image{{MIMEType: "image/png", Data: []byte{0x89, 'P', 'N', 'G', 0, 1, 2}}}}},
	}
	for _, tt := range tests {
		got, err := c.Call(context.Background(), tt.tool, json.RawMessage(`{"text":"hi"}`))
		if err != nil {
			t.Fatalf("%s: %v", tt.tool, err)
		}
		if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", tt.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", tt.tool, got, tt.want)
		}
	}
}

func TestInvalidArgumentsAreTheWorkersToReport(t *testing.T) {
	c := newClient(t)
	got, err := c.Call(context.Background(), "plain", json.RawMessage(`{"text":5}`))
	if err != nil || !got.IsError || !strings.Contains(fmt.Sprint(got.Value), `argument "text" must be a string`) {
		t.Fatalf("got %#v, %v", got, err)
	}
	if _, err := c.Call(context.Background(), "nonexistent", nil); err == nil || !strings.Contains(err.Error(), "nonexistent") {
		t.Fatalf("unknown tool: %v", err)
	}
}

func TestProgressIsRelayedBeforeTheResult(t *testing.T) {
	c := newClient(t)
	var mu sync.Mutex
	var got []string
	ctx := tooldef.WithProgress(context.Background(), func(done, total float64, msg string) {
		mu.Lock()
		got = append(got, fmt.Sprintf("%g/%g %s", done, total, msg))
		mu.Unlock()
	})
	res, err := c.Call(ctx, "progress", nil)
	if err != nil || res.Value != "done" {
		t.Fatalf("got %#v, %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"1/3 step 1", "2/3 step 2", "3/3 step 3"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("progress = %q, want %q (all of it before the result)", got, want)
	}
	// Without a reporter nothing is asked of the worker and nothing breaks.
	if _, err := c.Call(context.Background(), "progress", nil); err != nil {
		t.Fatal(err)
	}
}

func TestCancellationReachesTheWorker(t *testing.T) {
	c := newClient(t)
	marker := filepath.Join(t.TempDir(), "cancelled")
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, "block", json.RawMessage(fmt.Sprintf(`{"marker":%q}`, marker)))
		errc <- err
	}()
	// Wait until the call is running in the worker: the worker answers
	// other calls meanwhile.
	if _, err := c.Call(context.Background(), "plain", nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call returned %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(marker); err == nil && string(b) == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker's handler never saw the cancellation")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCrashedWorkerFailsItsCallsAndIsRestarted(t *testing.T) {
	c := newClient(t)
	first, err := c.Call(context.Background(), "pid", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Call(context.Background(), "crash", json.RawMessage(`{"text":"boom"}`))
	if err == nil || !strings.Contains(err.Error(), "hermes-tools-worker exited (exit status 3)") || !strings.Contains(err.Error(), "about to crash: boom") {
		t.Fatalf("call into a crashing worker: %v", err)
	}
	second, err := c.Call(context.Background(), "pid", nil)
	if err != nil {
		t.Fatalf("call after the crash: %v", err)
	}
	if first.Value == second.Value {
		t.Errorf("the worker was not restarted (pid %v both times)", first.Value)
	}
}

func TestConcurrentCalls(t *testing.T) {
	c := newClient(t)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Go(func() {
			text := fmt.Sprint(i)
			res, err := c.Call(context.Background(), "plain", json.RawMessage(fmt.Sprintf(`{"text":%q}`, text)))
			if err != nil {
				errs <- err
			} else if res.Value != "plain "+text {
				errs <- fmt.Errorf("call %d got %v", i, res.Value)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCloseEndsTheWorker(t *testing.T) {
	c := newClient(t)
	res, err := c.Call(context.Background(), "pid", nil)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscan(res.Value.(string), &pid)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("worker %d still exists after Close (kill -0: %v)", pid, err)
	}
	if _, err := c.Call(context.Background(), "pid", nil); !errors.Is(err, worker.ErrClosed) {
		t.Errorf("call after Close: %v", err)
	}
}

func TestMissingWorkerSaysHowToInstallIt(t *testing.T) {
	why := errors.New("hermes-tools-worker not found; install it")
	c := worker.New(worker.Config{Unavailable: why})
	if _, err := c.Call(context.Background(), "plain", nil); !errors.Is(err, why) {
		t.Fatalf("got %v", err)
	}
	c = worker.New(worker.Config{Path: filepath.Join(t.TempDir(), "missing")})
	if _, err := c.Call(context.Background(), "plain", nil); err == nil || !strings.Contains(err.Error(), "start hermes-tools-worker") {
		t.Fatalf("got %v", err)
	}
}

// A worker that stops reading its input cannot hold up a cancelled call or
// Close: the blocked write is abandoned and the worker killed.
func TestStuckWorkerDoesNotHoldUpCancelOrClose(t *testing.T) {
	c := newClientMode(t, "stuck", 300*time.Millisecond)
	big := json.RawMessage(fmt.Sprintf(`{"text":%q}`, strings.Repeat("x", 1<<20))) // more than a pipe holds
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	within(t, 5*time.Second, "a call to a worker that stopped reading", func() {
		if _, err := c.Call(ctx, "plain", big); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("call returned %v, want its deadline", err)
		}
	})
	within(t, 5*time.Second, "Close", func() { c.Close() })
}

// A worker that never finishes its handshake cannot hold up callers (each
// waits only as long as its ctx) or Close, and is not left running.
func TestMuteWorkerDoesNotHoldUpCallersOrClose(t *testing.T) {
	c := newClientMode(t, "mute", 300*time.Millisecond)
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		within(t, 5*time.Second, "a call while the worker starts", func() {
			if _, err := c.Call(ctx, "plain", nil); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("call returned %v, want its deadline", err)
			}
		})
		cancel()
	}
	within(t, 5*time.Second, "Close during the handshake", func() { c.Close() })
	if _, err := c.Call(context.Background(), "plain", nil); !errors.Is(err, worker.ErrClosed) {
		t.Errorf("call after Close: %v", err)
	}
}
