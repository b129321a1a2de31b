package kanban

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Gating follows Hermes (tools/kanban_tools.py _visible): the checks
// decide which tools this process lists, from the environment and
// config.yaml alone (never the board); the guards refuse, call by call,
// what a dispatcher worker or a delegate may not do even with the tool
// listed.

// delegated reports a delegate_task descendant: Hermes marks every process
// a delegate child spawns with HERMES_DELEGATED_CHILD_CONTEXT (the fenced
// board root, or "1"). Such a process inherits the worker's
// HERMES_KANBAN_TASK but does not own its run: it is no worker, and every
// mutation it asks for is refused.
func (k *kit) delegated() bool { return k.getenv(envDelegatedChild) != "" }

// isWorker reports a dispatcher-owned worker: HERMES_KANBAN_TASK set to
// anything (Hermes tests the raw value, so even blanks count) outside a
// delegate.
func (k *kit) isWorker() bool { return k.getenv(envTask) != "" && !k.delegated() }

// dispatchedTask is the task the dispatcher spawned this process for, or
// "" outside a dispatcher-owned worker (or when the variable holds only
// blanks: such a worker owns no task and may change none).
func (k *kit) dispatchedTask() string {
	if !k.isWorker() {
		return ""
	}
	return strings.TrimSpace(k.getenv(envTask))
}

func (k *kit) configPath() string {
	if k.opts.ConfigPath != "" {
		return k.opts.ConfigPath
	}
	return filepath.Join(k.opts.Home, hermeshome.ConfigFile)
}

// profileHasKanban is Hermes' _profile_has_kanban_toolset as a process
// outside schema assembly sees it (an MCP server lists tools for no
// particular platform): "kanban" in the top-level toolsets (the legacy
// profile-wide opt-in, which agent.disabled_toolsets does not override),
// else any platform_toolsets.<platform> list that names "kanban" itself,
// unless agent.disabled_toolsets names it. A file that cannot be read, or
// a value Hermes would choke on, means no: gating must not be the thing
// that fails.
func (k *kit) profileHasKanban() bool {
	var cfg map[string]any
	if hermeshome.DecodeFile(k.configPath(), &cfg) != nil {
		return false
	}
	in, ok := pyIn(cfg["toolsets"], ToolsetName)
	if !ok {
		return false
	}
	if in {
		return true
	}
	platforms, ok := cfg["platform_toolsets"].(map[string]any)
	if !ok {
		if generic, isMap := cfg["platform_toolsets"].(map[any]any); isMap {
			platforms = map[string]any{}
			for key, v := range generic {
				platforms[fmt.Sprint(key)] = v
			}
		}
	}
	named := false
	for _, names := range platforms {
		list, isList := names.([]any)
		if !isList {
			continue
		}
		for _, n := range list {
			if s, isStr := n.(string); isStr && s == ToolsetName {
				named = true
			}
		}
	}
	if !named {
		return false
	}
	disabled, ok := disabledToolsets(cfg["agent"])
	return ok && !disabled[ToolsetName]
}

// pyIn is Python's `name in (value or [])` on a YAML value: membership in
// a list, a key of a mapping, a substring of a string. ok is false where
// Python raises (a number or true), which Hermes answers with "no".
func pyIn(value any, name string) (in, ok bool) {
	switch v := value.(type) {
	case nil:
		return false, true
	case string:
		return strings.Contains(v, name), true
	case []any:
		for _, e := range v {
			if s, isStr := e.(string); isStr && s == name {
				return true, true
			}
		}
		return false, true
	case map[string]any:
		_, has := v[name]
		return has, true
	case map[any]any:
		_, has := v[name]
		return has, true
	case bool:
		return false, !v
	case int:
		return false, v == 0
	case float64:
		return false, v == 0
	}
	return false, false
}

// disabledToolsets reads agent.disabled_toolsets as Hermes does
// (parse_config_string_list): a list, or a string holding a Python list
// literal ("['kanban']"), or a string naming one toolset; names trimmed.
// ok is false for an agent section that is not a mapping, which Hermes
// fails on.
func disabledToolsets(agent any) (map[string]bool, bool) {
	var raw any
	switch a := agent.(type) {
	case nil:
	case map[string]any:
		raw = a["disabled_toolsets"]
	case map[any]any:
		raw = a["disabled_toolsets"]
	default:
		if pyTruthy(agent) {
			return nil, false
		}
	}
	out := map[string]bool{}
	if !pyTruthy(raw) {
		return out, true
	}
	var names []string
	switch v := raw.(type) {
	case string:
		names = []string{v}
		if t := pyStrip(v); strings.HasPrefix(t, "[") {
			if list, err := parsePyList(t); err == nil {
				names = list
			}
		}
	case []any:
		for _, e := range v {
			names = append(names, pyStr(e))
		}
	}
	for _, n := range names {
		if n = pyStrip(n); n != "" {
			out[n] = true
		}
	}
	return out, true
}

// pyTruthy is Python's truth value of a YAML value.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case int:
		return x != 0
	case float64:
		return x != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	case map[any]any:
		return len(x) > 0
	}
	return true
}

// pyStr is Python's str() of a YAML scalar, as far as toolset names go.
func pyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return x
	}
	return fmt.Sprint(v)
}

func (k *kit) checkWorker() error {
	if k.isWorker() || k.profileHasKanban() {
		return nil
	}
	return fmt.Errorf(`kanban tools are for Hermes kanban work only: a dispatcher worker (HERMES_KANBAN_TASK set, outside a delegate) or an orchestrator profile ("kanban" in toolsets, or in a platform_toolsets list, in %s)`, k.configPath())
}

func (k *kit) checkOrchestrator() error {
	if k.isWorker() {
		return errors.New("orchestrator-only: hidden from dispatcher workers (HERMES_KANBAN_TASK is set)")
	}
	if k.profileHasKanban() {
		return nil
	}
	return fmt.Errorf(`orchestrator-only: add "kanban" to toolsets (or to a platform_toolsets list) in %s to route board work from this profile`, k.configPath())
}

// taskArg resolves the task a tool acts on: the argument, else this
// worker's own task. Whether a worker may act on it was decided by
// authorize before the handler ran. The refusals are Hermes'
// (_require_task_id).
func (k *kit) taskArg(arg string) (string, tooldef.Result, bool) {
	if tid := k.defaultTaskID(arg); tid != "" {
		return tid, tooldef.Result{}, false
	}
	if k.getenv(envTask) != "" {
		return "", fail("task_id is required: this session does not own the inherited HERMES_KANBAN_TASK, so it is not a valid default. Pass an explicit task_id."), true
	}
	return "", fail("task_id is required: this session has no dispatcher-assigned task to default to. Pass an explicit task_id; discover task ids with kanban_list."), true
}
