package tts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/internal/safefile"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
)

// builtinProviders are never command providers, as in the original: a
// tts.providers entry with one of these names is ignored.
var builtinProviders = map[string]bool{
	"edge": true, "elevenlabs": true, "openai": true, "minimax": true, "xai": true, "mistral": true,
	"gemini": true, "neutts": true, "kittentts": true, "piper": true, "deepinfra": true,
}

// commandFormats are the audio formats a command provider may declare.
var commandFormats = map[string]bool{"mp3": true, "wav": true, "ogg": true, "flac": true, "m4a": true, "aac": true, "amr": true, "opus": true}

const (
	defaultCommandTimeout = 120 * time.Second
	// commandMaxAudio bounds the file a command may leave behind.
	commandMaxAudio = 64 << 20
	// commandOutputTail is how much of stdout and stderr an error quotes.
	commandOutputTail = 2000
)

// commandSpec is a command provider resolved from config.yaml.
type commandSpec struct {
	name    string
	argv    []string
	format  string
	timeout time.Duration
	voice   string
	model   string
	speed   string
	voiceOK bool
	pass    []string
}

// resolveCommand validates tts.providers.<name>; the error names the
// setting to fix.
func resolveCommand(name string, c mediaapi.CommandTTS, ttsSpeed float64) (*commandSpec, error) {
	key := "tts.providers." + name
	if t := strings.TrimSpace(c.Type); t != "" && t != "command" {
		return nil, fmt.Errorf("%s.type is %q; hermes-tools runs only type: command providers", key, t)
	}
	argv, err := splitWords(c.Command)
	if err != nil {
		return nil, fmt.Errorf("%s.command: %w", key, err)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("%s.command is empty: name the program to run, e.g. \"piper --model /m.onnx --output_file {output_path} --input_file {input_path}\"", key)
	}
	format := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(cmpOr(c.Format, c.OutputFormat, "mp3")), "."))
	if !commandFormats[format] {
		return nil, fmt.Errorf("%s.format %q is not one of mp3, wav, ogg, flac, m4a, aac, amr, opus", key, format)
	}
	timeout := defaultCommandTimeout
	if t := cmpOrF(c.Timeout, c.TimeoutSeconds); t > 0 {
		timeout = time.Duration(t * float64(time.Second))
	} else if t < 0 {
		return nil, fmt.Errorf("%s.timeout must be a positive number of seconds", key)
	}
	speed := ""
	if c.Speed != nil {
		speed = strconv.FormatFloat(*c.Speed, 'f', -1, 64)
	} else if ttsSpeed > 0 {
		speed = strconv.FormatFloat(ttsSpeed, 'f', -1, 64)
	}
	return &commandSpec{
		name: name, argv: argv, format: format, timeout: timeout, voice: c.Voice, model: c.Model,
		speed: speed, voiceOK: c.VoiceCompat, pass: c.EnvPassthrough,
	}, nil
}

func cmpOr(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

func cmpOrF(vals ...float64) float64 {
	for _, v := range vals {
		if v != 0 {
			return v
		}
	}
	return 0
}

// splitWords splits a command template as a POSIX shell splits words,
// without expanding anything: quotes group, a backslash escapes outside
// single quotes. Placeholders are substituted afterwards, so a value can
// never become two arguments.
func splitWords(s string) ([]string, error) {
	var (
		out   []string
		cur   strings.Builder
		inTok bool
	)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inTok {
				out = append(out, cur.String())
				cur.Reset()
				inTok = false
			}
		case c == '\'':
			inTok = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inTok = true
			i++
			for ; ; i++ {
				if i >= len(s) {
					return nil, errors.New("unterminated double quote")
				}
				if s[i] == '"' {
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`\n", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
		case c == '\\':
			inTok = true
			if i+1 >= len(s) {
				return nil, errors.New("trailing backslash")
			}
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
			}
		default:
			inTok = true
			cur.WriteByte(c)
		}
	}
	if inTok {
		out = append(out, cur.String())
	}
	return out, nil
}

// render substitutes {name} placeholders in one argument; {{ and }} are
// literal braces. An unknown placeholder is an error, not left in place.
func render(arg string, vals map[string]string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(arg); i++ {
		switch c := arg[i]; {
		case c == '{' && i+1 < len(arg) && arg[i+1] == '{':
			b.WriteByte('{')
			i++
		case c == '}' && i+1 < len(arg) && arg[i+1] == '}':
			b.WriteByte('}')
			i++
		case c == '{':
			j := strings.IndexByte(arg[i:], '}')
			if j < 0 {
				return "", fmt.Errorf("unclosed { in %q (write {{ for a literal brace)", arg)
			}
			name := arg[i+1 : i+j]
			v, ok := vals[name]
			if !ok {
				return "", fmt.Errorf("unknown placeholder {%s} (known: {input_path} {text_path} {output_path} {format} {voice} {model} {speed})", name)
			}
			b.WriteString(v)
			i += j
		case c == '}':
			return "", fmt.Errorf("stray } in %q (write }} for a literal brace)", arg)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// childEnv is the environment a command provider sees: what programs need
// to run, never the Hermes keys, plus what the user passes through by
// name.
func (s *speaker) childEnv(pass []string) []string {
	var env []string
	for _, k := range append([]string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", "HERMES_HOME"}, pass...) {
		if v := s.e.Opts.Var(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// tailBuffer keeps the last n bytes written and resets the idle timer on
// every write.
type tailBuffer struct {
	mu    sync.Mutex
	buf   []byte
	n     int
	alive func()
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.n {
		t.buf = t.buf[len(t.buf)-t.n:]
	}
	t.alive()
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(redact.String(string(t.buf)))
}

// command runs the user's program in a private directory under dir and
// returns the audio it wrote. The timeout is an idle timeout, reset by any
// output, as in the original; the program runs in its own process group,
// which is killed when it times out or the call is cancelled.
func (s *speaker) command(ctx context.Context, spec *commandSpec, text, dir string) ([]byte, error) {
	work, err := os.MkdirTemp(dir, ".tts-cmd-*")
	if err != nil {
		return nil, fmt.Errorf("create a work directory in %s: %w", dir, err)
	}
	defer os.RemoveAll(work)
	input := filepath.Join(work, "input.txt")
	if err := os.WriteFile(input, []byte(text), 0o600); err != nil {
		return nil, fmt.Errorf("write the text for %s: %w", spec.name, err)
	}
	output := filepath.Join(work, "output."+spec.format)
	vals := map[string]string{
		"input_path": input, "text_path": input, "output_path": output, "format": spec.format,
		"voice": spec.voice, "model": spec.model, "speed": spec.speed,
	}
	argv := make([]string, len(spec.argv))
	for i, a := range spec.argv {
		if argv[i], err = render(a, vals); err != nil {
			return nil, fmt.Errorf("tts.providers.%s.command: %w", spec.name, err)
		}
	}
	prog := argv[0]
	if !strings.Contains(prog, "/") {
		if prog, err = s.e.Opts.FindProgram(prog); err != nil {
			return nil, fmt.Errorf("TTS provider '%s': program %q not found on PATH (tts.providers.%s.command)", spec.name, argv[0], spec.name)
		}
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	errIdle := fmt.Errorf("TTS provider '%s' timed out after %gs without output (tts.providers.%s.timeout)", spec.name, spec.timeout.Seconds(), spec.name)
	idle := time.AfterFunc(spec.timeout, func() { cancel(errIdle) })
	defer idle.Stop()
	alive := func() { idle.Reset(spec.timeout) }
	stdout := &tailBuffer{n: commandOutputTail, alive: alive}
	stderr := &tailBuffer{n: commandOutputTail, alive: alive}

	cmd := exec.CommandContext(ctx, prog, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = work
	cmd.Env = s.childEnv(spec.pass)
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = stdout, stderr
	ownGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	runErr := cmd.Run()
	if cmd.Process != nil {
		// Whatever the program left running in its group goes with it.
		killGroup(cmd)
	}
	if cause := context.Cause(ctx); cause != nil && ctx.Err() != nil {
		if errors.Is(cause, errIdle) {
			return nil, errIdle
		}
		return nil, cause
	}
	if runErr != nil {
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			return nil, fmt.Errorf("TTS provider '%s' exited with code %d: stderr: %s; stdout: %s", spec.name, ee.ExitCode(), stderr, stdout)
		}
		return nil, fmt.Errorf("TTS provider '%s': %w", spec.name, runErr)
	}
	audio, err := readRegular(output, commandMaxAudio)
	if err != nil || len(audio) == 0 {
		detail := "empty file"
		if err != nil {
			detail = err.Error()
		}
		return nil, fmt.Errorf("TTS provider '%s' produced no output at {output_path} (%s); stderr: %s", spec.name, detail, stderr)
	}
	return audio, nil
}

// readRegular reads a regular file of at most max bytes without following
// a final symlink, so a program cannot hand us a FIFO or another file.
func readRegular(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|safefile.OpenFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Base(path))
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, over the %d MiB limit", filepath.Base(path), st.Size(), max>>20)
	}
	return io.ReadAll(io.LimitReader(f, max+1))
}
