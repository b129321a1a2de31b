// Package xsearch is the `x_search` toolset: the original's x_search tool
// (tools/x_search_tool.py), which asks xAI's Responses API to search X
// with its built-in x_search tool and returns the answer with its
// citations, flagged "degraded" when the answer came without any. Same
// schema, validation messages, request, retries (honouring Retry-After)
// and result shapes as the original. It is off by default, as in Hermes,
// and its tool hides itself until XAI_API_KEY is set; the original also
// accepts a SuperGrok sign-in from its auth.json, which this build does
// not read.
package xsearch

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/hermes-go/hermes/internal/buildinfo"
	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Options configures the x_search toolset.
type Options struct {
	// Home is HERMES_HOME; config.yaml's x_search section (model,
	// reasoning_effort, timeout_seconds, retries) is read on every call.
	Home string
	// Getenv reads XAI_API_KEY and XAI_BASE_URL; nil means os.Getenv.
	Getenv func(string) string
	// HTTPClient sends the requests; nil means a client with sane
	// connection timeouts (the call's own timeout comes from config.yaml).
	HTTPClient *http.Client
	// Timeout, when positive, replaces x_search.timeout_seconds (and its
	// 30-second floor), for tests.
	Timeout time.Duration
	// Sleep waits between retries, returning early with ctx's error; nil
	// means a timer. Tests record the waits instead.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock a from_date in the future is judged by; nil means
	// time.Now.
	Now func() time.Time
	// Version goes into the User-Agent, Hermes-Agent/<version>; empty
	// means this build's version.
	Version string
}

// ToolsetName is what users type in --toolsets.
const ToolsetName = catalog.XSearch

// ToolName is the wire name of the toolset's only tool.
const ToolName = catalog.XSearchTool

// EnvVars returns the environment variables the toolset reads.
func EnvVars() []string { return catalog.Get(ToolsetName).EnvVars }

// tool holds the resolved options.
type tool struct {
	home    string
	getenv  func(string) string
	api     *http.Client
	timeout time.Duration
	sleep   func(context.Context, time.Duration) error
	now     func() time.Time
	agent   string
}

// Toolset returns the x_search toolset.
func Toolset(opts Options) tooldef.Toolset {
	t := &tool{home: opts.Home, getenv: opts.Getenv, api: opts.HTTPClient, timeout: opts.Timeout, sleep: opts.Sleep, now: opts.Now}
	if t.getenv == nil {
		t.getenv = os.Getenv
	}
	if t.api == nil {
		t.api = &http.Client{Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			TLSHandshakeTimeout: 10 * time.Second,
		}}
	}
	if t.sleep == nil {
		t.sleep = sleepCtx
	}
	if t.now == nil {
		t.now = time.Now
	}
	v := opts.Version
	if v == "" {
		v = buildinfo.Version("")
	}
	t.agent = "Hermes-Agent/" + v
	meta := catalog.Get(ToolsetName)
	getenv := t.getenv
	return tooldef.Toolset{
		Name:         ToolsetName,
		Description:  meta.Description,
		Default:      meta.Default,
		Instructions: "Use x_search for what people on X are saying now; use web_search for web pages.",
		EnvVars:      meta.EnvVars,
		Tools: []tooldef.Tool{{
			Name:         ToolName,
			Title:        "Search X",
			Description:  description,
			InputSchema:  json.RawMessage(inputSchema),
			OutputSchema: json.RawMessage(outputSchema),
			Hints:        tooldef.Hints{ReadOnly: true, Idempotent: true, OpenWorld: true},
			Handler:      t.handle,
			Check:        func() error { return check(getenv) },
		}},
	}
}

// ErrNoKey is why x_search is hidden.
var ErrNoKey error = noKeyError{}

type noKeyError struct{}

func (noKeyError) Error() string {
	return "x_search needs XAI_API_KEY (an xAI API key, https://console.x.ai) in the environment hermes-tools runs in " +
		"(for an MCP client, the env section of its hermes-tools entry); Hermes' SuperGrok sign-in " +
		"(hermes auth add xai-oauth) is not read by hermes-tools"
}

func check(getenv func(string) string) error {
	if getenv("XAI_API_KEY") == "" {
		return ErrNoKey
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return errors.Join(ctx.Err())
	}
}
