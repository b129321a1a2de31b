package cron

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/pystr"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// args are the cronjob_manage arguments this server takes: the
// original's names; the ones that run commands or route to models or
// platforms (script, no_agent, monitor, model, provider, base_url,
// attach_to_session, failure_deliver) are left to Hermes itself.
type args struct {
	Action          string    `json:"action"`
	JobID           *string   `json:"job_id"`
	Prompt          *string   `json:"prompt"`
	Schedule        *string   `json:"schedule"`
	Name            *string   `json:"name"`
	Repeat          *int      `json:"repeat"`
	Deliver         *string   `json:"deliver"`
	IncludeDisabled bool      `json:"include_disabled"`
	Skills          *[]string `json:"skills"`
	Reason          *string   `json:"reason"`
	Paused          bool      `json:"paused"`
	PausedReason    *string   `json:"paused_reason"`
	ContextFrom     *[]string `json:"context_from"`
	EnabledToolsets *[]string `json:"enabled_toolsets"`
	Workdir         *string   `json:"workdir"`
}

// failure is the original's tool_error(msg, success=False).
func failure(format string, a ...any) tooldef.Result {
	o := newObject()
	o.set("error", fmt.Sprintf(format, a...))
	o.set("success", false)
	return tooldef.Failure(pyCompact(o))
}

func ok(o *object) tooldef.Result { return tooldef.OK(pyCompact(o)) }

func (k *kit) handle(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[args](raw)
	if err != nil {
		return failure("Invalid arguments: %v", err), nil
	}
	action := strings.ToLower(strings.TrimSpace(a.Action))
	var res tooldef.Result
	switch action {
	case "create":
		res, err = k.create(ctx, a)
	case "list":
		res, err = k.list(a)
	case "update", "pause", "resume", "remove":
		res, err = k.onJob(ctx, action, a)
	case "run", "run_now", "trigger":
		return failure("action '%s' is not served here: Hermes fires a job in its own process, so run it from Hermes (`hermes cron run <job_id>`); this server only edits the jobs Hermes' scheduler runs", action), nil
	default:
		return failure("Unknown cron action '%s'. Use one of: create, list, update, pause, resume, remove", a.Action), nil
	}
	var se *storeError
	if errors.As(err, &se) {
		return failure("%s", se.msg), nil
	}
	return res, err
}

func (k *kit) list(a args) (tooldef.Result, error) {
	s, err := readStore(k.opts.Home)
	if err != nil {
		return tooldef.Result{}, err
	}
	jobs := []any{}
	for _, j := range s.jobObjects() {
		if !a.IncludeDisabled && !enabled(j) {
			continue
		}
		jobs = append(jobs, formatJob(j))
	}
	o := newObject()
	o.set("success", true)
	o.set("count", len(jobs))
	o.set("jobs", jobs)
	return ok(o), nil
}

func (k *kit) create(ctx context.Context, a args) (tooldef.Result, error) {
	if a.Schedule == nil || strings.TrimSpace(*a.Schedule) == "" {
		return failure("schedule is required for create"), nil
	}
	skills := canonicalSkills(a.Skills)
	prompt := deref(a.Prompt)
	if prompt == "" && len(skills) == 0 {
		return failure("create requires either prompt or at least one skill"), nil
	}
	if msg := scanPrompt(prompt); msg != "" {
		return failure("%s", msg), nil
	}
	if msg := checkDeliver(a.Deliver); msg != "" {
		return failure("%s", msg), nil
	}
	if a.PausedReason != nil && !a.Paused {
		return failure("paused_reason requires paused=true"), nil
	}
	workdir, msg := normalizeWorkdir(a.Workdir)
	if msg != "" {
		return failure("%s", msg), nil
	}
	now := k.clock()
	sched, err := parseSchedule(*a.Schedule, now)
	if err != nil {
		return failure("%v", err), nil
	}
	var job *object
	err = edit(ctx, k.opts.Home, now, func(s *store) (bool, error) {
		refs, msg := contextRefs(s, a.ContextFrom)
		if msg != "" {
			return false, &storeError{msg}
		}
		job = newJob(a, prompt, skills, sched, refs, workdir, now, k.newID)
		s.jobs = append(s.jobs, job)
		return true, nil
	})
	if err != nil {
		return tooldef.Result{}, err
	}
	o := newObject()
	o.set("success", true)
	o.set("job_id", job.str("id"))
	o.set("name", job.str("name"))
	o.set("skill", job.vals["skill"])
	o.set("skills", job.vals["skills"])
	o.set("schedule", job.vals["schedule_display"])
	o.set("repeat", repeatDisplay(job))
	o.set("deliver", job.vals["deliver"])
	o.set("next_run_at", job.vals["next_run_at"])
	o.set("job", formatJob(job))
	msgText := fmt.Sprintf("Cron job '%s' created.", job.str("name"))
	if a.Paused {
		msgText += " Created PAUSED — resume to schedule."
	}
	o.set("message", msgText+" Hermes' scheduler (the gateway) fires it; this server never runs jobs.")
	return ok(o), nil
}

// newJob builds a job in create_job's key order (cron/jobs.py).
func newJob(a args, prompt string, skills []string, sched *object, refs any, workdir any, now time.Time, newID func() string) *object {
	var repeat any
	if a.Repeat != nil && *a.Repeat > 0 {
		repeat = *a.Repeat
	}
	if sched.str("kind") == "once" && repeat == nil {
		repeat = 1
	}
	label := prompt
	if label == "" {
		label = skills[0]
	}
	name := pystr.Strip(firstRunes(label, 50))
	if a.Name != nil && *a.Name != "" {
		name = *a.Name
	}
	var skill any
	if len(skills) > 0 {
		skill = skills[0]
	}
	var toolsets any
	if a.EnabledToolsets != nil {
		if ts := cleanList(*a.EnabledToolsets); len(ts) > 0 {
			toolsets = ts
		}
	}
	stamp := isoformat(now)
	j := newObject()
	j.set("id", newID())
	j.set("name", name)
	j.set("prompt", prompt)
	j.set("skills", skills)
	j.set("skill", skill)
	j.set("model", nil)
	j.set("provider", nil)
	j.set("base_url", nil)
	j.set("script", nil)
	j.set("no_agent", false)
	j.set("context_from", refs)
	j.set("schedule", sched)
	j.set("schedule_display", sched.vals["display"])
	rep := newObject()
	rep.set("times", repeat)
	rep.set("completed", 0)
	j.set("repeat", rep)
	j.set("enabled", !a.Paused)
	if a.Paused {
		j.set("state", "paused")
		j.set("paused_at", stamp)
		j.set("paused_reason", derefAny(a.PausedReason))
	} else {
		j.set("state", "scheduled")
		j.set("paused_at", nil)
		j.set("paused_reason", nil)
	}
	j.set("created_at", stamp)
	j.set("next_run_at", computeNextRun(sched, now))
	j.set("last_run_at", nil)
	j.set("last_status", nil)
	j.set("last_error", nil)
	j.set("last_delivery_error", nil)
	j.set("deliver", "local")
	j.set("origin", nil)
	j.set("enabled_toolsets", toolsets)
	j.set("workdir", workdir)
	return j
}

func (k *kit) onJob(ctx context.Context, action string, a args) (tooldef.Result, error) {
	ref := strings.TrimSpace(deref(a.JobID))
	if ref == "" {
		return failure("job_id is required for action '%s'", action), nil
	}
	now := k.clock()
	var res tooldef.Result
	err := edit(ctx, k.opts.Home, now, func(s *store) (bool, error) {
		idx, refusal := resolveJob(s, ref)
		if refusal != nil {
			res = *refusal
			return false, nil
		}
		job := s.jobs[idx].(*object)
		switch action {
		case "remove":
			s.jobs = append(s.jobs[:idx:idx], s.jobs[idx+1:]...)
			o := newObject()
			o.set("success", true)
			o.set("message", fmt.Sprintf("Cron job '%s' removed.", job.str("name")))
			removed := newObject()
			removed.set("id", job.vals["id"])
			removed.set("name", job.vals["name"])
			removed.set("schedule", job.vals["schedule_display"])
			o.set("removed_job", removed)
			res = ok(o)
			return true, nil
		case "pause":
			job.set("enabled", false)
			job.set("state", "paused")
			job.set("paused_at", isoformat(now))
			job.set("paused_reason", derefAny(a.Reason))
		case "resume":
			job.set("enabled", true)
			job.set("state", "scheduled")
			job.set("paused_at", nil)
			job.set("paused_reason", nil)
			if sched, isObj := job.vals["schedule"].(*object); isObj {
				job.set("next_run_at", computeNextRun(sched, now))
			}
		case "update":
			if msg := k.update(s, job, a, now); msg != "" {
				res = failure("%s", msg)
				return false, nil
			}
		}
		o := newObject()
		o.set("success", true)
		o.set("job", formatJob(job))
		if action == "update" {
			o.set("message", fmt.Sprintf("Cron job '%s' updated.", job.str("name")))
		}
		res = ok(o)
		return true, nil
	})
	if err != nil {
		return tooldef.Result{}, err
	}
	return res, nil
}

// update applies the given fields to job as the original's update action
// and update_job do; it returns a refusal, or "".
func (k *kit) update(s *store, job *object, a args, now time.Time) string {
	changed := false
	if a.Prompt != nil {
		if msg := scanPrompt(*a.Prompt); msg != "" {
			return msg
		}
		job.set("prompt", *a.Prompt)
		changed = true
	}
	if a.Name != nil && strings.TrimSpace(*a.Name) != "" {
		job.set("name", *a.Name)
		changed = true
	}
	if a.Deliver != nil {
		if msg := checkDeliver(a.Deliver); msg != "" {
			return msg
		}
		job.set("deliver", "local")
		changed = true
	}
	if a.Skills != nil {
		skills := canonicalSkills(a.Skills)
		job.set("skills", skills)
		if len(skills) > 0 {
			job.set("skill", skills[0])
		} else {
			job.set("skill", nil)
		}
		changed = true
	}
	if a.ContextFrom != nil {
		refs, msg := contextRefs(s, a.ContextFrom)
		if msg != "" {
			return msg
		}
		job.set("context_from", refs)
		changed = true
	}
	if a.EnabledToolsets != nil {
		var v any
		if ts := cleanList(*a.EnabledToolsets); len(ts) > 0 {
			v = ts
		}
		job.set("enabled_toolsets", v)
		changed = true
	}
	if a.Workdir != nil {
		wd, msg := normalizeWorkdir(a.Workdir)
		if msg != "" {
			return msg
		}
		job.set("workdir", wd)
		changed = true
	}
	if a.Repeat != nil {
		rep, isObj := job.vals["repeat"].(*object)
		if !isObj {
			rep = newObject()
			rep.set("completed", 0)
		}
		var times any
		if *a.Repeat > 0 {
			times = *a.Repeat
		}
		rep.set("times", times)
		job.set("repeat", rep)
		changed = true
	}
	if a.Schedule != nil {
		sched, err := parseSchedule(*a.Schedule, now)
		if err != nil {
			return err.Error()
		}
		job.set("schedule", sched)
		job.set("schedule_display", sched.vals["display"])
		if job.str("state") != "paused" {
			job.set("state", "scheduled")
			job.set("enabled", true)
			job.set("next_run_at", computeNextRun(sched, now))
		}
		changed = true
	}
	if !changed {
		return "No updates provided."
	}
	if enabled(job) && job.str("state") != "paused" && !truthy(job.vals["next_run_at"]) {
		if sched, isObj := job.vals["schedule"].(*object); isObj {
			job.set("next_run_at", computeNextRun(sched, now))
		}
	}
	return ""
}

// resolveJob is resolve_job_ref: an exact id, else one job whose name
// matches case-insensitively.
func resolveJob(s *store, ref string) (int, *tooldef.Result) {
	for i, j := range s.jobs {
		if o, isObj := j.(*object); isObj && o.str("id") == ref {
			return i, nil
		}
	}
	var hits []int
	for i, j := range s.jobs {
		if o, isObj := j.(*object); isObj && strings.EqualFold(o.str("name"), ref) && o.str("name") != "" {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		r := failure("Job with ID or name '%s' not found. Use cronjob_manage(action='list') to inspect jobs.", ref)
		return -1, &r
	}
	ids := make([]string, len(hits))
	matches := make([]any, len(hits))
	for n, i := range hits {
		o := s.jobs[i].(*object)
		ids[n] = o.str("id")
		m := newObject()
		m.set("id", o.vals["id"])
		m.set("name", o.vals["name"])
		m.set("schedule", o.vals["schedule_display"])
		m.set("next_run_at", o.vals["next_run_at"])
		matches[n] = m
	}
	o := newObject()
	o.set("success", false)
	o.set("error", fmt.Sprintf("Job name '%s' is ambiguous — matches %d jobs: %s. Use the job ID instead.", ref, len(hits), strings.Join(ids, ", ")))
	o.set("matches", matches)
	r := tooldef.Failure(pyCompact(o))
	return -1, &r
}

// contextRefs checks that every job named in context_from exists, as the
// original does; empty means none.
func contextRefs(s *store, refs *[]string) (any, string) {
	if refs == nil {
		return nil, ""
	}
	clean := cleanList(*refs)
	if len(clean) == 0 {
		return nil, ""
	}
	for _, ref := range clean {
		found := false
		for _, j := range s.jobObjects() {
			if j.str("id") == ref {
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Sprintf("context_from job '%s' not found. Use cronjob_manage(action='list') to see available jobs.", ref)
		}
	}
	return clean, ""
}

// checkDeliver refuses every target but local: a platform target needs
// the origin and adapters only Hermes' gateway has.
func checkDeliver(d *string) string {
	if d == nil {
		return ""
	}
	if v := strings.ToLower(strings.TrimSpace(*d)); v == "" || v == "local" {
		return ""
	}
	return fmt.Sprintf("deliver '%s' is not accepted here: this server creates local jobs only (output saved under cron/output in the Hermes home). Set a platform target from Hermes (`hermes cron edit`), where the gateway can check it.", *d)
}

// normalizeWorkdir is _normalize_workdir: absolute, existing directory,
// stored resolved; empty clears.
func normalizeWorkdir(w *string) (any, string) {
	if w == nil || strings.TrimSpace(*w) == "" {
		return nil, ""
	}
	raw := strings.TrimSpace(*w)
	if strings.HasPrefix(raw, "~") {
		if home, err := os.UserHomeDir(); err == nil {
			raw = filepath.Join(home, strings.TrimPrefix(raw, "~"))
		}
	}
	if !filepath.IsAbs(raw) {
		return nil, fmt.Sprintf("Cron workdir must be an absolute path (got '%s'). Cron jobs run detached from any shell cwd, so relative paths are ambiguous.", raw)
	}
	resolved, err := filepath.EvalSymlinks(raw)
	if err != nil {
		return nil, fmt.Sprintf("Cron workdir does not exist: %s", raw)
	}
	fi, err := os.Stat(resolved)
	if err != nil || !fi.IsDir() {
		return nil, fmt.Sprintf("Cron workdir is not a directory: %s", resolved)
	}
	return resolved, ""
}

// formatJob is the original's _format_job: the job as the tool shows it.
func formatJob(j *object) *object {
	prompt := pyStr(j.vals["prompt"])
	skills := storedSkills(j)
	id := pyStr(j.vals["id"])
	if id == "" {
		id = "unknown"
	}
	name := pyStr(j.vals["name"])
	if name == "" {
		name = firstRunes(prompt, 50)
	}
	if name == "" && len(skills) > 0 {
		name = skills[0]
	}
	if name == "" {
		name = id
	}
	preview := prompt
	if utf8.RuneCountInString(prompt) > 100 {
		preview = firstRunes(prompt, 100) + "..."
	}
	o := newObject()
	o.set("job_id", id)
	o.set("name", name)
	if len(skills) > 0 {
		o.set("skill", skills[0])
	} else {
		o.set("skill", nil)
	}
	o.set("skills", skills)
	o.set("prompt_preview", preview)
	o.set("model", j.vals["model"])
	o.set("provider", j.vals["provider"])
	o.set("base_url", j.vals["base_url"])
	if d, _ := j.vals["schedule_display"].(string); d != "" {
		o.set("schedule", d)
	} else {
		o.set("schedule", "?")
	}
	o.set("repeat", repeatDisplay(j))
	if d, present := j.vals["deliver"]; present {
		o.set("deliver", d)
	} else {
		o.set("deliver", "local")
	}
	o.set("next_run_at", j.vals["next_run_at"])
	o.set("last_run_at", j.vals["last_run_at"])
	o.set("last_status", j.vals["last_status"])
	o.set("last_delivery_error", j.vals["last_delivery_error"])
	o.set("enabled", enabledValue(j))
	if st, present := j.vals["state"]; present {
		o.set("state", st)
	} else if enabled(j) {
		o.set("state", "scheduled")
	} else {
		o.set("state", "paused")
	}
	o.set("paused_at", j.vals["paused_at"])
	o.set("paused_reason", j.vals["paused_reason"])
	for _, key := range []string{"script", "no_agent", "enabled_toolsets", "workdir"} {
		if truthy(j.vals[key]) {
			o.set(key, j.vals[key])
		}
	}
	return o
}

// repeatDisplay is _repeat_display.
func repeatDisplay(j *object) string {
	rep, _ := j.vals["repeat"].(*object)
	if rep == nil {
		return "forever"
	}
	times, present := rep.vals["times"]
	if !present || times == nil {
		return "forever"
	}
	t := pyStr(times)
	completed := "0"
	if c, has := rep.vals["completed"]; has && c != nil {
		completed = pyStr(c)
	}
	if t == "1" {
		if completed == "0" {
			return "once"
		}
		return "1/1"
	}
	if completed != "0" {
		return completed + "/" + t
	}
	return t + " times"
}

func storedSkills(j *object) []string {
	var raw []any
	switch v := j.vals["skills"].(type) {
	case []any:
		raw = v
	case string:
		raw = []any{v}
	case nil:
		if s, isStr := j.vals["skill"].(string); isStr && s != "" {
			raw = []any{s}
		}
	}
	out := []string{}
	for _, item := range raw {
		s := pystr.Strip(pyStr(item))
		if s != "" && !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// canonicalSkills is _canonical_skills: stripped, blanks and repeats
// dropped, order kept.
func canonicalSkills(in *[]string) []string {
	out := []string{}
	if in == nil {
		return out
	}
	for _, s := range *in {
		s = pystr.Strip(s)
		if s != "" && !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func cleanList(in []string) []string {
	var out []string
	for _, s := range in {
		if s = pystr.Strip(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// enabled is job.get("enabled", True) taken as a truth value.
func enabled(j *object) bool {
	v, present := j.vals["enabled"]
	return !present || truthy(v)
}

func enabledValue(j *object) any {
	if v, present := j.vals["enabled"]; present {
		return v
	}
	return true
}

// truthy is Python's bool() of a JSON value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case int:
		return x != 0
	case []any:
		return len(x) > 0
	case []string:
		return len(x) > 0
	case *object:
		return len(x.keys) > 0
	}
	return true
}

// pyStr is str(v) for the scalar values a job holds.
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return string(x)
	case int:
		return fmt.Sprint(x)
	case bool:
		if x {
			return "True"
		}
		return "False"
	}
	return string(pyCompact(v))
}

func firstRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func derefAny(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// threat patterns are the original's _CRON_THREAT_PATTERNS and
// _CRON_EXFIL_COMMAND_PATTERNS (tools/cronjob_tools.py), checked at
// create and update time on the prompt as given.
var (
	secretVar      = `\$\{?\w*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|API)\w*\}?`
	threatPatterns = []struct {
		re *regexp.Regexp
		id string
	}{
		{regexp.MustCompile(`(?i)ignore\s+(?:\w+\s+)*(?:previous|all|above|prior)\s+(?:\w+\s+)*instructions`), "prompt_injection"},
		{regexp.MustCompile(`(?i)do\s+not\s+tell\s+the\s+user`), "deception_hide"},
		{regexp.MustCompile(`(?i)system\s+prompt\s+override`), "sys_prompt_override"},
		{regexp.MustCompile(`(?i)disregard\s+(your|all|any)\s+(instructions|rules|guidelines)`), "disregard_rules"},
		{regexp.MustCompile(`(?i)cat\s+[^\n]*(\.env|credentials|\.netrc|\.pgpass)`), "read_secrets"},
		{regexp.MustCompile(`(?i)authorized_keys`), "ssh_backdoor"},
		{regexp.MustCompile(`(?i)/etc/sudoers|visudo`), "sudoers_mod"},
		{regexp.MustCompile(`(?i)rm\s+-rf\s+/`), "destructive_root_rm"},
		{regexp.MustCompile(`(?i)curl\s+[^\n]*https?://[^\s"'` + "`" + `]*` + secretVar), "exfil_curl_url"},
		{regexp.MustCompile(`(?i)wget\s+[^\n]*https?://[^\s"'` + "`" + `]*` + secretVar), "exfil_wget_url"},
		{regexp.MustCompile(`(?i)curl\s+[^\n]*(?:--data(?:-raw|-binary|-urlencode)?|-d|--form|-F)\s+[^\n]*` + secretVar), "exfil_curl_data"},
		{regexp.MustCompile(`(?i)wget\s+[^\n]*--post-(?:data|file)=[^\n]*` + secretVar), "exfil_wget_post"},
		{regexp.MustCompile(`(?i)curl\s+[^\n]*(?:-H|--header)\s+["']Authorization:\s*(?:Bearer|token)\s+` + secretVar + `["']`), "exfil_curl_auth_header"},
	}
	githubAuthHeader = regexp.MustCompile(`(?i)curl\s+[^\n]*(?:-H|--header)\s+["']Authorization:\s*token\s+` + secretVar + `["']\s+["']?https://api\.github\.com(?:/|\b)`)
)

// scanPrompt is _scan_cron_prompt: why the prompt is refused, or "".
func scanPrompt(prompt string) string {
	if m := githubAuthHeader.FindString(prompt); m != "" {
		prompt = strings.ReplaceAll(prompt, m, "curl https://api.github.com/user")
	}
	runes := []rune(prompt)
	for i, r := range runes {
		if !invisible(r) {
			continue
		}
		if r == 0x200D && emojiJoiner(runes, i) {
			continue
		}
		return fmt.Sprintf("Blocked: prompt contains invisible unicode U+%04X (possible injection).", r)
	}
	for _, p := range threatPatterns {
		if p.re.MatchString(prompt) {
			return fmt.Sprintf("Blocked: prompt matches threat pattern '%s'. Cron prompts must not contain injection or exfiltration payloads.", p.id)
		}
	}
	return ""
}

// invisible is the original's INVISIBLE_CHARS (tools/threat_patterns.py).
func invisible(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x2064, r >= 0x2066 && r <= 0x2069, r == 0xFEFF:
		return true
	}
	return false
}

// emojiJoiner says whether the ZWJ at i joins two emoji (variation
// selectors skipped), which the original lets through.
func emojiJoiner(rs []rune, i int) bool {
	emoji := func(r rune) bool {
		return (r >= 0x1F000 && r <= 0x1FFFF) || (r >= 0x2600 && r <= 0x27BF) || (r >= 0x2300 && r <= 0x23FF) || r == 0x20E3
	}
	l, r := i-1, i+1
	for l >= 0 && rs[l] == 0xFE0F {
		l--
	}
	for r < len(rs) && rs[r] == 0xFE0F {
		r++
	}
	return l >= 0 && r < len(rs) && emoji(rs[l]) && emoji(rs[r])
}
