package tts

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
)

// TestSpeedAndInstructions: the original's speed argument (0.25-4.0,
// clamped) wins over the speeds config.yaml sets, reaching each provider in
// its own form; instructions reach OpenAI only, and a speed of 1 is not
// sent to OpenAI (its default), as the original does.
func TestSpeedAndInstructions(t *testing.T) {
	fake := fakeapis.Start(t)
	body := func(r fakeapis.Request) map[string]any {
		var m map[string]any
		_ = json.Unmarshal(r.Body, &m)
		return m
	}
	mmURL := fake.Base(fakeapis.MiniMax) + "/v1/t2a_v2"
	tests := []struct {
		name, config, fakeName string
		env                    map[string]string
		args                   map[string]any
		check                  func(t *testing.T, r fakeapis.Request)
	}{
		{"openai speed and instructions", "tts:\n  provider: openai\n  openai:\n    speed: 1.2\n", fakeapis.OpenAI, mediatest.OpenAIEnv(fake),
			map[string]any{"text": "hello", "speed": 0.5, "instructions": "Speak in a cheerful, excited whisper"},
			func(t *testing.T, r fakeapis.Request) {
				b := body(r)
				if b["speed"] != 0.5 || b["instructions"] != "Speak in a cheerful, excited whisper" {
					t.Errorf("body %s", r.Body)
				}
			}},
		{"openai speed clamped", "tts:\n  provider: openai\n", fakeapis.OpenAI, mediatest.OpenAIEnv(fake),
			map[string]any{"text": "hello", "speed": 9},
			func(t *testing.T, r fakeapis.Request) {
				if b := body(r); b["speed"] != 4.0 {
					t.Errorf("body %s, want speed 4 (the top of 0.25-4.0)", r.Body)
				}
			}},
		{"openai speed 1 overrides config and is not sent", "tts:\n  provider: openai\n  openai:\n    speed: 1.5\n", fakeapis.OpenAI, mediatest.OpenAIEnv(fake),
			map[string]any{"text": "hello", "speed": 1},
			func(t *testing.T, r fakeapis.Request) {
				if b := body(r); b["speed"] != nil || b["instructions"] != nil {
					t.Errorf("body %s: no speed (1 is the default) and no instructions", r.Body)
				}
			}},
		{"minimax speed overrides its own", "tts:\n  provider: minimax\n  minimax:\n    speed: 1.2\n", fakeapis.MiniMax,
			map[string]string{"MINIMAX_API_KEY": fakeapis.MiniMaxKey, MiniMaxURLEnv: mmURL, "MINIMAX_GROUP_ID": "g1"},
			map[string]any{"text": "hello", "speed": 0.75, "instructions": "whisper"},
			func(t *testing.T, r fakeapis.Request) {
				vs, _ := body(r)["voice_setting"].(map[string]any)
				if vs["speed"] != 0.75 || strings.Contains(string(r.Body), "whisper") {
					t.Errorf("body %s: want voice_setting.speed 0.75 and no instructions", r.Body)
				}
			}},
		{"xai speed in its range", "tts:\n  provider: xai\n  xai:\n    speed: 1.1\n", fakeapis.XAI,
			map[string]string{"XAI_API_KEY": fakeapis.XAIKey, "XAI_BASE_URL": fake.Base(fakeapis.XAI)},
			map[string]any{"text": "hello", "speed": 0.25},
			func(t *testing.T, r fakeapis.Request) {
				if b := body(r); b["speed"] != 0.7 {
					t.Errorf("body %s: want speed 0.7 (xAI's floor)", r.Body)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mediatest.NewFixture(t, fake, tt.env, tt.config)
			tl := mediatest.OnlyTool(t, Toolset(f.Opts))
			before := len(fake.Requests(tt.fakeName))
			out, res := mediatest.Call(t, context.Background(), tl, tt.args)
			if res.IsError {
				t.Fatalf("failed: %v", out)
			}
			reqs := fake.Requests(tt.fakeName)[before:]
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			tt.check(t, reqs[0])
		})
	}

	// Edge: the speed becomes the SSML prosody rate, over tts.edge.speed.
	f := mediatest.NewFixture(t, fake, edgeEnv(fake), "tts:\n  edge:\n    speed: 1.5\n")
	before := len(fake.EdgeSessions())
	out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"text": "hello", "speed": 0.5})
	if res.IsError {
		t.Fatalf("edge failed: %v", out)
	}
	sessions := fake.EdgeSessions()[before:]
	if len(sessions) != 1 || !strings.Contains(sessions[0].Frames[1], "rate='-50%'") {
		t.Errorf("edge sessions %v: want rate -50%%", sessions)
	}
}

// TestWithSpeedLocal: the speed argument reaches the local engines too:
// a command provider's {speed} placeholder and espeak-ng's words per
// minute (its configured rate, or the default, scaled).
func TestWithSpeedLocal(t *testing.T) {
	b := Backend{Command: &commandSpec{speed: "1.25"}}
	b.Settings.Espeak.Speed = 200
	got := b.withSpeed(1.5)
	if got.Command.speed != "1.5" || b.Command.speed != "1.25" {
		t.Errorf("command speed %q (original left %q), want 1.5 on a copy", got.Command.speed, b.Command.speed)
	}
	if got.Settings.Espeak.Speed != 300 {
		t.Errorf("espeak speed %d, want 300 words per minute", got.Settings.Espeak.Speed)
	}
	if d := (Backend{}).withSpeed(0.1); d.Settings.Espeak.Speed != 43 || d.Settings.Speed != 0.25 {
		t.Errorf("default espeak rate at 0.1: %d wpm, speed %v; want 170*0.25 rounded and the floor 0.25", d.Settings.Espeak.Speed, d.Settings.Speed)
	}
}
