package tts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{`piper --model /m.onnx --output_file {output_path}`, []string{"piper", "--model", "/m.onnx", "--output_file", "{output_path}"}, false},
		{`say -v 'Good News' "a \"b\" $c" x\ y`, []string{"say", "-v", "Good News", `a "b" $c`, "x y"}, false},
		{`echo hi > /tmp/x | cat; rm -rf ~`, []string{"echo", "hi", ">", "/tmp/x", "|", "cat;", "rm", "-rf", "~"}, false},
		{`a '' b`, []string{"a", "", "b"}, false},
		{`a 'b`, nil, true},
		{`a "b`, nil, true},
		{`a \`, nil, true},
	}
	for _, tt := range tests {
		got, err := splitWords(tt.in)
		if (err != nil) != tt.err || !slices.Equal(got, tt.want) {
			t.Errorf("splitWords(%q) = %q, %v", tt.in, got, err)
		}
	}
}

func TestRender(t *testing.T) {
	vals := map[string]string{"voice": "Jenny Neural", "output_path": "/o.wav"}
	for in, want := range map[string]string{"--voice={voice}": "--voice=Jenny Neural", "{{literal}}": "{literal}", "{output_path}": "/o.wav"} {
		if got, err := render(in, vals); err != nil || got != want {
			t.Errorf("render(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"{nope}", "{voice", "a}b"} {
		if _, err := render(in, vals); err == nil {
			t.Errorf("render(%q) accepted", in)
		}
	}
}

// script writes an executable shell script: a real program, which the
// provider runs without a shell of its own.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "speak.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func commandConfig(cmd, extra string) string {
	return fmt.Sprintf("tts:\n  provider: mytts\n  speed: 1.25\n  providers:\n    mytts:\n      type: command\n      command: %q\n%s", cmd, extra)
}

func TestTextToSpeechCommand(t *testing.T) {
	dir := t.TempDir()
	mark := filepath.Join(dir, "MARK")
	// Writes its arguments, one per line, then the text and the
	// environment, to the output file.
	sh := script(t, `out="$1"; shift; { for a in "$@"; do echo "arg:$a"; done; echo "text:$(cat "$IN")"; env; } > "$out"`)
	env := map[string]string{"PATH": os.Getenv("PATH"), "OPENAI_API_KEY": "sk-secret-should-not-leak", "PASSME": "yes", "HOME": dir}
	cfg := commandConfig(sh+" {output_path} --voice {voice} --speed={speed} {format} {{x}} ; touch "+mark,
		"      format: wav\n      voice: Jenny Neural\n      voice_compatible: true\n      env_passthrough: [PASSME]\n")
	// The text path reaches the script through a placeholder-free
	// variable: IN comes from the passthrough list too.
	cfg = strings.Replace(cfg, "[PASSME]", "[PASSME, IN]", 1)
	f := mediatest.NewFixture(t, nil, env, cfg)
	tl := mediatest.OnlyTool(t, Toolset(f.Opts))
	if err := tl.Check(); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.txt")
	os.WriteFile(in, []byte("spoken words"), 0o600)
	env["IN"] = in
	out, res := mediatest.Call(t, context.Background(), tl, map[string]any{"text": "hello"})
	if res.IsError {
		t.Fatalf("failed: %v", out)
	}
	path, _ := out["file_path"].(string)
	if out["provider"] != "mytts" || filepath.Ext(path) != ".wav" || out["voice_compatible"] != true ||
		out["media_tag"] != "[[audio_as_voice]]\nMEDIA:"+path {
		t.Errorf("result = %v", out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{"arg:--voice\narg:Jenny Neural\n", "arg:--speed=1.25\n", "arg:wav\n", "arg:{x}\n", "arg:;\narg:touch\narg:" + mark + "\n", "PASSME=yes", "text:spoken words"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "sk-secret") {
		t.Error("the Hermes keys reached the program")
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("a shell ran the command: `; touch` took effect")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("work files left behind: %v", entries)
	}
}

// The text reaches the program through {input_path}.
func TestTextToSpeechCommandInput(t *testing.T) {
	sh := script(t, `cp "$1" "$2"`)
	f := mediatest.NewFixture(t, nil, map[string]string{"PATH": os.Getenv("PATH")}, commandConfig(sh+" {input_path} {output_path}", ""))
	out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"text": "Grüße, world"})
	if res.IsError {
		t.Fatalf("failed: %v", out)
	}
	if b, _ := os.ReadFile(out["file_path"].(string)); string(b) != "Grüße, world" || filepath.Ext(out["file_path"].(string)) != ".mp3" {
		t.Errorf("audio = %q, result %v", b, out)
	}
}

func TestTextToSpeechCommandFailures(t *testing.T) {
	pidDir := t.TempDir()
	tests := []struct {
		name, body, extra, want string
	}{
		{"exit code", `echo boom >&2; echo partial; exit 3`, "", "exited with code 3: stderr: boom; stdout: partial"},
		{"no output", `exit 0`, "", "produced no output"},
		{"empty output", `: > "$1"`, "", "produced no output"},
		{"output is a FIFO", `rm -f "$1"; mkfifo "$1"`, "", "not a regular file"},
		{"output is a symlink", `rm -f "$1"; ln -s /etc/passwd "$1"`, "", "produced no output"},
		{"idle timeout kills the group", `sleep 30 & echo $! > ` + pidDir + `/pid; wait`, "      timeout: 0.3\n", "timed out after 0.3s without output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := script(t, tt.body)
			f := mediatest.NewFixture(t, nil, map[string]string{"PATH": os.Getenv("PATH")}, commandConfig(sh+" {output_path}", tt.extra))
			start := time.Now()
			out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"text": "x"})
			if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, tt.want) || !strings.HasPrefix(msg, "TTS failed (mytts)") {
				t.Errorf("got %v, want %q", out, tt.want)
			}
			if time.Since(start) > 10*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			if entries, _ := os.ReadDir(filepath.Join(f.Home, "cache", "audio")); len(entries) != 0 {
				t.Errorf("a failed call left files: %v", entries)
			}
		})
	}
	// The background sleep of the timed-out program is gone too.
	b, err := os.ReadFile(filepath.Join(pidDir, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(st), ") Z ") {
			break // killed, waiting for its new parent to reap it
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d of the timed-out program still runs", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Output resets the idle timeout: a program that keeps talking is not cut
// off.
func TestTextToSpeechCommandIdleTimeoutResets(t *testing.T) {
	// Runs 3 s in all, longer than the 2 s timeout, speaking every 0.3 s.
	sh := script(t, `for i in 1 2 3 4 5 6 7 8 9 10; do echo working; sleep 0.3; done; echo audio > "$1"`)
	f := mediatest.NewFixture(t, nil, map[string]string{"PATH": os.Getenv("PATH")}, commandConfig(sh+" {output_path}", "      timeout: 2\n"))
	out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"text": "x"})
	if res.IsError {
		t.Fatalf("failed: %v", out)
	}
}

func TestCommandProviderConfigErrors(t *testing.T) {
	tests := []struct{ name, config, want string }{
		{"unknown placeholder at call time", commandConfig("say {nope}", ""), ""},
		{"unterminated quote", commandConfig("say 'x", ""), "tts.providers.mytts.command: unterminated single quote"},
		{"empty command", "tts:\n  provider: mytts\n  providers:\n    mytts:\n      command: \"  \"\n", "tts.providers.mytts.command is empty"},
		{"bad format", commandConfig("say", "      format: exe\n"), `tts.providers.mytts.format "exe"`},
		{"other type", "tts:\n  provider: mytts\n  providers:\n    mytts:\n      type: plugin\n      command: say\n", `tts.providers.mytts.type is "plugin"`},
		{"built-in name is never a command", "tts:\n  provider: minimax\n  providers:\n    minimax:\n      command: say\n", "MINIMAX_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mediatest.NewFixture(t, nil, nil, tt.config)
			err := mediatest.OnlyTool(t, Toolset(f.Opts)).Check()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check = %v", err)
				}
				out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"text": "x"})
				if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, "unknown placeholder {nope}") {
					t.Errorf("call: %v", out)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, want %q", err, tt.want)
			}
		})
	}
	t.Run("program not on PATH", func(t *testing.T) {
		f := mediatest.NewFixture(t, nil, nil, commandConfig("no-such-tts-program {output_path}", ""))
		out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"text": "x"})
		if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, `program "no-such-tts-program" not found`) {
			t.Errorf("got %v", out)
		}
	})
}
