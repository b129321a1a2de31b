package fakegemini

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeserver"
)

type candidateResponse struct {
	Candidates []struct {
		Content struct {
			Role  string
			Parts []struct {
				Text         *string
				FunctionCall *struct {
					Name string
					Args json.RawMessage
				}
			}
		}
		FinishReason string
	}
	UsageMetadata *struct{ TotalTokenCount int }
}

// assembled is what a client rebuilds: the text, the calls, whether the
// last chunk finished the turn.
type assembled struct {
	Text     string
	Calls    []string // name:args
	Finished bool
}

func (a *assembled) add(t *testing.T, r candidateResponse, last bool) {
	t.Helper()
	if len(r.Candidates) != 1 || r.Candidates[0].Content.Role != "model" {
		t.Fatalf("candidates %+v", r.Candidates)
	}
	c := r.Candidates[0]
	for _, p := range c.Content.Parts {
		if p.Text != nil {
			a.Text += *p.Text
		}
		if p.FunctionCall != nil {
			a.Calls = append(a.Calls, p.FunctionCall.Name+":"+string(p.FunctionCall.Args))
		}
	}
	if (c.FinishReason == "STOP") != last || (r.UsageMetadata != nil) != last {
		t.Errorf("finishReason %q, usage %v on a chunk that is last: %v", c.FinishReason, r.UsageMetadata, last)
	}
	a.Finished = a.Finished || c.FinishReason == "STOP"
}

func TestReplies(t *testing.T) {
	tests := []struct {
		name  string
		reply Reply
		want  assembled
	}{
		{"text", Reply{Text: "Hello, wörld!"}, assembled{"Hello, wörld!", nil, true}},
		{"call", Reply{FunctionCalls: []FunctionCall{{Name: "mcp_h_skills_list", Args: `{"a":1}`}}},
			assembled{"", []string{`mcp_h_skills_list:{"a":1}`}, true}},
		{"text and two calls", Reply{Text: "ok", FunctionCalls: []FunctionCall{{Name: "x"}, {Name: "y", Args: `{}`}}},
			assembled{"ok", []string{"x:{}", "y:{}"}, true}},
		{"empty", Reply{}, assembled{"", nil, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t)
			s.Enqueue(tt.reply, tt.reply)

			resp := fakeserver.Do(t, "POST", s.URL()+"/v1beta/models/gemini-x:streamGenerateContent?alt=sse", `{"contents":[]}`)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			raw, _ := io.ReadAll(resp.Body)
			events := strings.Split(strings.TrimSuffix(string(raw), "\r\n\r\n"), "\r\n\r\n")
			var got assembled
			for i, ev := range events {
				data, ok := strings.CutPrefix(ev, "data: ")
				var r candidateResponse
				if !ok || json.Unmarshal([]byte(data), &r) != nil {
					t.Fatalf("event %d is not a data line of JSON: %q", i, ev)
				}
				got.add(t, r, i == len(events)-1)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("stream assembled %+v, want %+v", got, tt.want)
			}

			resp = fakeserver.Do(t, "POST", s.URL()+"/v1beta/models/gemini-x:generateContent", `{"contents":[]}`)
			var r candidateResponse
			if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
				t.Fatal(err)
			}
			got = assembled{}
			got.add(t, r, true)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("JSON reply %+v, want %+v", got, tt.want)
			}
			reqs := s.Requests()
			if len(reqs) != 2 || reqs[0].Model != "gemini-x" || reqs[0].Method != "streamGenerateContent" || reqs[1].Method != "generateContent" {
				t.Errorf("requests recorded: %+v", reqs)
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
		{"scripted error", "POST", "/v1beta/models/g:generateContent", `{}`, 429, false},
		{"queue empty", "POST", "/v1beta/models/g:generateContent", `{}`, 400, true},
		{"stream without alt=sse", "POST", "/v1beta/models/g:streamGenerateContent", `{}`, 400, true},
		{"countTokens", "POST", "/v1beta/models/g:countTokens", `{}`, 400, true},
		{"models list", "GET", "/v1beta/models", ``, 400, true},
		{"not JSON", "POST", "/v1beta/models/g:generateContent", `nope`, 400, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t)
			if tt.status == 429 {
				s.Enqueue(Reply{Status: 429, ErrorMessage: "quota"})
			}
			resp := fakeserver.Do(t, tt.method, s.URL()+tt.path, tt.body)
			var env struct {
				Error struct {
					Code            int
					Message, Status string
				}
			}
			if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status || env.Error.Code != tt.status || env.Error.Message == "" || env.Error.Status == "" {
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
	body := `{"tools":[{"functionDeclarations":[{"name":"read_file"},{"name":"mcp_h_skills_list"}]}],"contents":[
		{"role":"user","parts":[{"text":"hi"}]},
		{"role":"model","parts":[{"functionCall":{"name":"mcp_h_skills_list","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"mcp_h_skills_list","response":{"output":"ok"}}}]}]}`
	fakeserver.Do(t, "POST", s.URL()+"/v1beta/models/g:generateContent", body)
	r := s.Requests()[0]
	if got := r.ToolNames(); !reflect.DeepEqual(got, []string{"read_file", "mcp_h_skills_list"}) {
		t.Errorf("tool names %v", got)
	}
	got := r.FunctionResponses()
	if len(got) != 1 || got[0].Name != "mcp_h_skills_list" || string(got[0].Response) != `{"output":"ok"}` {
		t.Errorf("function responses %+v", got)
	}
}
