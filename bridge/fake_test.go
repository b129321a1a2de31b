package bridge

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// The fake app-server: the test binary re-executed with fakeEnv set speaks
// codex's wire format (JSONL, no "jsonrpc" member, server request ids from 0)
// on stdin/stdout, scripted by the methods below. A separate process, so that
// exits, kills and stderr are real.
const (
	fakeEnv      = "BRIDGE_TEST_FAKE_CODEX"
	fakeModeEnv  = "BRIDGE_TEST_FAKE_MODE"
	fakeSecret   = "sk-" + "proj-FAKEfakeFAKEfake0123456789" // never a real key
	fakeExitCode = 3
)

// Modes change process-level behaviour:
//
//	stubborn   ignore stdin EOF and SIGTERM (only SIGKILL ends it)
//	termable   ignore stdin EOF, die on SIGTERM
//
// Methods (client → fake):
//
//	initialize          codex-like result plus unknown fields
//	echo                result = params
//	sleep {ms}          reply after ms
//	notify {count}      send count item/agentMessage/delta notifications, then reply
//	ask {method}        send a server request (id 0, then 1, …) and reply with the
//	                    client's answer: {"id":…, "result"|"error":…}
//	garbage             write a non-JSON line
//	stderr {lines}      write lines to stderr, then reply
//	crash               write to stderr and exit fakeExitCode
//	plugin/list         two marketplaces' worth of plugins, one more per cwd;
//	                    in mode plugins-broken, a result without marketplaces
//	seen                reply with the notification methods received so far
//	anything else       -32600 like codex
type fake struct {
	outMu sync.Mutex
	out   *bufio.Writer

	mu      sync.Mutex
	nextID  int
	waiting map[string]chan json.RawMessage
	seen    []string
}

type fakeMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

func runFake() int {
	switch os.Getenv(fakeModeEnv) {
	case "relay":
		return runRelay()
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
	}
	f := &fake{out: bufio.NewWriter(os.Stdout), waiting: map[string]chan json.RawMessage{}}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m fakeMsg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			continue // codex ignores non-JSON lines
		}
		switch {
		case m.Method == "" && len(m.ID) > 0: // a reply to one of our requests
			f.mu.Lock()
			ch := f.waiting[string(m.ID)]
			delete(f.waiting, string(m.ID))
			f.mu.Unlock()
			if ch != nil {
				ch <- json.RawMessage(sc.Bytes())
			}
		case len(m.ID) == 0: // notification
			f.mu.Lock()
			f.seen = append(f.seen, m.Method+" "+string(m.Params))
			f.mu.Unlock()
		default:
			go f.handle(m)
		}
	}
	// Like codex: stdin EOF ends the server, whatever is in flight.
	if mode := os.Getenv(fakeModeEnv); mode == "stubborn" || mode == "termable" {
		for {
			time.Sleep(time.Hour) // until the signal; select{} would trip the deadlock detector
		}
	}
	return 0
}

func (f *fake) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	f.write(b)
}

func (f *fake) write(b []byte) {
	f.outMu.Lock()
	defer f.outMu.Unlock()
	f.out.Write(b)
	f.out.WriteByte('\n')
	f.out.Flush()
}

func (f *fake) reply(id json.RawMessage, result any) {
	f.send(map[string]any{"id": id, "result": result})
}

func (f *fake) handle(m fakeMsg) {
	var p struct {
		MS     int    `json:"ms"`
		Count  int    `json:"count"`
		Lines  int    `json:"lines"`
		Method string `json:"method"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "initialize":
		f.reply(m.ID, map[string]any{
			"userAgent":      "fake/0.169.0",
			"codexHome":      os.Getenv("CODEX_HOME"),
			"platformFamily": "unix",
			"platformOs":     "linux",
			"futureField":    map[string]any{"x": 1},
		})
		f.send(map[string]any{"method": "remoteControl/status/changed", "params": map[string]any{"status": "disabled"}, "emittedAtMs": 1795348088366})
	case "echo":
		f.reply(m.ID, m.Params)
	case "sleep":
		time.Sleep(time.Duration(p.MS) * time.Millisecond)
		f.reply(m.ID, map[string]any{"slept": p.MS})
	case "notify":
		for i := range p.Count {
			f.send(map[string]any{
				"method":      "item/agentMessage/delta",
				"params":      map[string]any{"threadId": "t", "turnId": "u", "itemId": "i", "delta": strconv.Itoa(i)},
				"emittedAtMs": 1795348088366 + i,
			})
		}
		f.reply(m.ID, map[string]any{"sent": p.Count})
	case "ask":
		f.mu.Lock()
		id := strconv.Itoa(f.nextID)
		f.nextID++
		ch := make(chan json.RawMessage, 1)
		f.waiting[id] = ch
		f.mu.Unlock()
		// Codex puts method before id; keep that shape.
		f.write([]byte(fmt.Sprintf(`{"method":%q,"id":%s,"params":{"threadId":"t","callId":"call_1","arguments":{"q":"hi"}},"trace":null}`, p.Method, id)))
		f.reply(m.ID, <-ch)
	case "garbage":
		f.write([]byte("this is not json at all"))
	case "stderr":
		for i := range p.Lines {
			fmt.Fprintf(os.Stderr, "\x1b[2mline %d\x1b[0m OPENAI_API_KEY=%s\n", i, fakeSecret)
		}
		f.reply(m.ID, map[string]any{"lines": p.Lines})
	case "crash":
		fmt.Fprintf(os.Stderr, "thread 'main' panicked: boom; Authorization: Bearer %s\n", fakeSecret)
		os.Exit(fakeExitCode)
	case "plugin/list":
		if os.Getenv(fakeModeEnv) == "plugins-broken" {
			f.reply(m.ID, map[string]any{"data": []any{}})
			return
		}
		var lp struct {
			Cwds []string `json:"cwds"`
		}
		_ = json.Unmarshal(m.Params, &lp)
		markets := []any{map[string]any{"name": "home-market", "plugins": []any{
			map[string]any{"id": "alpha@home-market", "name": "alpha", "installed": true, "enabled": true, "availability": "AVAILABLE"},
			map[string]any{"name": "beta", "installed": false, "enabled": false, "availability": "AVAILABLE"},
		}}}
		for _, cwd := range lp.Cwds {
			markets = append(markets, map[string]any{"name": "cwd:" + cwd, "plugins": []any{
				map[string]any{"name": "gamma", "installed": true, "enabled": false},
			}})
		}
		f.reply(m.ID, map[string]any{"marketplaces": markets, "marketplaceLoadErrors": []any{}, "featuredPluginIds": []any{}})
	case "seen":
		f.mu.Lock()
		seen := append([]string(nil), f.seen...)
		f.mu.Unlock()
		f.reply(m.ID, seen)
	default:
		f.send(map[string]any{"id": m.ID, "error": map[string]any{
			"code":    CodeInvalidRequest,
			"message": fmt.Sprintf("Invalid request: unknown variant `%s`; key %s", m.Method, fakeSecret),
		}})
	}
}
