package imagegen_test

// image_generate's progress, as the official TypeScript SDK client sees it:
// this test binary re-executed in serve mode (mcptest) serves the
// image_gen toolset over stdio against the FAL fake on 127.0.0.1, and the
// SDK client calls it with an onprogress callback.

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
	"github.com/hermes-go/hermes/toolsets/imagegen"
	"github.com/hermes-go/hermes/toolsets/tooldef"
	"github.com/hermes-go/hermes/toolsets/tts"
	"github.com/hermes-go/hermes/toolsets/vision"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfChild(func() ([]tooldef.Toolset, func() error) {
		return []tooldef.Toolset{imagegen.Toolset(imagegen.Options{Home: os.Getenv("HERMES_HOME"), ProgressInterval: 100 * time.Millisecond})}, nil
	})
	os.Exit(m.Run())
}

func TestImageProgressThroughTypeScriptSDK(t *testing.T) {
	fake := fakeapis.Start(t)
	// No media provider's variable reaches the server but the FAL fake's
	// set here.
	providerEnv := slices.Concat(vision.EnvVars(), imagegen.EnvVars(), tts.EnvVars())
	out := mcptest.RunProgressClient(t, "image_generate", map[string]any{"prompt": "trigger-delay a brass telescope"},
		providerEnv, "HERMES_HOME="+t.TempDir(), "FAL_KEY="+fakeapis.FalKey, "FAL_BASE_URL="+fake.Base(fakeapis.FAL))
	if out.Result.IsError || len(out.Result.Content) != 2 || out.Result.Content[1].Type != "image" || out.Result.Content[1].MimeType != "image/png" {
		t.Fatalf("result = %+v", out.Result)
	}
	var got []float64
	for _, p := range out.Progress {
		got = append(got, p.Progress)
		if p.Total != nil || p.Message == "" {
			t.Errorf("progress %+v: want no total and a message", p)
		}
	}
	if len(got) < 2 || got[0] != 0 {
		t.Fatalf("progress = %v, want 0 and at least one tick over a 400 ms call", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Errorf("progress = %v, want strictly increasing (the order the server sent)", got)
		}
	}
}
