package bridge

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParsePluginList(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    []Plugin
		wantErr string
	}{
		{name: "fresh home", raw: `{"marketplaces":[],"marketplaceLoadErrors":[],"featuredPluginIds":[]}`, want: []Plugin{}},
		{name: "missing marketplaces", raw: `{"data":[]}`, wantErr: "plugin/list response missing 'marketplaces'"},
		{name: "null marketplaces", raw: `{"marketplaces":null}`, wantErr: "plugin/list response missing 'marketplaces'"},
		{name: "marketplaces not a list", raw: `{"marketplaces":{}}`, wantErr: "plugin/list response missing 'marketplaces'"},
		{name: "not an object", raw: `[]`, wantErr: "not an object"},
		{
			name: "installed and availability rules",
			raw: `{"marketplaces":[{"name":"m","plugins":[
				{"id":"a@m","name":"a","installed":true,"enabled":true,"availability":"AVAILABLE"},
				{"name":"b","installed":true,"enabled":true,"availability":"available"},
				{"name":"c","installed":true,"enabled":true,"availability":""},
				{"name":"d","installed":true,"enabled":true,"availability":null},
				{"name":"e","installed":true,"enabled":true},
				{"name":"f","installed":true,"enabled":true,"availability":"DISABLED_BY_ADMIN"},
				{"name":"g","installed":false,"enabled":true,"availability":"AVAILABLE"},
				{"name":"h","enabled":true},
				{"name":"","installed":true},
				{"installed":true},
				{"name":"i","installed":1,"availability":7}
			]}]}`,
			want: []Plugin{
				{Name: "a", Marketplace: "m", Enabled: true, ID: "a@m"},
				{Name: "b", Marketplace: "m", Enabled: true},
				{Name: "c", Marketplace: "m", Enabled: true},
				{Name: "d", Marketplace: "m", Enabled: true},
				{Name: "e", Marketplace: "m", Enabled: true},
			},
		},
		{
			name: "enabled defaults to true",
			raw: `{"marketplaces":[{"name":"m","plugins":[
				{"name":"on","installed":true},
				{"name":"null","installed":true,"enabled":null},
				{"name":"off","installed":true,"enabled":false}
			]}]}`,
			want: []Plugin{
				{Name: "on", Marketplace: "m", Enabled: true},
				{Name: "null", Marketplace: "m", Enabled: true},
				{Name: "off", Marketplace: "m", Enabled: false},
			},
		},
		{
			name: "default marketplace and dedupe, first wins",
			raw: `{"marketplaces":[
				{"plugins":[{"name":"gmail","installed":true,"enabled":false}]},
				{"name":"openai-curated","plugins":[{"name":"gmail","installed":true,"enabled":true}]},
				{"name":"other","plugins":[{"name":"gmail","installed":true,"enabled":true}]},
				"not an object",
				{"name":"bad","plugins":"nope"},
				{"name":"x","plugins":[42,{"name":"ok","installed":true,"future":{"a":1}}]}
			]}`,
			want: []Plugin{
				{Name: "gmail", Marketplace: "openai-curated", Enabled: false},
				{Name: "gmail", Marketplace: "other", Enabled: true},
				{Name: "ok", Marketplace: "x", Enabled: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePluginList(json.RawMessage(tt.raw))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestListPluginsFake(t *testing.T) {
	c := startFake(t, "", nil)
	ctx := ctxT(t, 5*time.Second)
	got, err := ListPlugins(ctx, c, []string{"/repo"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Plugin{
		{Name: "alpha", Marketplace: "home-market", Enabled: true, ID: "alpha@home-market"},
		{Name: "gamma", Marketplace: "cwd:/repo", Enabled: false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ListPlugins = %+v, want %+v", got, want)
	}
}

func TestListPluginsErrors(t *testing.T) {
	broken := startFake(t, "plugins-broken", nil)
	if _, err := ListPlugins(ctxT(t, 5*time.Second), broken, nil); err == nil || err.Error() != "plugin/list response missing 'marketplaces'" {
		t.Errorf("ListPlugins = %v", err)
	}
	closed := startFake(t, "", nil)
	closed.Close()
	if _, err := ListPlugins(ctxT(t, 5*time.Second), closed, nil); err == nil || !strings.HasPrefix(err.Error(), "plugin/list query failed: ") {
		t.Errorf("ListPlugins on a closed client = %v", err)
	}
}

func TestDiscoverPluginsFake(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	fakeCfg := func(mode string) Config {
		return Config{
			Binary: exe,
			Env:    append(os.Environ(), fakeEnv+"=1", fakeModeEnv+"="+mode, "GORACE=atexit_sleep_ms=0"),
			Logger: testLogger(t),
		}
	}
	tests := []struct {
		name    string
		cfg     Config
		cwds    []string
		want    []Plugin
		wantErr string
	}{
		{name: "ok", cfg: fakeCfg(""), want: []Plugin{{Name: "alpha", Marketplace: "home-market", Enabled: true, ID: "alpha@home-market"}}},
		{name: "cwds", cfg: fakeCfg(""), cwds: []string{"/r"}, want: []Plugin{
			{Name: "alpha", Marketplace: "home-market", Enabled: true, ID: "alpha@home-market"},
			{Name: "gamma", Marketplace: "cwd:/r", Enabled: false},
		}},
		{name: "broken list", cfg: fakeCfg("plugins-broken"), wantErr: "plugin/list response missing 'marketplaces'"},
		{name: "no binary", cfg: Config{Binary: "/nonexistent/codex"}, wantErr: "transport unavailable: "},
		{name: "not codex", cfg: Config{Binary: "/bin/true"}, wantErr: "transport unavailable: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DiscoverPlugins(context.Background(), tt.cfg, 10*time.Second, tt.cwds...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	checkNoLeaks(t)
}
