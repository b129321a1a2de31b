//go:build unix

package bridge

// Integration tests against the real codex CLI pinned in .ci/npm (`make test`
// installs it). Codex gets a temporary HOME and CODEX_HOME, and every proxy
// variable points at a local black hole: codex's only network traffic in these
// flows is the curated-plugin sync at start-up (git ls-remote github.com, then
// api.github.com and chatgpt.com fallbacks), and through the proxy it never
// leaves 127.0.0.1, not even for DNS. `--disable plugins` would also stop the
// sync, but it empties plugin/list, which these tests need.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/codextest"
)

func realConfig(t *testing.T, h codextest.Home, proxy *codextest.Proxy) Config {
	return Config{
		Binary: codextest.Binary(t),
		Env:    h.Env(proxy.URL()),
		Dir:    h.Home,
		Logger: testLogger(t),
	}
}

func startReal(t *testing.T, cfg Config) *Client {
	t.Helper()
	start := time.Now()
	c, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pid := c.PID()
		closeStart := time.Now()
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		t.Logf("codex pid %d: lived %v, Close took %v", pid, closeStart.Sub(start), time.Since(closeStart))
		checkReaped(t, pid)
	})
	return c
}

func initReal(t *testing.T, c *Client) InitializeResult {
	t.Helper()
	start := time.Now()
	res, err := c.Initialize(ctxT(t, 20*time.Second), ClientInfo{Name: "hermes-bridge-test", Title: "Hermes bridge test", Version: "0.0.1"}, Capabilities{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("initialize took %v", time.Since(start))
	return res
}

func TestRealCodexVersion(t *testing.T) {
	bin := codextest.Binary(t)
	// codex --version writes helper files under CODEX_HOME; keep them out
	// of the real ~/.codex.
	h := codextest.NewHome(t)
	t.Setenv("HOME", h.Home)
	t.Setenv("CODEX_HOME", h.CodexHome)
	v, err := CheckVersion(context.Background(), bin)
	if err != nil {
		t.Fatal(err)
	}
	if v.String() != TestedVersion || v.String() != codextest.Pinned {
		t.Errorf("pinned codex is %v; TestedVersion is %s, codextest.Pinned %s (update them together)", v, TestedVersion, codextest.Pinned)
	}
	old, err := CheckVersion(context.Background(), codextest.PreviousBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if old.String() != MinVersion || old.String() != codextest.Previous {
		t.Errorf("previous codex is %v; MinVersion is %s, codextest.Previous %s (update them together)", old, MinVersion, codextest.Previous)
	}
}

func TestRealCodexInitialize(t *testing.T) {
	t.Parallel()
	h := codextest.NewHome(t)
	var (
		mu    sync.Mutex
		notes []string
		ready = make(chan struct{})
	)
	cfg := realConfig(t, h, codextest.NewProxy(t))
	cfg.OnNotification = func(n Notification) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, n.Method)
		if n.Method == "remoteControl/status/changed" {
			close(ready)
		}
	}
	c := startReal(t, cfg)
	res, err := c.Initialize(ctxT(t, 20*time.Second),
		ClientInfo{Name: "hermes-bridge-test", Title: "Hermes bridge test", Version: "0.0.1"},
		Capabilities{ExperimentalAPI: true, OptOutNotificationMethods: []string{"configWarning"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.CodexHome != h.CodexHome {
		t.Errorf("codexHome = %q, want %q", res.CodexHome, h.CodexHome)
	}
	if !strings.HasPrefix(res.UserAgent, "hermes-bridge-test/"+TestedVersion+" ") || res.PlatformFamily == "" || res.PlatformOS == "" {
		t.Errorf("initialize result = %+v", res)
	}
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("no remoteControl/status/changed after initialize")
	}
	mu.Lock()
	for _, m := range notes {
		if m == "configWarning" {
			t.Errorf("got configWarning despite opting out (notifications: %q)", notes)
		}
	}
	mu.Unlock()

	// Nil params go out as {}; codex rejects a request without params.
	var loaded struct {
		Data []string `json:"data"`
	}
	if err := c.Call(ctxT(t, 20*time.Second), "thread/loaded/list", nil, &loaded); err != nil {
		t.Errorf("thread/loaded/list: %v", err)
	}

	err = c.Call(ctxT(t, 20*time.Second), "no/such/method", nil, nil)
	var rerr *RPCError
	if !errors.As(err, &rerr) || rerr.Code != CodeInvalidRequest || !strings.Contains(rerr.Message, "unknown variant `no/such/method`") {
		t.Errorf("unknown method = %v", err)
	}
	if _, err := c.Initialize(ctxT(t, 20*time.Second), ClientInfo{Name: "again", Version: "1"}, Capabilities{}); err == nil {
		t.Error("second Initialize succeeded")
	}
}

func TestRealCodexPlugins(t *testing.T) {
	t.Parallel()
	h := codextest.NewHome(t)
	c := startReal(t, realConfig(t, h, codextest.NewProxy(t)))
	initReal(t, c)
	ctx := ctxT(t, 30*time.Second)

	plugins, err := ListPlugins(ctx, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plugins) != 0 {
		t.Errorf("fresh home lists plugins %+v", plugins)
	}

	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.CopyFS(repo, os.DirFS("testdata/marketplace")); err != nil {
		t.Fatal(err)
	}
	// Listed but not installed: codex reports it, the filter drops it.
	var raw struct {
		Marketplaces []struct {
			Name    string `json:"name"`
			Plugins []struct {
				ID           string `json:"id"`
				Installed    bool   `json:"installed"`
				Availability string `json:"availability"`
			} `json:"plugins"`
		} `json:"marketplaces"`
	}
	if err := c.Call(ctx, "plugin/list", map[string]any{"cwds": []string{repo}}, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Marketplaces) != 1 || raw.Marketplaces[0].Name != "hermes-fixture" || len(raw.Marketplaces[0].Plugins) != 1 ||
		raw.Marketplaces[0].Plugins[0].ID != "tinyplug@hermes-fixture" || raw.Marketplaces[0].Plugins[0].Installed ||
		raw.Marketplaces[0].Plugins[0].Availability != "AVAILABLE" {
		t.Fatalf("plugin/list with the fixture = %+v", raw)
	}
	if plugins, err := ListPlugins(ctx, c, []string{repo}); err != nil || len(plugins) != 0 {
		t.Errorf("ListPlugins before install = %+v, %v", plugins, err)
	}

	var installed struct {
		AuthPolicy string `json:"authPolicy"`
	}
	if err := c.Call(ctx, "plugin/install", map[string]string{
		"marketplacePath": filepath.Join(repo, ".agents", "plugins", "marketplace.json"),
		"pluginName":      "tinyplug",
	}, &installed); err != nil {
		t.Fatal(err)
	}
	plugins, err = ListPlugins(ctx, c, []string{repo})
	if err != nil {
		t.Fatal(err)
	}
	want := []Plugin{{Name: "tinyplug", Marketplace: "hermes-fixture", Enabled: true, ID: "tinyplug@hermes-fixture"}}
	if !reflect.DeepEqual(plugins, want) {
		t.Errorf("ListPlugins after install = %+v, want %+v", plugins, want)
	}
	cfgToml, err := os.ReadFile(filepath.Join(h.CodexHome, "config.toml"))
	if err != nil || !strings.Contains(string(cfgToml), `[plugins."tinyplug@hermes-fixture"]`) {
		t.Errorf("config.toml after install: %q, %v", cfgToml, err)
	}
	// Codex only reports plugins of marketplaces it can see: without the
	// cwd, the installed plugin is invisible.
	if plugins, err := ListPlugins(ctx, c, nil); err != nil || len(plugins) != 0 {
		t.Errorf("ListPlugins without cwds = %+v, %v", plugins, err)
	}
}

func TestRealDiscoverPlugins(t *testing.T) {
	t.Parallel()
	h := codextest.NewHome(t)
	// The fixture as the user's personal marketplace:
	// ~/.agents/plugins/marketplace.json.
	if err := os.CopyFS(h.Home, os.DirFS("testdata/marketplace")); err != nil {
		t.Fatal(err)
	}
	cfg := realConfig(t, h, codextest.NewProxy(t))

	start := time.Now()
	plugins, err := DiscoverPlugins(context.Background(), cfg, 30*time.Second)
	if err != nil || len(plugins) != 0 {
		t.Fatalf("DiscoverPlugins before install = %+v, %v", plugins, err)
	}
	t.Logf("DiscoverPlugins (start, initialize, list, close) took %v", time.Since(start))

	c := startReal(t, cfg)
	initReal(t, c)
	if err := c.Call(ctxT(t, 30*time.Second), "plugin/install", map[string]string{
		"marketplacePath": filepath.Join(h.Home, ".agents", "plugins", "marketplace.json"),
		"pluginName":      "tinyplug",
	}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	plugins, err = DiscoverPlugins(context.Background(), cfg, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := []Plugin{{Name: "tinyplug", Marketplace: "hermes-fixture", Enabled: true, ID: "tinyplug@hermes-fixture"}}
	if !reflect.DeepEqual(plugins, want) {
		t.Errorf("DiscoverPlugins = %+v, want %+v", plugins, want)
	}

	// A codex that cannot start is an error, not a hang.
	bad := cfg
	bad.Binary = filepath.Join(t.TempDir(), "codex")
	if _, err := DiscoverPlugins(context.Background(), bad, 5*time.Second); err == nil || !strings.HasPrefix(err.Error(), "transport unavailable: ") {
		t.Errorf("DiscoverPlugins with a missing binary = %v", err)
	}
}

// TestRealCodexTerminated checks that a real codex dying mid-session is
// reported with its exit status and stderr.
func TestRealCodexTerminated(t *testing.T) {
	t.Parallel()
	h := codextest.NewHome(t)
	cfg := realConfig(t, h, codextest.NewProxy(t))
	c, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	initReal(t, c)
	pid := c.PID()
	killChild(t, pid)
	waitDone(t, c, 10*time.Second)
	var te *TerminatedError
	if !errors.As(c.Err(), &te) || te.ExitCode != -1 {
		t.Errorf("Err = %v", c.Err())
	}
	err = c.Call(ctxT(t, 5*time.Second), "thread/loaded/list", nil, nil)
	if !errors.As(err, &te) {
		t.Errorf("Call after kill = %v", err)
	}
	if err := c.Close(); err == nil || !strings.Contains(err.Error(), "signal: killed") {
		t.Errorf("Close = %v", err)
	}
	checkReaped(t, pid)
}
