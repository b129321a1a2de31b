package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
)

// profileRoot is a Hermes root with a profile "work" whose .env holds
// the Tavily key and base URL; the root's own .env holds a wrong key,
// which a program running the profile must not read (the original reads
// only the current home's .env).
func profileRoot(t *testing.T, fake *fakeapis.Server) (root, work string) {
	t.Helper()
	root = t.TempDir()
	work = filepath.Join(root, "profiles", "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		filepath.Join(root, ".env"): "TAVILY_API_KEY=tvly-root-key-not-this-one\n",
		// As `hermes config set` writes it, plus a comment and quotes.
		filepath.Join(work, ".env"):        "# keys\nTAVILY_API_KEY=\"" + fakeapis.TavilyKey + "\"\nexport TAVILY_BASE_URL=" + fake.Base(fakeapis.Tavily) + " # local fake\n",
		filepath.Join(work, "config.yaml"): "web:\n  allow_private_urls: true\n",
	}
	for p, text := range files {
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root, work
}

// TestDotEnvKeysReachTheServer: a key the user keeps in the profile's
// .env reaches the server process and the provider it calls, over a
// stale value exported in the shell, and -p picks the profile.
func TestDotEnvKeysReachTheServer(t *testing.T) {
	fake := fakeapis.Start(t)
	root, _ := profileRoot(t, fake)
	cmd := exec.Command(toolsbuild.ServerBinary(t), "-p", "work", "--toolsets", "web")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "HERMES_HOME=" + root,
		"TAVILY_API_KEY=tvly-stale-shell-value"}
	c := mcptest.Start(t, cmd)
	res := c.MustCall(t, "web_search", map[string]any{"query": "hermes agent"})
	if res.IsError {
		t.Fatalf("web_search: %s\nstderr:\n%s", res.Text(), c.Stderr())
	}
	reqs := fake.Requests(fakeapis.Tavily)
	if len(reqs) == 0 {
		t.Fatalf("Tavily was never called:\n%s", c.Stderr())
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer "+fakeapis.TavilyKey {
		t.Errorf("Tavily saw Authorization %q, want the profile .env's key", got)
	}
}

// TestDoctorNamesWhereKeysCameFrom: doctor lists the set keys by name and
// source, never a value, and says which profile it serves and why.
func TestDoctorNamesWhereKeysCameFrom(t *testing.T) {
	fake := fakeapis.Start(t)
	root, work := profileRoot(t, fake)
	t.Setenv("HERMES_HOME", root)
	t.Setenv("TAVILY_API_KEY", "")
	t.Setenv("EXA_API_KEY", "exa-from-shell")
	code, stdout, stderr := runCLI(t, "", "doctor", "--json", "--profile", "Work")
	if code != exitOK {
		t.Fatalf("doctor: exit %d\n%s", code, stderr)
	}
	var rep doctorReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.HermesHome != work || rep.Profile != "work" || rep.HomeSource != "--profile" {
		t.Errorf("home %q profile %q from %q", rep.HermesHome, rep.Profile, rep.HomeSource)
	}
	want := []doctorKey{
		{Name: "EXA_API_KEY", Source: "environment"},
		{Name: "TAVILY_API_KEY", Source: filepath.Join(work, ".env")},
		{Name: "TAVILY_BASE_URL", Source: filepath.Join(work, ".env")},
	}
	if !slices.Equal(rep.Keys, want) {
		t.Errorf("keys %+v\nwant %+v", rep.Keys, want)
	}
	for _, tool := range rep.Tools {
		if tool.Name == "web_search" && !tool.Enabled {
			t.Errorf("web_search hidden (%s) though the profile's .env has a key", tool.Reason)
		}
	}
	if strings.Contains(stdout, fakeapis.TavilyKey) || strings.Contains(stdout, "exa-from-shell") {
		t.Errorf("doctor printed a key's value:\n%s", stdout)
	}
	// The text form says the same.
	_, text, _ := runCLI(t, "", "doctor", "-p", "work")
	if !strings.Contains(text, "(profile work, from --profile)") || !strings.Contains(text, "TAVILY_API_KEY ("+filepath.Join(work, ".env")+")") {
		t.Errorf("doctor text:\n%s", text)
	}
}

func TestProfileErrors(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HERMES_HOME", root)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"doctor", "-p", "nope"}, `profile "nope" does not exist`},
		{[]string{"doctor", "-p"}, "-p needs a profile name"},
		{[]string{"doctor", "--profile", "Bad Name"}, "not a valid profile name"},
	} {
		code, _, stderr := runCLI(t, "", tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 with %q", tt.args, code, stderr, tt.want)
		}
	}
}
