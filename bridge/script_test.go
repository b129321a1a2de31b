package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

// appServer is an app-server scripted from the test, reached through the relay
// child (relay_test.go). It answers initialize, thread/start, thread/resume,
// turn/start and turn/interrupt like codex 0.169.0, and runs onTurn for each
// turn; tests stage everything else from there.
type appServer struct {
	t  testing.TB
	ln net.Listener

	connMu sync.Mutex
	conn   net.Conn
	w      *bufio.Writer
	ready  chan struct{} // closed once a relay connected
	gone   chan struct{} // closed when the current relay hangs up

	mu       sync.Mutex
	nextID   int
	waiting  map[string]chan json.RawMessage
	calls    []scriptCall // client requests and notifications, in order
	turns    int
	current  *turnCtx
	closed   bool
	handlers map[string]func(id, params json.RawMessage) // override a method

	// onTurn runs on its own goroutine for every turn/start.
	onTurn func(tc *turnCtx)
	// ignoreInterrupt: turn/interrupt is acknowledged but the turn is
	// not ended (a wedged codex).
	ignoreInterrupt bool

	wg sync.WaitGroup
}

type scriptCall struct {
	Method string
	Params json.RawMessage
}

// turnCtx is one turn as the appServer sees it.
type turnCtx struct {
	s           *appServer
	ID          string
	ThreadID    string
	Params      json.RawMessage
	interrupted chan struct{}
	once        sync.Once
	gone        <-chan struct{} // closed when this turn's codex hangs up
}

func newAppServer(t testing.TB) *appServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &appServer{t: t, ln: ln, ready: make(chan struct{}), waiting: map[string]chan json.RawMessage{}, handlers: map[string]func(id, params json.RawMessage){}}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(s.close)
	return s
}

func (s *appServer) accept() {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		// A new relay (a restarted codex) replaces the old one.
		s.connMu.Lock()
		if s.conn != nil {
			_ = s.conn.Close()
		}
		s.conn, s.w = conn, bufio.NewWriter(conn)
		gone := make(chan struct{})
		s.gone = gone
		s.connMu.Unlock()
		select {
		case <-s.ready:
		default:
			close(s.ready)
		}
		s.wg.Add(1)
		go s.read(conn, gone)
	}
}

func (s *appServer) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	_ = s.ln.Close()
	s.connMu.Lock()
	if s.conn != nil {
		_ = s.conn.Close()
	}
	s.connMu.Unlock()
	s.wg.Wait()
}

// session makes a Session whose codex is the relay to this appServer.
func (s *appServer) session(t testing.TB, mod func(*SessionConfig)) *Session {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := SessionConfig{
		Codex: Config{
			Binary: exe,
			Env: append(os.Environ(), fakeEnv+"=1", fakeModeEnv+"=relay", relayAddrEnv+"="+s.ln.Addr().String(),
				"GORACE=atexit_sleep_ms=0"),
			Logger:        testLogger(t),
			ShutdownGrace: 2 * time.Second,
		},
		Cwd:              "/work/space",
		InterruptTimeout: 2 * time.Second,
	}
	if mod != nil {
		mod(&cfg)
	}
	sess, err := NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sess.Close() })
	return sess
}

type scriptMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

func (s *appServer) read(conn net.Conn, gone chan struct{}) {
	defer s.wg.Done()
	defer close(gone)
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var m scriptMsg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			s.t.Errorf("appServer: bad line from client: %q", sc.Bytes())
			continue
		}
		line := append(json.RawMessage(nil), sc.Bytes()...)
		switch {
		case m.Method == "": // a reply to a server request
			s.mu.Lock()
			ch := s.waiting[string(m.ID)]
			delete(s.waiting, string(m.ID))
			s.mu.Unlock()
			if ch != nil {
				ch <- line
			}
		default:
			s.mu.Lock()
			s.calls = append(s.calls, scriptCall{m.Method, m.Params})
			h := s.handlers[m.Method]
			s.mu.Unlock()
			if len(m.ID) == 0 {
				continue
			}
			if h != nil {
				h(m.ID, m.Params)
				continue
			}
			s.handle(m.ID, m.Method, m.Params)
		}
	}
	// The client hung up: fail what waits for it, and end the relay.
	s.mu.Lock()
	for id, ch := range s.waiting {
		close(ch)
		delete(s.waiting, id)
	}
	s.mu.Unlock()
	_ = conn.Close()
}

func (s *appServer) handle(id json.RawMessage, method string, params json.RawMessage) {
	switch method {
	case "initialize":
		s.reply(id, map[string]any{"userAgent": "appServer/0.169.0", "codexHome": "/fake", "platformFamily": "unix", "platformOs": "linux"})
	case "thread/start":
		s.reply(id, map[string]any{"thread": map[string]any{"id": "thr_1", "unknownField": 1}, "model": "fake"})
		s.notify("thread/started", map[string]any{"thread": map[string]any{"id": "thr_1"}})
	case "thread/resume":
		var p struct {
			ThreadID string `json:"threadId"`
		}
		_ = json.Unmarshal(params, &p)
		s.reply(id, map[string]any{"thread": map[string]any{"id": p.ThreadID}})
	case "turn/start":
		var p struct {
			ThreadID string `json:"threadId"`
		}
		_ = json.Unmarshal(params, &p)
		s.connMu.Lock()
		gone := s.gone
		s.connMu.Unlock()
		s.mu.Lock()
		s.turns++
		tc := &turnCtx{s: s, ID: "turn_" + strconv.Itoa(s.turns), ThreadID: p.ThreadID, Params: params, interrupted: make(chan struct{}), gone: gone}
		s.current = tc
		fn := s.onTurn
		s.mu.Unlock()
		s.reply(id, map[string]any{"turn": map[string]any{"id": tc.ID, "items": []any{}, "status": "inProgress", "error": nil}})
		if fn != nil {
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				tc.notify("turn/started", map[string]any{"threadId": tc.ThreadID, "turn": map[string]any{"id": tc.ID, "status": "inProgress"}})
				fn(tc)
			}()
		}
	case "turn/interrupt":
		s.mu.Lock()
		tc := s.current
		ignore := s.ignoreInterrupt
		s.mu.Unlock()
		if tc == nil {
			s.replyError(id, CodeInvalidRequest, "no active turn to interrupt")
			return
		}
		s.reply(id, map[string]any{})
		tc.once.Do(func() { close(tc.interrupted) })
		if !ignore {
			tc.complete("interrupted", nil)
		}
	default:
		s.replyError(id, CodeInvalidRequest, "Invalid request: unknown variant `"+method+"`")
	}
}

func (s *appServer) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		s.t.Errorf("appServer: marshal: %v", err)
		return
	}
	s.writeLine(b)
}

func (s *appServer) writeLine(b []byte) {
	<-s.ready
	s.connMu.Lock()
	defer s.connMu.Unlock()
	_, _ = s.w.Write(b)
	_ = s.w.WriteByte('\n')
	_ = s.w.Flush()
}

func (s *appServer) reply(id json.RawMessage, result any) {
	s.write(map[string]any{"id": id, "result": result})
}

func (s *appServer) replyError(id json.RawMessage, code int, msg string) {
	s.write(map[string]any{"id": id, "error": map[string]any{"code": code, "message": msg}})
}

// writeNote sends a prepared notification.
func (s *appServer) writeNote(n Notification) {
	s.write(map[string]any{"method": n.Method, "params": n.Params})
}

func (s *appServer) notify(method string, params any) {
	s.write(map[string]any{"method": method, "params": params, "emittedAtMs": time.Now().UnixMilli()})
}

// request sends a server request and waits for the client's reply line
// (nil if the client went away).
func (s *appServer) request(method string, params any) json.RawMessage {
	s.mu.Lock()
	id := strconv.Itoa(s.nextID)
	s.nextID++
	ch := make(chan json.RawMessage, 1)
	s.waiting[id] = ch
	s.mu.Unlock()
	b, _ := json.Marshal(params)
	s.writeLine([]byte(fmt.Sprintf(`{"method":%q,"id":%s,"params":%s}`, method, id, b)))
	return <-ch
}

// stderr makes the relay write a line to its stderr.
func (s *appServer) stderr(line string) { s.writeLine([]byte(relayCtl + "stderr " + line)) }

// exit makes the relay exit with code.
func (s *appServer) exit(code int) { s.writeLine([]byte(relayCtl + "exit " + strconv.Itoa(code))) }

// received lists the methods the client sent (requests and notifications).
func (s *appServer) received() []scriptCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]scriptCall(nil), s.calls...)
}

func (s *appServer) paramsOf(method string) []json.RawMessage {
	var out []json.RawMessage
	for _, c := range s.received() {
		if c.Method == method {
			out = append(out, c.Params)
		}
	}
	return out
}

// Turn helpers.

func (tc *turnCtx) notify(method string, params any) { tc.s.notify(method, params) }

func (tc *turnCtx) item(phase string, item map[string]any) {
	tc.notify("item/"+phase, map[string]any{"threadId": tc.ThreadID, "turnId": tc.ID, "item": item})
}

func (tc *turnCtx) started(item map[string]any)   { tc.item("started", item) }
func (tc *turnCtx) completed(item map[string]any) { tc.item("completed", item) }

// both sends item/started and item/completed for item.
func (tc *turnCtx) both(item map[string]any) {
	tc.started(item)
	tc.completed(item)
}

func (tc *turnCtx) delta(itemID, text string) {
	tc.notify("item/agentMessage/delta", map[string]any{"threadId": tc.ThreadID, "turnId": tc.ID, "itemId": itemID, "delta": text})
}

// echo sends codex's userMessage item for the input.
func (tc *turnCtx) echo(text string) {
	tc.both(map[string]any{"type": "userMessage", "id": "um_" + tc.ID, "content": []any{map[string]any{"type": "text", "text": text, "text_elements": []any{}}}})
}

func (tc *turnCtx) say(id, text string) {
	tc.started(map[string]any{"type": "agentMessage", "id": id, "text": ""})
	tc.delta(id, text)
	tc.completed(map[string]any{"type": "agentMessage", "id": id, "text": text})
}

func (tc *turnCtx) complete(status string, turnErr any) {
	tc.notify("turn/completed", map[string]any{"threadId": tc.ThreadID, "turn": map[string]any{"id": tc.ID, "status": status, "error": turnErr, "items": []any{}}})
}

func (tc *turnCtx) request(method string, params map[string]any) json.RawMessage {
	params["threadId"] = tc.ThreadID
	params["turnId"] = tc.ID
	return tc.s.request(method, params)
}

// waitInterrupt waits up to d for turn/interrupt, or for codex to go away.
func (tc *turnCtx) waitInterrupt(d time.Duration) bool {
	select {
	case <-tc.interrupted:
		return true
	case <-tc.gone:
		return false
	case <-time.After(d):
		return false
	}
}

// runTurn runs one turn with a generous bound, for tests that expect it to
// end by itself.
func runTurn(t *testing.T, sess *Session, text string) TurnResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return sess.RunTurn(ctx, TextInput(text))
}
