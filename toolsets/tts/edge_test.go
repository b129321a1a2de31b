package tts

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
)

const edgePath = "/consumer/speech/synthesize/readaloud/edge/v1"

// edgeEnv points Edge TTS at the fake, through the given steering
// segments ("trigger-429", "skew-3600").
func edgeEnv(fake *fakeapis.Server, steer ...string) map[string]string {
	base := strings.Replace(fake.Base(fakeapis.Edge), "http://", "ws://", 1)
	for _, s := range steer {
		base += "/" + s
	}
	return map[string]string{EdgeURLEnv: base + edgePath}
}

func TestEdgeToken(t *testing.T) {
	// Computed with Python as edge-tts 7.2.7's DRM.generate_sec_ms_gec
	// does, for 2023-11-14T22:13:20Z.
	if got := edgeToken(time.Unix(1700000000, 0)); got != "42301B335578FEFDAE2637DED1ABD614505D432559EC08032B82048483726AFF" {
		t.Errorf("edgeToken = %s", got)
	}
	// The token only changes every five minutes.
	if edgeToken(time.Unix(1700000000, 0)) != edgeToken(time.Unix(1700000099, 0)) {
		t.Error("token changed inside its five-minute window")
	}
}

func TestEdgeVoiceAndRate(t *testing.T) {
	for in, want := range map[string]string{
		"en-US-AriaNeural":             "Microsoft Server Speech Text to Speech Voice (en-US, AriaNeural)",
		"zh-CN-liaoning-XiaobeiNeural": "Microsoft Server Speech Text to Speech Voice (zh-CN-liaoning, XiaobeiNeural)",
		"Microsoft Server Speech Text to Speech Voice (de-DE, KatjaNeural)": "Microsoft Server Speech Text to Speech Voice (de-DE, KatjaNeural)",
	} {
		if got := edgeVoiceName(in); got != want {
			t.Errorf("edgeVoiceName(%q) = %q", in, got)
		}
	}
	for speed, want := range map[float64]string{0: "+0%", 1: "+0%", 1.5: "+50%", 0.75: "-25%", 4: "+300%"} {
		if got := edgeRate(speed); got != want {
			t.Errorf("edgeRate(%v) = %q, want %q", speed, got, want)
		}
	}
}

// edgeChunks keeps every piece within the limit, valid UTF-8 and free of
// split entities, and loses no text.
func FuzzEdgeChunks(f *testing.F) {
	f.Add("Hello world, this is a test.", 10)
	f.Add(strings.Repeat("&amp;", 30), 12)
	f.Add(strings.Repeat("héllo wörld ", 40), 17)
	f.Add("a\nb c\nd", 3)
	f.Fuzz(func(t *testing.T, text string, max int) {
		if !utf8.ValidString(text) || max < 8 || max > 5000 {
			t.Skip()
		}
		esc := edgeEscape(text)
		chunks := edgeChunks(esc, max)
		if strings.Join(strings.Fields(strings.Join(chunks, " ")), "") != strings.Join(strings.Fields(esc), "") {
			t.Fatalf("text lost: %q -> %q", esc, chunks)
		}
		for _, c := range chunks {
			if len(c) > max || !utf8.ValidString(c) || c == "" {
				t.Fatalf("bad chunk %q (max %d)", c, max)
			}
			if i := strings.LastIndexByte(c, '&'); i >= 0 && !strings.Contains(c[i:], ";") {
				t.Fatalf("entity split in %q", c)
			}
		}
	})
}

func TestTextToSpeechEdge(t *testing.T) {
	fake := fakeapis.Start(t)
	f := mediatest.NewFixture(t, fake, edgeEnv(fake), "tts:\n  edge:\n    voice: de-DE-KatjaNeural\n    speed: 1.5\n")
	f.Opts.LookPath = func(string) (string, error) { return "", os.ErrNotExist }
	tl := mediatest.OnlyTool(t, Toolset(f.Opts))
	if err := tl.Check(); err != nil {
		t.Fatalf("Edge needs no key and no program: %v", err)
	}
	out, res := mediatest.Call(t, context.Background(), tl, map[string]any{"text": "Fish & chips <now>\x01"})
	if res.IsError {
		t.Fatalf("failed: %v", out)
	}
	path, _ := out["file_path"].(string)
	if out["provider"] != "edge" || filepath.Ext(path) != ".mp3" || out["media_tag"] != "MEDIA:"+path || out["voice_compatible"] != false {
		t.Errorf("result = %v", out)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, fakeapis.MP3()) {
		t.Errorf("saved audio differs from the frames' audio: %v", err)
	}
	sessions := fake.EdgeSessions()
	if len(sessions) != 1 {
		t.Fatalf("%d sessions", len(sessions))
	}
	s := sessions[0]
	if s.Header.Get("Pragma") != "no-cache" || !strings.HasPrefix(s.Header.Get("Cookie"), "muid=") || !strings.Contains(s.Header.Get("User-Agent"), "Edg/143.0.0.0") ||
		s.Query["Sec-MS-GEC-Version"] != "1-143.0.3650.75" {
		t.Errorf("handshake %v %v", s.Header, s.Query)
	}
	ssml := s.Frames[1]
	for _, want := range []string{"X-Timestamp:", "GMT+0000 (Coordinated Universal Time)Z\r\nPath:ssml\r\n\r\n",
		"<voice name='Microsoft Server Speech Text to Speech Voice (de-DE, KatjaNeural)'>",
		"<prosody pitch='+0Hz' rate='+50%' volume='+0%'>Fish &amp; chips &lt;now&gt;</prosody>"} {
		if !strings.Contains(ssml, want) {
			t.Errorf("ssml frame lacks %q:\n%s", want, ssml)
		}
	}
}

func TestTextToSpeechEdgeLongTextIsChunked(t *testing.T) {
	fake := fakeapis.Start(t)
	f := mediatest.NewFixture(t, fake, edgeEnv(fake), "")
	text := strings.Repeat("A sentence of some words. ", 180) // ~4700 bytes
	out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"text": text})
	if res.IsError {
		t.Fatalf("failed: %v", out)
	}
	if n := len(fake.EdgeSessions()); n != 2 {
		t.Fatalf("%d sessions, want one per 4096-byte chunk", n)
	}
	if b, _ := os.ReadFile(out["file_path"].(string)); !bytes.Equal(b, append(fakeapis.MP3(), fakeapis.MP3()...)) {
		t.Error("audio of the chunks not concatenated")
	}
}

// A service clock ahead of ours refuses the token with 403 and its Date;
// the client corrects its clock and the retry succeeds.
func TestTextToSpeechEdgeClockSkew(t *testing.T) {
	fake := fakeapis.Start(t)
	f := mediatest.NewFixture(t, fake, edgeEnv(fake, "skew-3600"), "")
	out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"text": "hello"})
	if res.IsError || out["provider"] != "edge" {
		t.Fatalf("failed: %v", out)
	}
	if len(fake.EdgeSessions()) != 1 || len(fake.Requests(fakeapis.Edge)) != 2 {
		t.Errorf("want one refused handshake and one session, got %d requests", len(fake.Requests(fakeapis.Edge)))
	}
}

func TestTextToSpeechEdgeErrors(t *testing.T) {
	fake := fakeapis.Start(t)
	tests := []struct {
		name, steer, text, want string
	}{
		{"401", "trigger-401", "x", "HTTP 401"},
		{"429 with Retry-After", "trigger-429", "x", "retry after 7s"},
		{"5xx", "trigger-500", "x", "HTTP 500 (the service is failing"},
		{"handshake not upgraded", "trigger-malformed", "x", "HTTP 200"},
		{"garbled audio frame", "", "trigger-garbled", "header (5"},
		{"no audio", "", "trigger-noaudio", "returned no audio"},
		{"unknown message", "", "trigger-unknown", `unknown message (Path "surprise")`},
		{"timeout", "", "trigger-slow", "did not answer in time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var steer []string
			if tt.steer != "" {
				steer = append(steer, tt.steer)
			}
			f := mediatest.NewFixture(t, fake, edgeEnv(fake, steer...), "")
			f.Opts.LookPath = func(string) (string, error) { return "/usr/bin/espeak-ng", nil } // no fallback: these are not offline
			if tt.text == "trigger-slow" {
				f.Opts.Timeout = 300 * time.Millisecond
			}
			out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"text": tt.text})
			if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, tt.want) || !strings.HasPrefix(msg, "TTS failed (edge)") {
				t.Errorf("got %v, want %q", out, tt.want)
			}
			if entries, _ := os.ReadDir(filepath.Join(f.Home, "cache", "audio")); len(entries) != 0 {
				t.Errorf("a failed call left files: %v", entries)
			}
		})
	}
}

// Offline, Edge falls back to espeak-ng when it is installed, and says
// what to do when it is not.
func TestTextToSpeechEdgeOffline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "ws://" + ln.Addr().String() + edgePath
	ln.Close()
	env := map[string]string{EdgeURLEnv: dead}

	f := mediatest.NewFixture(t, nil, env, "")
	f.Opts.LookPath = func(string) (string, error) { return "", os.ErrNotExist }
	out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"text": "hello"})
	if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, "cannot reach Edge TTS") {
		t.Errorf("no espeak-ng: %v", out)
	}

	espeakOrSkip(t)
	f = mediatest.NewFixture(t, nil, env, "")
	out, res = mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"text": "hello"})
	if res.IsError || out["provider"] != "espeak-ng" || filepath.Ext(out["file_path"].(string)) != ".wav" {
		t.Fatalf("fallback: %v", out)
	}
	b, _ := os.ReadFile(out["file_path"].(string))
	if err := checkWAV(b); err != nil {
		t.Error(err)
	}
	out, res = mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"text": "hello", "output_path": "x.mp3"})
	if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, "give output_path a .wav extension") {
		t.Errorf("fallback into an .mp3 path: %v", out)
	}
}
