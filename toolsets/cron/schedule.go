package cron

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// oneshotGrace is the original's ONESHOT_GRACE_SECONDS: a one-shot whose
// time passed less than this long ago still fires on the next tick.
const oneshotGrace = 120 * time.Second

// durationRE is parse_duration's pattern in cron/jobs.py, applied to the
// lower-cased, stripped text; a bare unit ("hour") counts one.
var durationRE = regexp.MustCompile(`^(\d*)\s*(m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days)$`)

// cronFieldRE is what parse_schedule takes for a cron field: letters too,
// for named months and weekdays (JAN-DEC, MON-FRI).
var cronFieldRE = regexp.MustCompile(`^[A-Za-z\d*\-,/]+$`)

// isoDateRE is parse_schedule's "looks like a date" test.
var isoDateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}`)

// parseDuration is the original's parse_duration: minutes in s.
func parseDuration(s string) (int, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	m := durationRE.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("Invalid duration: '%s'. Use format like '30m', '2h', '1d', or a bare unit like 'hour' (defaults to 1).", s)
	}
	n := 1
	if m[1] != "" {
		var err error
		n, err = strconv.Atoi(m[1])
		if err != nil || n > 10_000_000 {
			return 0, fmt.Errorf("Invalid duration: '%s'. The number is too large", s)
		}
	}
	switch m[2][0] {
	case 'h':
		n *= 60
	case 'd':
		n *= 1440
	}
	return n, nil
}

// Day words of the original's natural schedules ("every monday 9am",
// "weekdays at 9am"), as cron weekday fields (0 is Sunday).
var (
	weekdayDOW = map[string]string{
		"sunday": "0", "sun": "0", "monday": "1", "mon": "1",
		"tuesday": "2", "tue": "2", "tues": "2", "wednesday": "3", "wed": "3", "weds": "3",
		"thursday": "4", "thu": "4", "thur": "4", "thurs": "4", "friday": "5", "fri": "5",
		"saturday": "6", "sat": "6",
	}
	dayspecDOW = map[string]string{
		"day": "*", "daily": "*", "everyday": "*",
		"weekday": "1-5", "weekdays": "1-5", "weekend": "0,6", "weekends": "0,6",
	}
	clockRE = regexp.MustCompile(`^(\d{1,2})(?::(\d{2}))?(am|pm)?$`)
)

// clockTime reads "9am", "9:30pm", "14:00", "7", "noon" or "midnight" as
// the original's _parse_clock_time does: hour and minute, or ok false.
func clockTime(text string) (hour, minute int, ok bool) {
	t := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(text)), " ", "")
	switch t {
	case "":
		return 0, 0, false
	case "noon", "midday":
		return 12, 0, true
	case "midnight":
		return 0, 0, true
	}
	m := clockRE.FindStringSubmatch(t)
	if m == nil {
		return 0, 0, false
	}
	hour, _ = strconv.Atoi(m[1])
	if m[2] != "" {
		minute, _ = strconv.Atoi(m[2])
	}
	if m[3] != "" {
		if hour < 1 || hour > 12 {
			return 0, 0, false
		}
		hour %= 12
		if m[3] == "pm" {
			hour += 12
		}
	}
	if hour > 23 || minute > 59 {
		return 0, 0, false
	}
	return hour, minute, true
}

// naturalCron turns "<days> [at] <time>" ("monday 9am", "weekdays at
// 9am", "monday, wednesday at 9am") into a cron expression, as the
// original's _natural_every_to_cron; ok false leaves the text to the
// other forms.
func naturalCron(rest string) (string, bool) {
	tokens := strings.Fields(strings.ReplaceAll(strings.ToLower(rest), ",", " "))
	if len(tokens) == 0 {
		return "", false
	}
	dow, idx := dayspecDOW[tokens[0]], 1
	if dow == "" {
		var days []string
		idx = len(tokens)
		for i, tok := range tokens {
			if tok == "and" {
				continue
			}
			d, ok := weekdayDOW[tok]
			if !ok {
				idx = i
				break
			}
			if !slices.Contains(days, d) {
				days = append(days, d)
			}
		}
		if len(days) == 0 {
			return "", false
		}
		dow = strings.Join(days, ",")
	}
	timeTokens := tokens[idx:]
	if len(timeTokens) > 0 && timeTokens[0] == "at" {
		timeTokens = timeTokens[1:]
	}
	if len(timeTokens) == 0 {
		return "", false
	}
	hour, minute, ok := clockTime(strings.Join(timeTokens, " "))
	if !ok {
		return "", false
	}
	return fmt.Sprintf("%d %d * * %s", minute, hour, dow), true
}

// parseSchedule is the original's parse_schedule: the schedule object a
// job stores ({"kind": "interval"|"cron"|"once", ...,"display"}), with the
// same keys in the same order. A bare duration ("30m") recurs; "in 30m"
// fires once. now is in the Hermes timezone, which a timestamp without
// an offset is read in.
func parseSchedule(schedule string, now time.Time) (*object, error) {
	s := strings.TrimSpace(schedule)
	original := s
	lower := strings.ToLower(s)
	o := newObject()
	isEvery := strings.HasPrefix(lower, "every ")
	rest := lower
	if isEvery {
		rest = strings.TrimSpace(s[6:])
	}
	if expr, ok := naturalCron(rest); ok {
		return cronSchedule(expr, original, "schedule")
	}
	interval := func(minutes int) (*object, error) {
		if minutes <= 0 {
			return nil, fmt.Errorf("Invalid schedule '%s': an interval must be at least one minute", original)
		}
		o.set("kind", "interval")
		o.set("minutes", json.Number(strconv.Itoa(minutes)))
		o.set("display", fmt.Sprintf("every %dm", minutes))
		return o, nil
	}
	if isEvery {
		minutes, err := parseDuration(rest)
		if err != nil {
			return nil, err
		}
		return interval(minutes)
	}
	if parts := strings.Fields(s); len(parts) >= 5 && allMatch(parts[:5]) {
		if len(parts) != 5 {
			return nil, fmt.Errorf("Invalid cron expression '%s': this server takes the five fields minute hour day month weekday", s)
		}
		return cronSchedule(s, s, "cron expression")
	}
	if strings.Contains(s, "T") || isoDateRE.MatchString(s) {
		t, err := parseISO(strings.ReplaceAll(s, "Z", "+00:00"), now.Location())
		if err != nil {
			return nil, fmt.Errorf("Invalid timestamp '%s': %w", s, err)
		}
		o.set("kind", "once")
		o.set("run_at", isoformat(t))
		o.set("display", "once at "+t.Format("2006-01-02 15:04"))
		return o, nil
	}
	if strings.HasPrefix(lower, "in ") {
		d := strings.TrimSpace(s[3:])
		minutes, err := parseDuration(d)
		if err != nil {
			return nil, fmt.Errorf("Invalid duration '%s' after 'in '. Use e.g. 'in 30m', 'in 2h'.", d)
		}
		o.set("kind", "once")
		o.set("run_at", isoformat(now.Add(time.Duration(minutes)*time.Minute)))
		o.set("display", "once in "+d)
		return o, nil
	}
	if minutes, err := parseDuration(s); err == nil {
		return interval(minutes)
	}
	return nil, fmt.Errorf("Invalid schedule '%s'. Use:\n"+
		"  - Interval: '30m', 'every 30m', 'every 2h' (recurring)\n"+
		"  - One-shot delay: 'in 30m', 'in 2h' (fires once)\n"+
		"  - Weekly/daily: 'every monday 9am', 'weekdays at 9am' (recurring)\n"+
		"  - Cron: '0 9 * * *' (cron expression)\n"+
		"  - Timestamp: '2026-02-03T14:00:00' (one-shot at time)", original)
}

// cronSchedule checks a cron expression and builds its stored schedule.
func cronSchedule(expr, display, label string) (*object, error) {
	if _, err := parseCron(expr); err != nil {
		return nil, fmt.Errorf("Invalid %s '%s': %w", label, display, err)
	}
	o := newObject()
	o.set("kind", "cron")
	o.set("expr", expr)
	o.set("display", display)
	return o, nil
}

func allMatch(fields []string) bool {
	for _, f := range fields {
		if !cronFieldRE.MatchString(f) {
			return false
		}
	}
	return true
}

// parseISO reads what Python's datetime.fromisoformat reads in practice:
// a date, optionally a time (HH:MM, HH:MM:SS, fractions) after T or a
// space, optionally an offset. A time without an offset is local time,
// as the original's dt.astimezone() makes it.
func parseISO(s string, loc *time.Location) (time.Time, error) {
	layouts := []string{
		"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04Z07:00", "2006-01-02T15Z07:00",
		"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04Z07:00",
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	naive := []string{
		"2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02T15",
		"2006-01-02 15:04:05.999999999", "2006-01-02 15:04", "2006-01-02",
	}
	for _, l := range naive {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("Invalid isoformat string")
}

// isoformat is Python's datetime.isoformat() for an aware datetime:
// microseconds only when non-zero, the offset as +HH:MM.
func isoformat(t time.Time) string {
	if t.Nanosecond()/1000 != 0 {
		return t.Format("2006-01-02T15:04:05.000000-07:00")
	}
	return t.Format("2006-01-02T15:04:05-07:00")
}

// computeNextRun is the original's compute_next_run for a job that has
// not run: nil when a one-shot's time is long past.
func computeNextRun(schedule *object, now time.Time) any {
	switch schedule.str("kind") {
	case "once":
		runAt := schedule.str("run_at")
		t, err := parseISO(runAt, now.Location())
		if err != nil || t.Before(now.Add(-oneshotGrace)) {
			return nil
		}
		return runAt
	case "interval":
		n, err := numberOf(schedule.vals["minutes"])
		if err != nil {
			return nil
		}
		return isoformat(now.Add(time.Duration(n) * time.Minute))
	case "cron":
		c, err := parseCron(schedule.str("expr"))
		if err != nil {
			return nil
		}
		t, ok := c.next(now)
		if !ok {
			return nil
		}
		return isoformat(t)
	}
	return nil
}

func numberOf(v any) (int64, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, errors.New("not a number")
	}
	return n.Int64()
}

// cronExpr is a five-field cron expression as croniter reads it.
type cronExpr struct {
	minute, hour, dom, month, dow uint64 // bit i set: value i matches
	domStar, dowStar              bool
}

// parseCron reads minute hour day-of-month month day-of-week with *,
// lists, ranges and steps; weekday 7 is Sunday like 0. It refuses an
// expression that can never fire.
func parseCron(expr string) (*cronExpr, error) {
	f := strings.Fields(expr)
	if len(f) != 5 {
		return nil, fmt.Errorf("want 5 fields, got %d", len(f))
	}
	var c cronExpr
	var err error
	bounds := []struct {
		name     string
		lo, hi   int
		dst      *uint64
		starFlag *bool
		names    []string
	}{
		{"minute", 0, 59, &c.minute, nil, nil},
		{"hour", 0, 23, &c.hour, nil, nil},
		{"day of month", 1, 31, &c.dom, &c.domStar, nil},
		{"month", 1, 12, &c.month, nil, monthNames},
		{"day of week", 0, 7, &c.dow, &c.dowStar, dayNames},
	}
	for i, b := range bounds {
		if *b.dst, err = cronField(f[i], b.lo, b.hi, b.names); err != nil {
			return nil, fmt.Errorf("%s field '%s': %w", b.name, f[i], err)
		}
		if b.starFlag != nil {
			*b.starFlag = strings.HasPrefix(f[i], "*")
		}
	}
	if c.dow&(1<<7) != 0 {
		c.dow |= 1
	}
	if _, ok := c.next(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)); !ok {
		return nil, errors.New("it never fires (no such date)")
	}
	return &c, nil
}

// The names croniter takes for months (from 1) and weekdays (from 0),
// in any case.
var (
	monthNames = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
	dayNames   = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}
)

// cronValue is one value of a field: a number, or one of names (the
// first being lo).
func cronValue(s string, lo int, names []string) (int, error) {
	if i := slices.Index(names, strings.ToLower(s)); i >= 0 {
		return lo + i, nil
	}
	return strconv.Atoi(s)
}

func cronField(s string, lo, hi int, names []string) (uint64, error) {
	var bits uint64
	for _, item := range strings.Split(s, ",") {
		rng, stepText, hasStep := strings.Cut(item, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n <= 0 || n > hi {
				return 0, fmt.Errorf("bad step '%s'", stepText)
			}
			step = n
		}
		from, to := lo, hi
		switch {
		case rng == "*":
		case strings.Contains(rng, "-"):
			a, b, _ := strings.Cut(rng, "-")
			var err1, err2 error
			from, err1 = cronValue(a, lo, names)
			to, err2 = cronValue(b, lo, names)
			if err1 != nil || err2 != nil || from > to {
				return 0, fmt.Errorf("bad range '%s'", rng)
			}
		default:
			n, err := cronValue(rng, lo, names)
			if err != nil {
				return 0, fmt.Errorf("bad value '%s'", rng)
			}
			from = n
			if !hasStep {
				to = n
			}
		}
		if from < lo || to > hi {
			return 0, fmt.Errorf("'%s' is outside %d-%d", item, lo, hi)
		}
		for v := from; v <= to; v += step {
			bits |= 1 << v
		}
	}
	return bits, nil
}

func (c *cronExpr) dayMatches(t time.Time) bool {
	dom := c.dom&(1<<t.Day()) != 0
	dow := c.dow&(1<<int(t.Weekday())) != 0
	// croniter's day_or: two restricted day fields match either.
	if c.domStar || c.dowStar {
		return dom && dow
	}
	return dom || dow
}

// next is croniter's get_next: the first matching minute strictly after
// base, in base's location, within eight years.
func (c *cronExpr) next(base time.Time) (time.Time, bool) {
	loc := base.Location()
	t := base.Truncate(time.Minute).Add(time.Minute)
	limit := base.AddDate(8, 0, 0)
	for t.Before(limit) {
		if c.month&(1<<int(t.Month())) == 0 {
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, loc)
			continue
		}
		if !c.dayMatches(t) {
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, loc)
			continue
		}
		if c.hour&(1<<t.Hour()) == 0 {
			t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour()+1, 0, 0, 0, loc)
			continue
		}
		if c.minute&(1<<t.Minute()) == 0 {
			t = t.Add(time.Minute)
			continue
		}
		return t, true
	}
	return time.Time{}, false
}
