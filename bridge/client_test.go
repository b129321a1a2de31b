//go:build unix

package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCallParams(t *testing.T) {
	c := startFake(t, "", nil)
	tests := []struct {
		name   string
		params any
		want   string
	}{
		{"nil is sent as an empty object", nil, `{}`},
		{"map", map[string]any{"cwds": []string{"/a"}}, `{"cwds":["/a"]}`},
		{"struct", struct {
			ThreadID string `json:"threadId"`
		}{"t1"}, `{"threadId":"t1"}`},
		{"raw", json.RawMessage(`{"x":[1,2]}`), `{"x":[1,2]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got json.RawMessage
			if err := c.Call(ctxT(t, 5*time.Second), "echo", tt.params, &got); err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("echo(%v) = %s, want %s", tt.params, got, tt.want)
			}
		})
	}
	if err := c.Call(ctxT(t, 5*time.Second), "echo", nil, nil); err != nil {
		t.Errorf("Call with nil result: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	checkNoLeaks(t)
}

func TestInitialize(t *testing.T) {
	notes := make(chan Notification, 10)
	c := startFake(t, "", func(cfg *Config) {
		cfg.OnNotification = func(n Notification) { notes <- n }
	})
	ctx := ctxT(t, 5*time.Second)
	res, err := c.Initialize(ctx, ClientInfo{Name: "hermes-test", Title: "Hermes", Version: "1.0"},
		Capabilities{ExperimentalAPI: true, OptOutNotificationMethods: []string{"configWarning"}})
	if err != nil {
		t.Fatal(err)
	}
	want := InitializeResult{UserAgent: "fake/0.169.0", CodexHome: "/fake/codex-home", PlatformFamily: "unix", PlatformOS: "linux"}
	if res != want {
		t.Errorf("Initialize = %+v, want %+v", res, want)
	}
	select {
	case n := <-notes:
		if n.Method != "remoteControl/status/changed" || string(n.Params) != `{"status":"disabled"}` || n.EmittedAtMs != 1795348088366 {
			t.Errorf("notification = %+v", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notification after initialize")
	}
	if _, err := c.Initialize(ctx, ClientInfo{Name: "x", Version: "1"}, Capabilities{}); err == nil {
		t.Error("second Initialize succeeded")
	}

	// The fake records what it received: the initialized notification with
	// params {}, and our own notification.
	if err := c.Notify(ctx, "custom/ping", map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	var seen []string
	if err := c.Call(ctx, "seen", nil, &seen); err != nil {
		t.Fatal(err)
	}
	if want := []string{"initialized {}", `custom/ping {"n":1}`}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("fake saw notifications %q, want %q", seen, want)
	}
}

func TestNotificationsInOrder(t *testing.T) {
	const n = 2000
	var (
		mu     sync.Mutex
		deltas []string
		all    = make(chan struct{})
	)
	c := startFake(t, "", func(cfg *Config) {
		cfg.OnNotification = func(note Notification) {
			var p struct {
				Delta string `json:"delta"`
			}
			if err := json.Unmarshal(note.Params, &p); err != nil {
				t.Errorf("params %s: %v", note.Params, err)
			}
			mu.Lock()
			deltas = append(deltas, p.Delta)
			if len(deltas) == n {
				close(all)
			}
			mu.Unlock()
		}
	})
	var res struct{ Sent int }
	if err := c.Call(ctxT(t, 10*time.Second), "notify", map[string]int{"count": n}, &res); err != nil {
		t.Fatal(err)
	}
	select {
	case <-all:
	case <-time.After(10 * time.Second):
		t.Fatalf("only %d of %d notifications delivered", len(deltas), n)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, d := range deltas {
		if d != strconv.Itoa(i) {
			t.Fatalf("notification %d carries delta %q: out of order", i, d)
		}
	}
}

// askReply is what the fake's "ask" method returns: our reply to its
// server request, verbatim.
type askReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func TestServerRequestCollidingID(t *testing.T) {
	type toolResult struct {
		ContentItems []map[string]string `json:"contentItems"`
		Success      bool                `json:"success"`
	}
	var c *Client
	got := make(chan *ServerRequest, 1)
	c = startFake(t, "", func(cfg *Config) {
		cfg.OnRequest = RequestMux{
			"item/tool/call": func(ctx context.Context, req *ServerRequest) (any, error) {
				got <- req
				// A handler may call back into the client: it does not run
				// on the read loop, so the answer can arrive.
				var echo json.RawMessage
				if err := c.Call(ctx, "echo", map[string]string{"from": "handler"}, &echo); err != nil {
					return nil, err
				}
				return toolResult{ContentItems: []map[string]string{{"type": "inputText", "text": string(echo)}}, Success: true}, nil
			},
		}.Handle
	})
	// Our first request has id 0, and so has the fake's first server
	// request, sent while ours is pending.
	var r askReply
	if err := c.Call(ctxT(t, 10*time.Second), "ask", map[string]string{"method": "item/tool/call"}, &r); err != nil {
		t.Fatal(err)
	}
	req := <-got
	if req.ID != "0" || req.Method != "item/tool/call" || !strings.Contains(string(req.Params), `"callId":"call_1"`) {
		t.Errorf("server request = %+v", req)
	}
	if string(r.ID) != "0" || r.Error != nil {
		t.Fatalf("reply = %+v", r)
	}
	var tr toolResult
	if err := json.Unmarshal(r.Result, &tr); err != nil {
		t.Fatal(err)
	}
	if !tr.Success || len(tr.ContentItems) != 1 || tr.ContentItems[0]["text"] != `{"from":"handler"}` {
		t.Errorf("reply result = %s", r.Result)
	}
}

func TestServerRequestErrors(t *testing.T) {
	tests := []struct {
		name     string
		handler  RequestHandler
		wantCode int64
		wantMsg  string
	}{
		{name: "no handler", handler: nil, wantCode: CodeMethodNotFound, wantMsg: "method not found: mystery/method"},
		{name: "mux without the method", handler: RequestMux{"other": nil}.Handle, wantCode: CodeMethodNotFound, wantMsg: "method not found: mystery/method"},
		{name: "handler wraps ErrMethodNotFound", handler: func(context.Context, *ServerRequest) (any, error) {
			return nil, fmt.Errorf("nope: %w", ErrMethodNotFound)
		}, wantCode: CodeMethodNotFound, wantMsg: "method not found: mystery/method"},
		{name: "RPCError keeps its code", handler: func(context.Context, *ServerRequest) (any, error) {
			return nil, &RPCError{Code: -32000, Message: "denied by policy"}
		}, wantCode: -32000, wantMsg: "denied by policy"},
		{name: "plain error is internal", handler: func(context.Context, *ServerRequest) (any, error) {
			return nil, errors.New("disk on fire")
		}, wantCode: CodeInternalError, wantMsg: "disk on fire"},
		{name: "panic is internal", handler: func(context.Context, *ServerRequest) (any, error) {
			panic("bug")
		}, wantCode: CodeInternalError, wantMsg: "handler for mystery/method panicked"},
		{name: "unmarshallable result", handler: func(context.Context, *ServerRequest) (any, error) {
			return func() {}, nil
		}, wantCode: CodeInternalError, wantMsg: "marshal result of mystery/method"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startFake(t, "", func(cfg *Config) { cfg.OnRequest = tt.handler })
			var r askReply
			if err := c.Call(ctxT(t, 10*time.Second), "ask", map[string]string{"method": "mystery/method"}, &r); err != nil {
				t.Fatal(err)
			}
			if r.Error == nil {
				t.Fatalf("reply has no error: %+v", r)
			}
			if r.Error.Code != tt.wantCode || !strings.HasPrefix(r.Error.Message, tt.wantMsg) {
				t.Errorf("error reply = %d %q, want %d %q", r.Error.Code, r.Error.Message, tt.wantCode, tt.wantMsg)
			}
			// The connection is still fine afterwards.
			if err := c.Call(ctxT(t, 5*time.Second), "echo", nil, nil); err != nil {
				t.Errorf("echo after error reply: %v", err)
			}
		})
	}
}

func TestRPCErrorIsRedacted(t *testing.T) {
	c := startFake(t, "", nil)
	err := c.Call(ctxT(t, 5*time.Second), "no/such/method", nil, nil)
	var rerr *RPCError
	if !errors.As(err, &rerr) {
		t.Fatalf("error %v (%T) is not an *RPCError", err, err)
	}
	if rerr.Code != CodeInvalidRequest || rerr.Method != "no/such/method" {
		t.Errorf("RPCError = %+v", rerr)
	}
	if strings.Contains(err.Error(), fakeSecret) || !strings.Contains(err.Error(), "unknown variant `no/such/method`") {
		t.Errorf("error text %q: secret not redacted or message lost", err)
	}
}

func TestMalformedLineFailsConnection(t *testing.T) {
	c := startFake(t, "", nil)
	pid := c.PID()
	err := c.Call(ctxT(t, 10*time.Second), "garbage", nil, nil)
	waitDone(t, c, 5*time.Second)
	var te *TerminatedError
	if !errors.As(c.Err(), &te) || !strings.Contains(te.Error(), "protocol error") || !strings.Contains(te.Error(), "invalid character") {
		t.Fatalf("Err = %v, want a protocol error", c.Err())
	}
	if !errors.As(err, &te) {
		t.Errorf("pending Call returned %v, want it to carry the TerminatedError", err)
	}
	if err := c.Call(ctxT(t, time.Second), "echo", nil, nil); !errors.As(err, &te) {
		t.Errorf("Call after failure = %v", err)
	}
	// The broken connection closed codex's stdin, so codex exits 0.
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if !errors.As(c.Err(), &te) {
		t.Errorf("Err changed after Close to %v", c.Err())
	}
	checkReaped(t, pid)
	checkNoLeaks(t)
}

func TestChildKilled(t *testing.T) {
	c := startFake(t, "", nil)
	pid := c.PID()
	if err := c.Call(ctxT(t, 5*time.Second), "stderr", map[string]int{"lines": 3}, nil); err != nil {
		t.Fatal(err)
	}
	killChild(t, pid)
	waitDone(t, c, 5*time.Second)
	var te *TerminatedError
	if !errors.As(c.Err(), &te) {
		t.Fatalf("Err = %v, want *TerminatedError", c.Err())
	}
	if !te.Exited || te.ExitCode != -1 || !strings.Contains(te.Error(), "signal: killed") {
		t.Errorf("TerminatedError = %+v", te)
	}
	if !strings.Contains(te.Stderr, "line 2 OPENAI_API_KEY=") || strings.Contains(te.Stderr, fakeSecret) || strings.Contains(te.Stderr, "\x1b[") {
		t.Errorf("stderr tail %q: want last lines, redacted, without colour codes", te.Stderr)
	}
	err := c.Call(ctxT(t, 5*time.Second), "echo", nil, nil)
	if !errors.As(err, &te) {
		t.Errorf("Call after death = %v", err)
	}
	if err := c.Close(); err == nil {
		t.Error("Close returned nil for a killed child")
	}
	checkReaped(t, pid)
	checkNoLeaks(t)
}

func TestChildCrashesDuringCall(t *testing.T) {
	c := startFake(t, "", nil)
	err := c.Call(ctxT(t, 10*time.Second), "crash", nil, nil)
	var te *TerminatedError
	if !errors.As(err, &te) {
		t.Fatalf("Call = %v, want a *TerminatedError", err)
	}
	if te.ExitCode != fakeExitCode || !strings.Contains(te.Stderr, "panicked: boom") || strings.Contains(err.Error(), fakeSecret) {
		t.Errorf("error = %v", err)
	}
	if !strings.HasPrefix(err.Error(), "codex app-server crash: codex app-server exited: exit status 3") {
		t.Errorf("error text = %q", err)
	}
}

func TestCloseEscalation(t *testing.T) {
	const grace = 300 * time.Millisecond
	tests := []struct {
		mode    string
		wantErr string // empty: Close returns nil
		minTime time.Duration
	}{
		{mode: "", wantErr: ""},
		{mode: "termable", wantErr: "sent SIGTERM", minTime: grace},
		{mode: "stubborn", wantErr: "sent SIGKILL", minTime: 2 * grace},
	}
	for _, tt := range tests {
		t.Run("mode="+tt.mode, func(t *testing.T) {
			c := startFake(t, tt.mode, func(cfg *Config) { cfg.ShutdownGrace = grace })
			// A live connection first, so the fake is past start-up (and has
			// installed its signal disposition).
			if err := c.Call(ctxT(t, 5*time.Second), "echo", nil, nil); err != nil {
				t.Fatal(err)
			}
			pid := c.PID()
			start := time.Now()
			err := c.Close()
			elapsed := time.Since(start)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Close = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Close = %v, want %q", err, tt.wantErr)
			}
			if elapsed < tt.minTime || elapsed > tt.minTime+2*time.Second {
				t.Errorf("Close took %v, want about %v", elapsed, tt.minTime)
			}
			if !errors.Is(c.Err(), ErrClosed) {
				t.Errorf("Err = %v, want ErrClosed", c.Err())
			}
			checkReaped(t, pid)
			checkNoLeaks(t)
		})
	}
}

func TestCloseConcurrentAndIdempotent(t *testing.T) {
	c := startFake(t, "", nil)
	// A call in flight when Close starts fails with ErrClosed.
	callErr := make(chan error, 1)
	go func() { callErr <- c.Call(context.Background(), "sleep", map[string]int{"ms": 5000}, nil) }()
	time.Sleep(50 * time.Millisecond)

	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.Close()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Close #%d = %v", i, err)
		}
	}
	if err := <-callErr; !errors.Is(err, ErrClosed) {
		t.Errorf("in-flight Call = %v, want ErrClosed", err)
	}
	if err := c.Call(context.Background(), "echo", nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Call after Close = %v, want ErrClosed", err)
	}
	if err := c.Notify(context.Background(), "x", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Notify after Close = %v, want ErrClosed", err)
	}
	checkNoLeaks(t)
}

func TestCallContextCancel(t *testing.T) {
	c := startFake(t, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Call(ctx, "sleep", map[string]int{"ms": 2000}, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Call returned after %v", d)
	}
	// The client is still usable, and the abandoned call's late response is
	// harmless.
	var got json.RawMessage
	if err := c.Call(ctxT(t, 5*time.Second), "echo", map[string]int{"after": 1}, &got); err != nil || string(got) != `{"after":1}` {
		t.Errorf("echo after cancel = %s, %v", got, err)
	}
	if err := c.Notify(ctx, "late", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Notify with expired ctx = %v", err)
	}
}

func TestStderrTail(t *testing.T) {
	c := startFake(t, "", func(cfg *Config) {
		cfg.StderrLines = 50
		cfg.Logger = nil // 1000 debug lines would only slow the test down
	})
	if err := c.Call(ctxT(t, 5*time.Second), "stderr", map[string]int{"lines": 1000}, nil); err != nil {
		t.Fatal(err)
	}
	var tail string
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		tail = c.StderrTail()
		if strings.Contains(tail, "line 999 ") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	lines := strings.Split(tail, "\n")
	if len(lines) != 50 || !strings.HasPrefix(lines[0], "line 950 ") || !strings.HasPrefix(lines[49], "line 999 ") {
		t.Fatalf("tail has %d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
	if strings.Contains(tail, fakeSecret) || strings.Contains(tail, "\x1b") {
		t.Errorf("tail not redacted or still coloured: %q", lines[0])
	}
}

func TestNotificationBacklogOverflow(t *testing.T) {
	release := make(chan struct{})
	c := startFake(t, "", func(cfg *Config) {
		cfg.MaxPendingNotifications = 10
		cfg.OnNotification = func(Notification) { <-release }
	})
	err := c.Call(ctxT(t, 10*time.Second), "notify", map[string]int{"count": 200}, nil)
	waitDone(t, c, 5*time.Second)
	if c.Err() == nil || !strings.Contains(c.Err().Error(), "subscriber is too slow") {
		t.Errorf("Err = %v", c.Err())
	}
	if err != nil && !strings.Contains(err.Error(), "too slow") {
		t.Errorf("Call = %v", err)
	}
	close(release)
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	checkNoLeaks(t)
}

func TestStartErrors(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		cfg  Config
		want string
	}{
		{"no binary", context.Background(), Config{}, "Config.Binary is empty"},
		{"missing binary", context.Background(), Config{Binary: "/nonexistent/codex"}, "no such file"},
		{"canceled", canceled, Config{Binary: "/bin/true"}, "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Start(tt.ctx, tt.cfg)
			if err == nil {
				c.Close()
				t.Fatal("Start succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Start = %v, want %q", err, tt.want)
			}
		})
	}
	checkNoLeaks(t)
}

func TestUnexpectedCleanExit(t *testing.T) {
	// /bin/true is not codex: it exits 0 at once. Done must close with an
	// explanation rather than hang.
	c, err := Start(context.Background(), Config{Binary: "/bin/true", Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, c, 5*time.Second)
	var te *TerminatedError
	if !errors.As(c.Err(), &te) || !te.Exited || te.ExitCode != 0 || te.Error() != "codex app-server exited with status 0" {
		t.Errorf("Err = %#v", c.Err())
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	checkNoLeaks(t)
}
