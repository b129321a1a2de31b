package vision

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeanthropic"
	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/internal/testkit/fakegemini"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
)

// A native provider's failure, scripted on its fake, and what the tool
// reports.
type nativeFailure struct {
	name      string
	anthropic fakeanthropic.Reply
	gemini    fakegemini.Reply
	want      string
	// retried failures are sent twice: the client retries once.
	retried bool
}

var nativeFailures = []nativeFailure{
	{"401", fakeanthropic.Reply{Status: 401, ErrorType: "authentication_error", ErrorMessage: "invalid x-api-key"},
		fakegemini.Reply{Status: 401, ErrorMessage: "API key not valid"}, "HTTP 401", false},
	{"429 with Retry-After", fakeanthropic.Reply{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "slow down", RetryAfter: "9"},
		fakegemini.Reply{Status: 429, ErrorMessage: "quota", RetryAfter: "9"}, "retry after 9s", true},
	{"5xx", fakeanthropic.Reply{Status: 500, ErrorType: "api_error", ErrorMessage: "boom"},
		fakegemini.Reply{Status: 500, ErrorMessage: "boom"}, "HTTP 500", true},
	{"malformed", fakeanthropic.Reply{Malformed: true}, fakegemini.Reply{Malformed: true}, "answered with something other than", false},
}

func TestVisionAnalyzeAnthropic(t *testing.T) {
	fake := fakeanthropic.New(t)
	png := fakeapis.PNG()
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	f := mediatest.NewFixture(t, nil, map[string]string{"ANTHROPIC_API_KEY": "sk-ant-fake", "ANTHROPIC_BASE_URL": fake.URL()},
		"auxiliary:\n  vision:\n    provider: anthropic\n    model: anthropic/claude-haiku-4.5\n    temperature: 0.3\n")
	tl := mediatest.OnlyTool(t, Toolset(f.Opts))
	if err := tl.Check(); err != nil {
		t.Fatal(err)
	}
	fake.Enqueue(fakeanthropic.Reply{Text: "A red pixel in the corner."})
	out, res := mediatest.Call(t, context.Background(), tl, map[string]any{"image_url": dataURL, "question": "What colour is the corner?"})
	if res.IsError || out["analysis"] != "A red pixel in the corner." || out["success"] != true {
		t.Fatalf("result %v (unexpected: %v)", out, fake.Unexpected())
	}
	req := fake.Requests()[0]
	if req.Header.Get("x-api-key") != "sk-ant-fake" || req.Header.Get("anthropic-version") != "2023-06-01" {
		t.Errorf("headers %v", req.Header)
	}
	raw := string(req.Raw)
	for _, want := range []string{`"model":"claude-haiku-4-5"`, `"temperature":0.3`, `"max_tokens":4096`,
		`{"source":{"data":"` + base64.StdEncoding.EncodeToString(png) + `","media_type":"image/png","type":"base64"},"type":"image"}`,
		`"text":"Fully describe and explain everything about this image, then answer the following question: What colour is the corner?"`} {
		if !strings.Contains(raw, want) {
			t.Errorf("request lacks %s:\n%s", want, raw)
		}
	}
	for _, fl := range nativeFailures {
		t.Run(fl.name, func(t *testing.T) {
			fake.Enqueue(fl.anthropic)
			if fl.retried {
				fake.Enqueue(fl.anthropic)
			}
			out, res := mediatest.Call(t, context.Background(), tl, map[string]any{"image_url": dataURL, "question": "q"})
			if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, fl.want) || strings.Contains(msg, "sk-ant-fake") {
				t.Errorf("got %v, want %q", out, fl.want)
			}
		})
	}
}

func TestVisionAnalyzeGemini(t *testing.T) {
	fake := fakegemini.New(t)
	png := fakeapis.PNG()
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	f := mediatest.NewFixture(t, nil, map[string]string{"GEMINI_API_KEY": "gm-fake-key", "GEMINI_BASE_URL": fake.URL()},
		"auxiliary:\n  vision:\n    provider: gemini\n")
	tl := mediatest.OnlyTool(t, Toolset(f.Opts))
	fake.Enqueue(fakegemini.Reply{Text: "Blue bottom right."})
	out, res := mediatest.Call(t, context.Background(), tl, map[string]any{"image_url": dataURL, "question": "Colours?"})
	if res.IsError || out["analysis"] != "Blue bottom right." {
		t.Fatalf("result %v (unexpected: %v)", out, fake.Unexpected())
	}
	req := fake.Requests()[0]
	if req.Model != DefaultGeminiModel || req.Method != "generateContent" || req.Header.Get("x-goog-api-key") != "gm-fake-key" {
		t.Errorf("request to %s:%s headers %v", req.Model, req.Method, req.Header)
	}
	raw := string(req.Raw)
	for _, want := range []string{`"generationConfig":{"maxOutputTokens":65535,"temperature":0.1}`,
		`{"inlineData":{"data":"` + base64.StdEncoding.EncodeToString(png) + `","mimeType":"image/png"}}`, `"role":"user"`} {
		if !strings.Contains(raw, want) {
			t.Errorf("request lacks %s:\n%s", want, raw)
		}
	}
	for _, fl := range nativeFailures {
		t.Run(fl.name, func(t *testing.T) {
			fake.Enqueue(fl.gemini)
			if fl.retried {
				fake.Enqueue(fl.gemini)
			}
			out, res := mediatest.Call(t, context.Background(), tl, map[string]any{"image_url": dataURL, "question": "q"})
			if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, fl.want) || strings.Contains(msg, "gm-fake-key") {
				t.Errorf("got %v, want %q", out, fl.want)
			}
		})
	}
}
