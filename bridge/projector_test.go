package bridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/hermes-go/hermes/internal/testkit/golden"
)

// projected is what a golden file records for a notification sequence.
type projected struct {
	Messages       []Message `json:"messages"`
	ToolIterations int       `json:"toolIterations"`
	FinalText      *string   `json:"finalText"`
	OpenToolItems  int       `json:"openToolItems"`
}

// TestProjectorGolden feeds testdata/projector/*.txtar's notifications.jsonl
// to a Projector (a line {"close":true} calls Close) and compares the result
// with want.json, which -update rewrites.
func TestProjectorGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/projector/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			input, ok := golden.Section(ar, "notifications.jsonl")
			if !ok {
				t.Fatal("no notifications.jsonl section")
			}

			p := NewProjector()
			var got projected
			sc := bufio.NewScanner(bytes.NewReader(input))
			for sc.Scan() {
				var line struct {
					Method string          `json:"method"`
					Params json.RawMessage `json:"params"`
					Close  bool            `json:"close"`
				}
				if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
					t.Fatalf("bad line %q: %v", sc.Bytes(), err)
				}
				var pr Projection
				if line.Close {
					pr = p.Close()
				} else {
					pr = p.Project(Notification{Method: line.Method, Params: line.Params})
				}
				got.Messages = append(got.Messages, pr.Messages...)
				if pr.ToolIteration {
					got.ToolIterations++
				}
				if pr.HasFinalText {
					s := pr.FinalText
					got.FinalText = &s
				}
			}
			got.OpenToolItems = p.OpenToolItems()
			out, err := golden.JSON(got)
			if err != nil {
				t.Fatal(err)
			}
			golden.Archive(t, file, ar, []string{"want.json"}, map[string][]byte{"want.json": out})
		})
	}
}

func TestProjectorTruncation(t *testing.T) {
	long := strings.Repeat("é", 5000)
	p := NewProjector()
	item := map[string]any{"type": "mcpToolCall", "id": "c", "server": "s", "tool": "t", "result": long}
	params, _ := json.Marshal(map[string]any{"item": item})
	pr := p.Project(Notification{Method: "item/completed", Params: params})
	if got := pr.Messages[1].Content; got != `"`+strings.Repeat("é", 3999) {
		t.Errorf("result content is %d runes", len([]rune(got)))
	}
	item["error"] = map[string]any{"message": long}
	params, _ = json.Marshal(map[string]any{"item": item})
	pr = p.Project(Notification{Method: "item/completed", Params: params})
	if got := pr.Messages[1].Content; !strings.HasPrefix(got, `[error] {"message": "éé`) || len([]rune(got)) != len("[error] ")+1000 {
		t.Errorf("error content %q…", truncateRunes(got, 40))
	}
	params, _ = json.Marshal(map[string]any{"item": map[string]any{"type": "plan", "id": "p", "text": long}})
	pr = p.Project(Notification{Method: "item/completed", Params: params})
	if got := pr.Messages[0].Content; len([]rune(got)) != len("[codex plan] ")+1500 {
		t.Errorf("opaque note is %d runes", len([]rune(got)))
	}
}

func TestProjectorIgnoresGarbage(t *testing.T) {
	p := NewProjector()
	for _, n := range []Notification{
		{Method: "item/completed", Params: json.RawMessage(`{"item":"not an object"}`)},
		{Method: "item/completed", Params: json.RawMessage(`not json`)},
		{Method: "item/completed"},
		{Method: "item/agentMessage/delta", Params: json.RawMessage(`{"itemId":"nope","delta":"x"}`)},
		{Method: "item/reasoning/textDelta", Params: json.RawMessage(`{"itemId":"nope","delta":"x","contentIndex":-5}`)},
	} {
		if pr := p.Project(n); len(pr.Messages) != 0 || pr.HasFinalText || pr.ToolIteration {
			t.Errorf("%s %s projected %+v", n.Method, n.Params, pr)
		}
	}
	if pr := p.Close(); len(pr.Messages) != 0 {
		t.Errorf("Close projected %+v", pr)
	}
}

// Python's json.dumps(v, ensure_ascii=False, sort_keys=True), as printed
// by CPython for the same values.
func TestPyDumps(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b":1,"a":"é\n\"<>&` + "\u2028\u007f" + `\u0001","c":[1.5,null,true,{"z":{},"y":[]}],"d":"\t\\"}`,
			`{"a": "é\n\"<>&` + "\u2028\u007f" + `\u0001", "b": 1, "c": [1.5, null, true, {"y": [], "z": {}}], "d": "\t\\"}`},
		{`[]`, `[]`},
		{`"x"`, `"x"`},
		{`12345678901234567890`, `12345678901234567890`},
		{`not json`, `"not json"`},
	}
	for _, tt := range tests {
		if got := pyDumpsRaw(json.RawMessage(tt.in)); got != tt.want {
			t.Errorf("pyDumpsRaw(%s)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
	if got := callID("exec", ""); got != "codex_exec_2706c619fe73f0cf" {
		t.Errorf("callID = %s", got)
	}
}

func TestMessageJSON(t *testing.T) {
	for _, tt := range []struct {
		m    Message
		want string
	}{
		{Message{Role: "assistant", Content: "hi"}, `{"role":"assistant","content":"hi"}`},
		{Message{Role: "assistant", Content: ""}, `{"role":"assistant","content":""}`},
		{Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "a", Type: "function", Function: FunctionCall{Name: "f", Arguments: "{}"}}}, Reasoning: "r"},
			`{"role":"assistant","content":null,"reasoning":"r","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}`},
		{Message{Role: "tool", ToolCallID: "a", Content: ""}, `{"role":"tool","content":"","tool_call_id":"a"}`},
	} {
		b, err := json.Marshal(tt.m)
		if err != nil || string(b) != tt.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tt.m, b, err, tt.want)
		}
		var back Message
		if err := json.Unmarshal(b, &back); err != nil || back.Role != tt.m.Role || len(back.ToolCalls) != len(tt.m.ToolCalls) {
			t.Errorf("round trip of %s: %+v, %v", b, back, err)
		}
	}
}
