package skills

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/pystr"
	"github.com/hermes-go/hermes/internal/safefile"
)

// A skill's `environments:` frontmatter (the original's PR #39028) says
// where it is worth offering: a kanban playbook only to kanban work, an s6
// runbook only inside the s6 Docker image. It is a relevance gate for what
// is offered (skills_list, the skills extension's catalog, the names a
// failed skill_view suggests), not a compatibility gate: skill_view loads
// such a skill by name wherever it runs, as the original's does.

// Environment variables the kanban tag is judged by.
const (
	envKanbanTask  = "HERMES_KANBAN_TASK"
	envKanbanBoard = "HERMES_KANBAN_BOARD"
	// envDelegatedChild marks a process started by a delegate_task child:
	// it inherits the worker's kanban variables without being that worker.
	envDelegatedChild = "HERMES_DELEGATED_CHILD_CONTEXT"
)

// environment is what the tags are judged against, fixed for one index.
type environment struct {
	kanban, docker, s6 bool
}

// active reports whether tag names an active environment; a tag the
// original does not know is active everywhere (fail open), so a skill
// written for a newer Hermes is not hidden by an older reader.
func (e environment) active(tag string) bool {
	switch tag {
	case "kanban":
		return e.kanban
	case "docker":
		return e.docker
	case "s6":
		return e.s6
	}
	return true
}

// matchesEnvironment is the original's rule: no tags (absent, null, empty)
// means relevant everywhere; otherwise relevant when any tag, lowercased
// and trimmed, is active. Blank tags are ignored; a single scalar is one
// tag.
func matchesEnvironment(fields map[string]any, env environment) bool {
	v := fields["environments"]
	if !pystr.Truthy(v) {
		return true
	}
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	for _, t := range list {
		tag := strings.ToLower(strings.TrimSpace(pystr.Str(t)))
		if tag != "" && env.active(tag) {
			return true
		}
	}
	return false
}

// kanbanFromEnv is the first of the original's kanban signals: a
// dispatcher-spawned worker (its task or board in the environment), unless
// this process runs for a delegate_task child, which sees the worker's
// variables without owning its task.
func (l *Library) kanbanFromEnv() bool {
	set := func(k string) bool { v, ok := l.lookupEnv(k); return ok && v != "" }
	return (set(envKanbanTask) || set(envKanbanBoard)) && !set(envDelegatedChild)
}

// containerMarkers detects docker and s6 under root ("/" outside tests),
// as the original does: a container by /.dockerenv, /run/.containerenv or
// PID 1's cgroup naming docker, podman or lxc; s6-overlay by its runtime
// or admin directory. The original detects these once per process; a
// Library does it once.
func containerMarkers(root string) (docker, s6 bool) {
	at := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	exists := func(p string) bool { _, err := os.Stat(at(p)); return err == nil }
	isDir := func(p string) bool { fi, err := os.Stat(at(p)); return err == nil && fi.IsDir() }
	docker = exists("/.dockerenv") || exists("/run/.containerenv")
	if !docker {
		cgroup := at("/proc/1/cgroup")
		// Opened without blocking and bounded: whatever is there is read
		// as text or not at all.
		if b, err := safefile.ReadFile(filepath.Dir(cgroup), cgroup, 1<<20); err == nil {
			text := string(b)
			docker = strings.Contains(text, "docker") || strings.Contains(text, "podman") || strings.Contains(text, "/lxc/")
		}
	}
	s6 = isDir("/run/s6") || isDir("/package/admin/s6-overlay")
	return docker, s6
}

// scanKey is what an index depends on besides the files it stamps: the
// environment variables that select skills.platform_disabled and the
// kanban tag. An index built for other values is not reused.
type scanKey struct {
	platform  string
	kanbanEnv bool
}
