package cron

import (
	"strings"
	"testing"
	"time"
)

// The original's parse_schedule/compute_next_run (cron/jobs.py) on the
// same inputs, at 2026-11-28 10:30:15.25 UTC (a Saturday).
func TestParseSchedule(t *testing.T) {
	tests := []struct {
		in, kind, display, field, value, next string
	}{
		{"every 30m", "interval", "every 30m", "minutes", "30", "2026-11-28T11:00:15.250000+00:00"},
		{"Every 2 hours", "interval", "every 120m", "minutes", "120", "2026-11-28T12:30:15.250000+00:00"},
		{"every 1d", "interval", "every 1440m", "minutes", "1440", "2026-11-29T10:30:15.250000+00:00"},
		// A bare duration recurs; "in" makes a one-shot.
		{"30m", "interval", "every 30m", "minutes", "30", "2026-11-28T11:00:15.250000+00:00"},
		{" 2h ", "interval", "every 120m", "minutes", "120", "2026-11-28T12:30:15.250000+00:00"},
		{"every hour", "interval", "every 60m", "minutes", "60", "2026-11-28T11:30:15.250000+00:00"},
		{"day", "interval", "every 1440m", "minutes", "1440", "2026-11-29T10:30:15.250000+00:00"},
		{"in 30m", "once", "once in 30m", "run_at", "2026-11-28T11:00:15.250000+00:00", "2026-11-28T11:00:15.250000+00:00"},
		{"In 2 Hours", "once", "once in 2 Hours", "run_at", "2026-11-28T12:30:15.250000+00:00", "2026-11-28T12:30:15.250000+00:00"},
		// Natural days and times become cron expressions.
		{"every monday 9am", "cron", "every monday 9am", "expr", "0 9 * * 1", "2026-11-30T09:00:00+00:00"},
		{"weekdays at 9am", "cron", "weekdays at 9am", "expr", "0 9 * * 1-5", "2026-11-30T09:00:00+00:00"},
		{"every day at 9:30pm", "cron", "every day at 9:30pm", "expr", "30 21 * * *", "2026-11-28T21:30:00+00:00"},
		{"every monday, wednesday and friday at noon", "cron", "every monday, wednesday and friday at noon", "expr", "0 12 * * 1,3,5", "2026-11-30T12:00:00+00:00"},
		{"Every Weekend midnight", "cron", "Every Weekend midnight", "expr", "0 0 * * 0,6", "2026-11-29T00:00:00+00:00"},
		{"sat 7", "cron", "sat 7", "expr", "0 7 * * 6", "2026-12-05T07:00:00+00:00"},
		{"every tue 12 am", "cron", "every tue 12 am", "expr", "0 0 * * 2", "2026-12-01T00:00:00+00:00"},
		// Named months and weekdays, as croniter reads them.
		{"0 9 * * MON-FRI", "cron", "0 9 * * MON-FRI", "expr", "0 9 * * MON-FRI", "2026-11-30T09:00:00+00:00"},
		{"0 9 1 jan,Jul *", "cron", "0 9 1 jan,Jul *", "expr", "0 9 1 jan,Jul *", "2027-01-01T09:00:00+00:00"},
		{"0 9 * * *", "cron", "0 9 * * *", "expr", "0 9 * * *", "2026-11-29T09:00:00+00:00"},
		{"*/15 * * * *", "cron", "*/15 * * * *", "expr", "*/15 * * * *", "2026-11-28T10:45:00+00:00"},
		{"0 7 * * 1-5", "cron", "0 7 * * 1-5", "expr", "0 7 * * 1-5", "2026-11-30T07:00:00+00:00"},
		{"0 0 * * 7", "cron", "0 0 * * 7", "expr", "0 0 * * 7", "2026-11-29T00:00:00+00:00"},
		// Both day fields restricted: either matches (croniter's day_or).
		{"0 12 1 * 1", "cron", "0 12 1 * 1", "expr", "0 12 1 * 1", "2026-11-30T12:00:00+00:00"},
		{"0 0 29 2 *", "cron", "0 0 29 2 *", "expr", "0 0 29 2 *", "2028-02-29T00:00:00+00:00"},
		{"2026-12-01T09:00:00", "once", "once at 2026-12-01 09:00", "run_at", "2026-12-01T09:00:00+00:00", "2026-12-01T09:00:00+00:00"},
		{"2026-12-01T09:00:00Z", "once", "once at 2026-12-01 09:00", "run_at", "2026-12-01T09:00:00+00:00", "2026-12-01T09:00:00+00:00"},
		{"2026-12-01 09:30", "once", "once at 2026-12-01 09:30", "run_at", "2026-12-01T09:30:00+00:00", "2026-12-01T09:30:00+00:00"},
		{"2026-12-01T09:00:00+05:30", "once", "once at 2026-12-01 09:00", "run_at", "2026-12-01T09:00:00+05:30", "2026-12-01T09:00:00+05:30"},
		{"2026-12-01", "once", "once at 2026-12-01 00:00", "run_at", "2026-12-01T00:00:00+00:00", "2026-12-01T00:00:00+00:00"},
		// A one-shot less than two minutes late still fires; older never.
		{"2026-11-28T10:29:00", "once", "once at 2026-11-28 10:29", "run_at", "2026-11-28T10:29:00+00:00", "2026-11-28T10:29:00+00:00"},
		{"2026-11-28T10:00:00", "once", "once at 2026-11-28 10:00", "run_at", "2026-11-28T10:00:00+00:00", ""},
	}
	for _, tt := range tests {
		s, err := parseSchedule(tt.in, fixedNow)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if s.str("kind") != tt.kind || s.str("display") != tt.display || pyStr(s.vals[tt.field]) != tt.value {
			t.Errorf("%q: got %s", tt.in, pyCompact(s))
		}
		if strings.Join(s.keys, ",") != "kind,"+tt.field+",display" {
			t.Errorf("%q: keys %v", tt.in, s.keys)
		}
		next, _ := computeNextRun(s, fixedNow).(string)
		if next != tt.next {
			t.Errorf("%q: next run %q, want %q", tt.in, next, tt.next)
		}
	}
}

func TestParseScheduleRefuses(t *testing.T) {
	for _, in := range []string{"", "soon", "every", "every 5x", "every 0m", "0 9 * *", "0 9 * * * *", "60 * * * *", "* 24 * * *",
		"* * 0 * *", "* * * 13 *", "* * * * 8", "*/0 * * * *", "5-1 * * * *", "0 0 30 2 *", "2026-13-01T00:00", "2026-02-30", "99999999999m",
		"0m", "every monday", "monday 13pm", "every day at 25:00", "weekdays at", "in soon", "0 9 * * MONDAY", "0 jan * * *", "in 5x"} {
		if s, err := parseSchedule(in, fixedNow); err == nil {
			t.Errorf("%q accepted as %s", in, pyCompact(s))
		}
	}
}

// A zone's local time is what a naive timestamp and a cron expression
// mean, as in the original (dt.astimezone(), croniter on local now).
func TestScheduleInLocalZone(t *testing.T) {
	loc := time.FixedZone("X", -5*3600)
	now := fixedNow.In(loc)
	s, err := parseSchedule("2026-12-01T09:00", now)
	if err != nil || s.str("run_at") != "2026-12-01T09:00:00-05:00" {
		t.Errorf("naive timestamp: %v %v", s, err)
	}
	c, _ := parseSchedule("0 9 * * *", now)
	if got := computeNextRun(c, now); got != "2026-11-28T09:00:00-05:00" {
		t.Errorf("cron in zone: %v", got)
	}
}

func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"every 5m", "0 9 * * *", "*/7 1-5 1,15 * 0-6", "2026-01-01T00:00Z", "3d", "in 2h", "weekdays at 9:15pm", "0 9 * jan-mar sun"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := parseSchedule(in, fixedNow)
		if err != nil {
			return
		}
		if s.str("kind") == "cron" {
			if _, ok := computeNextRun(s, fixedNow).(string); !ok {
				t.Errorf("%q: accepted cron that never fires", in)
			}
		}
	})
}
