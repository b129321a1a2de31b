// Package mediatest holds what the tests of the vision, image_gen and tts
// toolsets share: options over a fresh Hermes home, the fake providers'
// environment, and calling a toolset's one tool.
package mediatest

import (
	"context"
	"encoding/json"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// PublicResolver resolves every name to a public address, so the URL
// policy lets a test's request through to where its dialer sends it.
type PublicResolver struct{}

func (PublicResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
}

// Fixture is a fresh Hermes home and the options that reach the fakes.
type Fixture struct {
	Fake *fakeapis.Server
	Home string
	Opts mediaapi.Options
}

// NewFixture returns options over a fresh home holding configYAML (none
// when empty) and an environment of exactly env, with short timeouts.
func NewFixture(t *testing.T, fake *fakeapis.Server, env map[string]string, configYAML string) *Fixture {
	t.Helper()
	home := homeWith(t, configYAML)
	return &Fixture{Fake: fake, Home: home, Opts: mediaapi.Options{
		Home: home, Getenv: func(k string) string { return env[k] }, Resolver: PublicResolver{},
		Timeout: 3 * time.Second, ProgressInterval: 100 * time.Millisecond,
	}}
}

// Options returns Options over a fresh home holding configYAML (none when
// empty), an environment of exactly env, and espeak-ng found or not.
func Options(t *testing.T, env map[string]string, configYAML string, espeak bool) mediaapi.Options {
	t.Helper()
	return mediaapi.Options{
		Home:   homeWith(t, configYAML),
		Getenv: func(k string) string { return env[k] },
		LookPath: func(file string) (string, error) {
			if espeak {
				return "/usr/bin/" + file, nil
			}
			return "", exec.ErrNotFound
		},
	}
}

func homeWith(t *testing.T, configYAML string) string {
	t.Helper()
	home := t.TempDir()
	if configYAML != "" {
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(configYAML), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// OpenAIEnv is the environment that points OpenAI calls at the fake.
func OpenAIEnv(fake *fakeapis.Server) map[string]string {
	return map[string]string{"OPENAI_API_KEY": fakeapis.OpenAIKey, "OPENAI_BASE_URL": fake.Base(fakeapis.OpenAI)}
}

// OnlyTool returns the one tool of a media toolset.
func OnlyTool(t *testing.T, ts tooldef.Toolset) tooldef.Tool {
	t.Helper()
	if len(ts.Tools) != 1 {
		t.Fatalf("toolset %s has %d tools", ts.Name, len(ts.Tools))
	}
	return ts.Tools[0]
}

// Call runs the tool's handler with args and returns the result as an
// object as well; a Go error fails the test.
func Call(t *testing.T, ctx context.Context, tl tooldef.Tool, args any) (map[string]any, tooldef.Result) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := tl.Handler(ctx, raw)
	if err != nil {
		t.Fatalf("%s: Go error %v", tl.Name, err)
	}
	b, err := tooldef.EncodeJSON(res.Value)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("result is not an object: %s", b)
	}
	return out, res
}
