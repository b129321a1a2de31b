// Package cron serves Hermes' cronjob_manage tool (tools/cronjob_tools.py;
// named cronjob before) to MCP clients as the cronjob toolset. It edits
// the jobs store of the original's scheduler, cron/jobs.json in the
// Hermes home, in the original's layout and under its lock, so a job made
// here is fired by Hermes' gateway and a job Hermes made is listed and
// edited here. This server never runs a job: a job fires only while
// Hermes' gateway (its scheduler ticker) is running.
package cron

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"os"
	"time"

	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Options configures the cron toolset.
type Options struct {
	// Home is HERMES_HOME; the jobs live in Home/cron/jobs.json.
	Home string
	// Now stamps jobs; nil means time.Now. Its result is read in the
	// Hermes timezone (HERMES_TIMEZONE, config.yaml's timezone, else the
	// server's zone).
	Now func() time.Time
	// NewID makes job ids; nil means the original's uuid4().hex[:12].
	NewID func() string
	// Getenv reads HERMES_TIMEZONE; nil means os.Getenv.
	Getenv func(string) string
	// Logger receives diagnostics (an unknown timezone); nil discards them.
	Logger *slog.Logger
}

// ToolsetName is what users type in --toolsets.
const ToolsetName = catalog.Cron

// ToolName is the wire name of the toolset's only tool.
const ToolName = catalog.CronTool

type kit struct {
	opts   Options
	now    func() time.Time
	newID  func() string
	getenv func(string) string
	logger *slog.Logger
}

// Toolset returns the cron toolset.
func Toolset(opts Options) tooldef.Toolset {
	k := &kit{opts: opts, now: opts.Now, newID: opts.NewID, getenv: opts.Getenv, logger: opts.Logger}
	if k.now == nil {
		k.now = time.Now
	}
	if k.newID == nil {
		k.newID = randomID
	}
	if k.getenv == nil {
		k.getenv = os.Getenv
	}
	if k.logger == nil {
		k.logger = discardLogger()
	}
	return declare(k.handle)
}

// randomID is 12 hex digits of random, the shape of uuid4().hex[:12].
func randomID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func declare(handle tooldef.Handler) tooldef.Toolset {
	meta := catalog.Get(ToolsetName)
	return tooldef.Toolset{
		Name:        ToolsetName,
		Description: meta.Description,
		Default:     meta.Default,
		EnvVars:     meta.EnvVars,
		Tools: []tooldef.Tool{{
			Name:        ToolName,
			Title:       "Scheduled jobs",
			Description: description,
			InputSchema: json.RawMessage(inputSchema),
			// remove deletes a job; create repeated makes a second one.
			Hints:   tooldef.Hints{Destructive: true},
			Handler: handle,
		}},
	}
}
