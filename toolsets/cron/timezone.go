package cron

import (
	"log/slog"
	"strings"
	"time"
	// Embedded zone data: a user's configured zone must resolve on
	// machines without a zoneinfo database (Windows, slim containers), or
	// jobs would be scheduled on the server's clock instead.
	_ "time/tzdata"

	"github.com/hermes-go/hermes/internal/hermeshome"
)

// location is the Hermes timezone, as the original's hermes_time resolves
// it: HERMES_TIMEZONE, then config.yaml's timezone, then the server's own
// zone. An unknown name is logged and falls back to the server's zone,
// as the original does. Read on every call: the tool is called rarely and
// the user may change either between calls.
func (k *kit) location() *time.Location {
	name := strings.TrimSpace(k.getenv("HERMES_TIMEZONE"))
	source := "HERMES_TIMEZONE"
	if name == "" {
		var cfg struct {
			Timezone any `yaml:"timezone"`
		}
		if err := hermeshome.Decode(k.opts.Home, &cfg); err == nil {
			if s, ok := cfg.Timezone.(string); ok {
				name, source = strings.TrimSpace(s), "config.yaml timezone"
			}
		}
	}
	if name == "" {
		return time.Local
	}
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		k.logger.Warn("unknown timezone; scheduling on the server's local time", "source", source, "timezone", name)
		return time.Local
	}
	return loc
}

// clock is now in the Hermes timezone: what a job's times are written in
// and a timestamp without an offset means.
func (k *kit) clock() time.Time { return k.now().In(k.location()) }

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
