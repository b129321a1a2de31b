package bridge

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) != "" {
		os.Exit(runFake())
	}
	code := m.Run()
	if code == 0 {
		if leaks := leakedGoroutines(5 * time.Second); leaks != "" {
			fmt.Fprintf(os.Stderr, "bridge: goroutines left running after all tests:\n%s\n", leaks)
			code = 1
		}
	}
	os.Exit(code)
}

// leakedGoroutines returns the stacks of goroutines running code from this
// package or jsonrpc2, other than test goroutines, waiting up to wait for
// them to finish. It is a dependency-free stand-in for goleak.
func leakedGoroutines(wait time.Duration) string {
	deadline := time.Now().Add(wait)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var leaks []string
		for i, g := range strings.Split(string(buf), "\n\n") {
			if i == 0 { // the caller
				continue
			}
			if strings.Contains(g, "testing.tRunner") || strings.Contains(g, "testing.(*M)") {
				continue
			}
			if strings.Contains(g, "hermes-go/hermes/bridge.") || strings.Contains(g, "sourcegraph/jsonrpc2") {
				leaks = append(leaks, g)
			}
		}
		if len(leaks) == 0 || time.Now().After(deadline) {
			return strings.Join(leaks, "\n\n")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkNoLeaks fails t if client goroutines are still running. Only for tests
// that do not run in parallel with other clients.
func checkNoLeaks(t *testing.T) {
	t.Helper()
	if leaks := leakedGoroutines(2 * time.Second); leaks != "" {
		t.Errorf("goroutines left running:\n%s", leaks)
	}
}

// testLogger sends slog output to t.Log until the test ends; later lines (a
// bug in itself) go nowhere instead of panicking the test binary.
func testLogger(t testing.TB) *slog.Logger {
	w := &testWriter{t: t}
	t.Cleanup(w.stop) // registered first, so it runs after every other cleanup
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct {
	mu   sync.Mutex
	t    testing.TB
	done bool
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

func (w *testWriter) stop() {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
}

var _ io.Writer = (*testWriter)(nil)

// startFake starts the test binary as a fake codex in the given mode.
func startFake(t *testing.T, mode string, mod func(*Config)) *Client {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Binary: exe,
		// Under -race the fake would otherwise sleep 1 s at exit
		// (atexit_sleep_ms), which the shutdown tests would see.
		Env: append(os.Environ(), fakeEnv+"=1", fakeModeEnv+"="+mode, "CODEX_HOME=/fake/codex-home",
			"GORACE=atexit_sleep_ms=0"),
		Logger:        testLogger(t),
		ShutdownGrace: 2 * time.Second,
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func waitDone(t *testing.T, c *Client, d time.Duration) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(d):
		t.Fatalf("Done not closed within %v", d)
	}
}
