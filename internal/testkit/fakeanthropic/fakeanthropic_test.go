package fakeanthropic

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeserver"
)

type event = fakeserver.Event

// readEvents reads the stream as the SDK does, checking that every event
// is named after its data's type.
func readEvents(t *testing.T, r io.Reader) []event {
	t.Helper()
	evs, err := fakeserver.ReadTypedSSE(r)
	if err != nil {
		t.Error(err)
	}
	return evs
}

// assembled is what a client rebuilds from a stream or reads from a JSON
// reply: the blocks' text or input, and the stop reason.
type assembled struct {
	Blocks []string // "text:<text>" or "tool_use:<id>:<name>:<input>"
	Stop   string
}

// assemble rebuilds the message from its events the way the SDK does,
// checking the event order on the way.
func assemble(t *testing.T, evs []event) assembled {
	t.Helper()
	var a assembled
	var kinds []string
	var ids, names []string
	var bufs []*strings.Builder
	for i, e := range evs {
		switch e.Name {
		case "message_start":
			if i != 0 {
				t.Errorf("message_start at %d", i)
			}
		case "content_block_start":
			cb := e.Data["content_block"].(map[string]any)
			if int(e.Data["index"].(float64)) != len(kinds) {
				t.Errorf("block index %v, want %d", e.Data["index"], len(kinds))
			}
			kinds = append(kinds, cb["type"].(string))
			id, _ := cb["id"].(string)
			name, _ := cb["name"].(string)
			ids, names = append(ids, id), append(names, name)
			bufs = append(bufs, &strings.Builder{})
		case "content_block_delta":
			d := e.Data["delta"].(map[string]any)
			b := bufs[int(e.Data["index"].(float64))]
			switch d["type"] {
			case "text_delta":
				b.WriteString(d["text"].(string))
			case "input_json_delta":
				b.WriteString(d["partial_json"].(string))
			}
		case "message_delta":
			a.Stop = e.Data["delta"].(map[string]any)["stop_reason"].(string)
		case "message_stop":
			if i != len(evs)-1 {
				t.Errorf("message_stop at %d of %d", i, len(evs))
			}
		}
	}
	for i, k := range kinds {
		if k == "text" {
			a.Blocks = append(a.Blocks, "text:"+bufs[i].String())
		} else {
			a.Blocks = append(a.Blocks, "tool_use:"+ids[i]+":"+names[i]+":"+bufs[i].String())
		}
	}
	return a
}

func TestReplies(t *testing.T) {
	tests := []struct {
		name  string
		reply Reply
		want  assembled
	}{
		{"text", Reply{Text: "Hello, wörld!"}, assembled{[]string{"text:Hello, wörld!"}, "end_turn"}},
		{"tool use", Reply{ToolUses: []ToolUse{{ID: "toolu_1", Name: "mcp__s__t", Input: `{"a":[1,2]}`}}},
			assembled{[]string{`tool_use:toolu_1:mcp__s__t:{"a":[1,2]}`}, "tool_use"}},
		{"text then two tools", Reply{Text: "ok", ToolUses: []ToolUse{{ID: "a", Name: "x", Input: `{}`}, {ID: "b", Name: "y", Input: `{"q":"r"}`}}},
			assembled{[]string{"text:ok", "tool_use:a:x:{}", `tool_use:b:y:{"q":"r"}`}, "tool_use"}},
		{"empty", Reply{}, assembled{[]string{"text:"}, "end_turn"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t)
			s.Enqueue(tt.reply, tt.reply)

			resp := fakeserver.Do(t, "POST", s.URL()+"/v1/messages", `{"model":"m","stream":true,"messages":[]}`)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if got := assemble(t, readEvents(t, resp.Body)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("stream assembled %+v, want %+v", got, tt.want)
			}

			resp = fakeserver.Do(t, "POST", s.URL()+"/v1/messages", `{"model":"m","messages":[]}`)
			var msg struct {
				Content []struct {
					Type, Text, ID, Name string
					Input                json.RawMessage
				}
				StopReason string `json:"stop_reason"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
				t.Fatal(err)
			}
			got := assembled{Stop: msg.StopReason}
			for _, c := range msg.Content {
				if c.Type == "text" {
					got.Blocks = append(got.Blocks, "text:"+c.Text)
				} else {
					got.Blocks = append(got.Blocks, "tool_use:"+c.ID+":"+c.Name+":"+string(c.Input))
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("JSON reply %+v, want %+v", got, tt.want)
			}
			if len(s.Unexpected()) != 0 {
				t.Errorf("unexpected: %q", s.Unexpected())
			}
		})
	}
}

func TestRefusesWhatIsNotScripted(t *testing.T) {
	tests := []struct {
		name, method, path, body string
		status                   int
		wantUnexpected           bool
	}{
		{"scripted error", "POST", "/v1/messages", `{"stream":true}`, 529, false},
		{"queue empty", "POST", "/v1/messages", `{"stream":true}`, 400, true},
		{"other path", "POST", "/v1/messages/count_tokens", `{}`, 400, true},
		{"GET", "GET", "/v1/models", ``, 400, true},
		{"not JSON", "POST", "/v1/messages", `nope`, 400, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t)
			if tt.status == 529 {
				s.Enqueue(Reply{Status: 529, ErrorType: "overloaded_error", ErrorMessage: "busy"})
			}
			resp := fakeserver.Do(t, tt.method, s.URL()+tt.path, tt.body)
			var env struct {
				Type  string
				Error struct{ Type, Message string }
			}
			if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || env.Type != "error" || env.Error.Message == "" {
				t.Errorf("status %d, envelope %+v", resp.StatusCode, env)
			}
			if got := len(s.Unexpected()) > 0; got != tt.wantUnexpected {
				t.Errorf("unexpected %q", s.Unexpected())
			}
		})
	}
}

func TestRequestHelpers(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{Text: "x"})
	body := `{"model":"m","tools":[{"name":"Bash"},{"name":"mcp__h__skills_list"}],"messages":[
		{"role":"user","content":"hi"},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"mcp__h__skills_list","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},
		                          {"type":"tool_result","tool_use_id":"t2","is_error":true,"content":"boom"}]}]}`
	fakeserver.Do(t, "POST", s.URL()+"/v1/messages", body)
	r := s.Requests()[0]
	if got := r.ToolNames(); !reflect.DeepEqual(got, []string{"Bash", "mcp__h__skills_list"}) {
		t.Errorf("tool names %v", got)
	}
	want := []ToolResult{{ToolUseID: "t1", Text: "ab"}, {ToolUseID: "t2", IsError: true, Text: "boom"}}
	if got := r.ToolResults(); !reflect.DeepEqual(got, want) {
		t.Errorf("tool results %+v, want %+v", got, want)
	}
}
