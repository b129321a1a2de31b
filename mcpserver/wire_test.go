package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/tools/txtar"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/testkit/golden"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// wireTimeout bounds every wait in a transcript; a hang is a failure, not a
// stuck test binary.
const wireTimeout = 10 * time.Second

// TestWireTranscripts replays each testdata/wire/*.txtar against the stdio
// loop and compares what the server wrote with the -- server -- section.
//
// Client lines are sent one at a time, byte for byte (stdio frames a
// message per line, and some lines are deliberately malformed); after a
// request the harness waits for its response before sending the next
// line, which makes the transcript deterministic. A line prefixed
// "nowait " is sent without waiting (a call that is cancelled, or still
// running at EOF). stdin is closed after the last line and every remaining
// output is collected. The server's messages are recorded pretty-printed
// with sorted keys, so a changed field is a changed line.
func TestWireTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/wire/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts found: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			client, ok := golden.Section(ar, "client")
			if !ok {
				t.Fatalf("%s has no -- client -- section", file)
			}
			toolsets, _ := golden.Section(ar, "toolsets")
			got := replay(t, string(toolsets), string(client))
			golden.Archive(t, file, ar, []string{"server"}, map[string][]byte{"server": got})
		})
	}
}

// replay runs one transcript and returns the server's output in canonical
// form.
func replay(t *testing.T, toolsets, client string) []byte {
	t.Helper()
	srv := newWireServer(t, toolsets)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	lines := make(chan []byte, 1024)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(lines)
	}()

	var out [][]byte
	collect := func(raw []byte) {
		if !json.Valid(raw) {
			t.Fatalf("server wrote a non-JSON line: %q", raw)
		}
		out = append(out, raw)
	}
	for _, line := range strings.Split(client, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		wait := true
		if rest, ok := strings.CutPrefix(line, "nowait "); ok {
			line, wait = rest, false
		}
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("write %q: %v", line, err)
		}
		id, isRequest := requestID(line)
		if !wait || !isRequest {
			continue
		}
		deadline := time.After(wireTimeout)
		for done := false; !done; {
			select {
			case raw, ok := <-lines:
				if !ok {
					t.Fatalf("server closed stdout while the response to id %s was pending", id)
				}
				collect(raw)
				done = responseID(raw) == id
			case <-deadline:
				t.Fatalf("no response to id %s within %v", id, wireTimeout)
			}
		}
	}
	inW.Close()
	deadline := time.After(wireTimeout)
	for {
		select {
		case raw, ok := <-lines:
			if !ok {
				if err := <-served; err != nil {
					t.Fatalf("ServeStdio returned %v after EOF, want nil", err)
				}
				pretty, err := golden.Canonical(bytes.Join(out, []byte("\n")))
				if err != nil {
					t.Fatal(err)
				}
				return pretty
			}
			collect(raw)
		case <-deadline:
			t.Fatalf("server did not exit within %v of EOF", wireTimeout)
		}
	}
}

// requestID returns the id of a line that is a request (has id and method).
func requestID(line string) (string, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal([]byte(line), &m) != nil || m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return "", false
	}
	return string(m.ID), true
}

func responseID(raw []byte) string {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Method != "" {
		return ""
	}
	return string(m.ID)
}

// newWireServer builds a server over the fixture Hermes home with the real
// toolsets plus the wiretest toolset, restricted to the given selection,
// and the skills extension when the skills toolset is selected.
func newWireServer(t *testing.T, selection string) *mcpserver.Server {
	t.Helper()
	home, err := filepath.Abs("testdata/home")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := hermeshome.LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	env := toolsets.Env{Home: home, Config: cfg}
	if env.Skills, err = toolsets.NewSkillsLibrary(env); err != nil {
		t.Fatal(err)
	}
	box, err := toolsets.Builtin(env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	reg, err := toolsets.NewRegistry(append(box.Toolsets, wiretestToolset())...)
	if err != nil {
		t.Fatal(err)
	}
	sel := toolsets.Selection{Toolsets: []string{"all"}}
	if ts := strings.TrimSpace(selection); ts != "" {
		sel.Toolsets = strings.Split(ts, ",")
	}
	plan, err := reg.Resolve(sel)
	if err != nil {
		t.Fatal(err)
	}
	// One skill per page, so two fixture skills show skills/list paging.
	return mcpserver.New(mcpserver.Options{Version: "test", Plan: plan, Skills: env.Skills, SkillsPageSize: 1})
}

// wiretestToolset holds tools whose only job is to exercise the protocol
// layer: a panic, a call that blocks until cancelled, a slow call, progress.
func wiretestToolset() tooldef.Toolset {
	obj := func(props string, required ...string) json.RawMessage {
		req, _ := json.Marshal(required)
		if required == nil {
			req = []byte("[]")
		}
		return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{%s},"required":%s,"additionalProperties":false}`, props, req))
	}
	ro := tooldef.Hints{ReadOnly: true, Idempotent: true}
	return tooldef.Toolset{
		Name:        "wiretest",
		Description: "protocol test tools",
		Tools: []tooldef.Tool{
			{
				Name:         "echo",
				Description:  "Returns its message.",
				InputSchema:  obj(`"message":{"type":"string"},"times":{"type":"integer","minimum":1}`, "message"),
				OutputSchema: json.RawMessage(`{"type":"object","properties":{"echo":{"type":"string"}},"required":["echo"]}`),
				Hints:        ro,
				Handler: func(ctx context.Context, args json.RawMessage) (tooldef.Result, error) {
					a, err := tooldef.DecodeArgs[struct {
						Message string `json:"message"`
						Times   int    `json:"times"`
					}](args)
					if err != nil {
						return tooldef.Result{}, err
					}
					if a.Times == 0 {
						a.Times = 1
					}
					return tooldef.OK(map[string]any{"echo": strings.Repeat(a.Message, a.Times)}), nil
				},
			},
			{
				Name:        "fail",
				Description: "Always fails the way a tool reports a problem the model can fix.",
				InputSchema: obj(``),
				Hints:       ro,
				Handler: func(ctx context.Context, args json.RawMessage) (tooldef.Result, error) {
					return tooldef.Errorf("the thing is missing; create it first"), nil
				},
			},
			{
				Name:        "broken",
				Description: "Always fails with an infrastructure error.",
				InputSchema: obj(``),
				Hints:       ro,
				Handler: func(ctx context.Context, args json.RawMessage) (tooldef.Result, error) {
					return tooldef.Result{}, errors.New("disk on fire")
				},
			},
			{
				Name:        "panic",
				Description: "Panics.",
				InputSchema: obj(``),
				Hints:       ro,
				Handler: func(ctx context.Context, args json.RawMessage) (tooldef.Result, error) {
					panic("deliberate test panic")
				},
			},
			{
				Name:        "block",
				Description: "Blocks until cancelled.",
				InputSchema: obj(``),
				Hints:       ro,
				Handler: func(ctx context.Context, args json.RawMessage) (tooldef.Result, error) {
					<-ctx.Done()
					return tooldef.Result{}, ctx.Err()
				},
			},
			{
				Name:        "slow",
				Description: "Takes 300 ms unless cancelled.",
				InputSchema: obj(``),
				Hints:       ro,
				Handler: func(ctx context.Context, args json.RawMessage) (tooldef.Result, error) {
					select {
					case <-time.After(300 * time.Millisecond):
						return tooldef.OK(map[string]any{"slept": true}), nil
					case <-ctx.Done():
						return tooldef.Result{}, fmt.Errorf("slow interrupted: %w", ctx.Err())
					}
				},
			},
			{
				Name:        "progress",
				Description: "Reports progress n times, then returns.",
				InputSchema: obj(`"n":{"type":"integer","minimum":0,"maximum":10000}`, "n"),
				Hints:       ro,
				Handler: func(ctx context.Context, args json.RawMessage) (tooldef.Result, error) {
					a, err := tooldef.DecodeArgs[struct {
						N int `json:"n"`
					}](args)
					if err != nil {
						return tooldef.Result{}, err
					}
					for i := 1; i <= a.N; i++ {
						tooldef.ReportProgress(ctx, float64(i), float64(a.N), fmt.Sprintf("step %d", i))
					}
					return tooldef.OK(map[string]any{"steps": a.N}), nil
				},
			},
		},
	}
}

// TestSkillsTranscriptDigests checks the skills extension transcripts
// against the fixture files, so a golden file can never bless a wrong
// digest: every manifest entry's digest and size, and every resources/read
// content's bytes, must match the file its skill:// URI names.
func TestSkillsTranscriptDigests(t *testing.T) {
	files, err := filepath.Glob("testdata/wire/skills_*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no skills transcripts: %v", err)
	}
	fileOf := func(uri string) []byte {
		t.Helper()
		rel, err := url.PathUnescape(strings.TrimPrefix(uri, "skill://"))
		if err != nil || !strings.HasPrefix(uri, "skill://") {
			t.Fatalf("%s is not a fixture skill URI", uri)
		}
		b, err := os.ReadFile(filepath.Join("testdata", "home", "skills", filepath.FromSlash(rel)))
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		return b
	}
	checked := 0
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			uri, _ := x["uri"].(string)
			if digest, ok := x["digest"].(string); ok {
				b := fileOf(uri)
				sum := sha256.Sum256(b)
				size, _ := x["size"].(json.Number).Int64()
				if want := "sha256:" + hex.EncodeToString(sum[:]); digest != want || size != int64(len(b)) {
					t.Errorf("%s: transcript says %s (%d bytes), the file is %s (%d bytes)", uri, digest, size, want, len(b))
				}
				checked++
			}
			text, isText := x["text"].(string)
			blob, isBlob := x["blob"].(string)
			if isText || isBlob {
				got := []byte(text)
				if isBlob {
					if got, err = base64.StdEncoding.DecodeString(blob); err != nil {
						t.Fatalf("%s: blob: %v", uri, err)
					}
				}
				if !bytes.Equal(got, fileOf(uri)) {
					t.Errorf("%s: resources/read content differs from the file", uri)
				}
				checked++
			}
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		server, _ := golden.Section(ar, "server")
		dec := json.NewDecoder(bytes.NewReader(server))
		dec.UseNumber()
		for {
			var v any
			err := dec.Decode(&v)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			walk(v)
		}
	}
	if checked < 10 {
		t.Errorf("only %d digests and contents checked; the transcripts lost their skills traffic", checked)
	}
}

// TestWireIDsSubprocess sends the real hermes-tools-mcp, over its real
// stdin, every kind of id and lines with invalid UTF-8, as a misbehaving
// client would. Every line it writes must be UTF-8 JSON; a usable id must
// come back byte for byte (on an mcp-go method, a tools/call and a
// loop-served method); any other id gets -32600 with id null; invalid
// UTF-8 gets -32700 with id null and is never echoed.
func TestWireIDsSubprocess(t *testing.T) {
	ids := []struct {
		name, raw string
		ok        bool
	}{
		{"small int", "7", true},
		{"2^53+1", "9007199254740993", true},
		{"2^70", "1180591620717411303424", true},
		{"negative", "-3", true},
		{"exponent form", "1e3", true},
		{"fraction", "2.5", true},
		{"string", `"abc"`, true},
		{"unicode string", `"héllo ☃ 𝄞"`, true},
		{"escaped string", `"\u00e9\"\\"`, true},
		{"empty string", `""`, true},
		{"null", "null", false},
		{"object", `{"a":1}`, false},
		{"array", "[1,2]", false},
		{"true", "true", false},
		{"false", "false", false},
	}
	// One run of the server per method: ids repeat across methods, and a
	// repeat while the first is in flight is (rightly) refused as in use.
	methods := map[string]string{
		"ping":       `{"jsonrpc":"2.0","id":%s,"method":"ping"}`,
		"tools/call": `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"skills_list","arguments":{}}}`,
		"tools/list": `{"jsonrpc":"2.0","id":%s,"method":"tools/list"}`,
	}
	const initLine = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	badUTF8 := []string{
		"{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"ping\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\xc3ng\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"skills_list\",\"arguments\":{\"x\":\"\xed\xa0\x80\"}}}",
	}
	run := func(t *testing.T, lines ...string) []string {
		t.Helper()
		cmd := exec.Command(toolsbuild.ServerBinary(t), "--hermes-home", "testdata/home", "--toolsets", "skills")
		cmd.Stdin = strings.NewReader(initLine + strings.Join(lines, "\n") + "\n")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("server: %v\n%s", err, stderr.String())
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			if !utf8.ValidString(l) || !json.Valid([]byte(l)) {
				t.Fatalf("stdout carries a line that is not UTF-8 JSON: %q", l)
			}
			if !strings.Contains(l, `"id":"init"`) {
				got = append(got, l)
			}
		}
		return got
	}
	for name, format := range methods {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var lines []string
			invalid := 0
			for _, id := range ids {
				lines = append(lines, fmt.Sprintf(format, id.raw))
				if !id.ok {
					invalid++
				}
			}
			got := run(t, lines...)
			if len(got) != len(ids) {
				t.Errorf("got %d lines for %d requests: %q", len(got), len(ids), got)
			}
			for _, id := range ids {
				if !id.ok {
					continue
				}
				prefix := `{"jsonrpc":"2.0","id":` + id.raw + `,"result":`
				if !slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, prefix) }) {
					t.Errorf("%s: no line starting %s in %q", id.name, prefix, got)
				}
			}
			nulls := 0
			for _, l := range got {
				if strings.HasPrefix(l, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`) {
					nulls++
				}
			}
			if nulls != invalid {
				t.Errorf("%d -32600 answers with id null, want %d (one per unusable id)", nulls, invalid)
			}
		})
	}
	t.Run("invalid UTF-8", func(t *testing.T) {
		t.Parallel()
		got := run(t, badUTF8...)
		if len(got) != len(badUTF8) {
			t.Fatalf("got %d lines for %d requests: %q", len(got), len(badUTF8), got)
		}
		for _, l := range got {
			if !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`) {
				t.Errorf("got %s, want a parse error with id null", l)
			}
		}
	})
}
