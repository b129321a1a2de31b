package hermeshome

import (
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/pystr"
)

// KanbanProfile is the original's _profile_has_kanban_toolset as a
// process outside schema assembly sees it (an MCP server, which lists for
// no particular platform), on a decoded config.yaml: "kanban" in the
// top-level toolsets (the legacy profile-wide opt-in, which
// agent.disabled_toolsets does not override), else any
// platform_toolsets.<platform> list that names "kanban" itself (`hermes
// tools` writes those), unless agent.disabled_toolsets names it. A value
// the original would choke on means no: gating must not be the thing that
// fails. The kanban tools' gate and the skills' `environments: [kanban]`
// both ask this one question.
func KanbanProfile(cfg map[string]any) bool {
	const name = "kanban"
	in, ok := pystr.In(cfg["toolsets"], name)
	if !ok {
		return false
	}
	if in {
		return true
	}
	platforms, _ := cfg["platform_toolsets"].(map[string]any)
	if generic, isMap := cfg["platform_toolsets"].(map[any]any); isMap {
		platforms = map[string]any{}
		for key, v := range generic {
			platforms[fmt.Sprint(key)] = v
		}
	}
	named := false
	for _, names := range platforms {
		list, _ := names.([]any)
		for _, n := range list {
			if s, isStr := n.(string); isStr && s == name {
				named = true
			}
		}
	}
	if !named {
		return false
	}
	disabled, ok := DisabledToolsets(cfg["agent"])
	return ok && !disabled[name]
}

// DisabledToolsets reads agent.disabled_toolsets as the original does
// (parse_config_string_list): a list, or a string holding a Python list
// literal ("['kanban']"), or a string naming one toolset; names trimmed.
// ok is false for an agent section that is not a mapping, which the
// original fails on.
func DisabledToolsets(agent any) (map[string]bool, bool) {
	var raw any
	switch a := agent.(type) {
	case nil:
	case map[string]any:
		raw = a["disabled_toolsets"]
	case map[any]any:
		raw = a["disabled_toolsets"]
	default:
		if pystr.Truthy(agent) {
			return nil, false
		}
	}
	out := map[string]bool{}
	if !pystr.Truthy(raw) {
		return out, true
	}
	var names []string
	switch v := raw.(type) {
	case string:
		names = []string{v}
		if t := pystr.Strip(v); strings.HasPrefix(t, "[") {
			if list, err := pystr.ParseList(t); err == nil {
				names = list
			}
		}
	case []any:
		for _, e := range v {
			names = append(names, pystr.Str(e))
		}
	}
	for _, n := range names {
		if n = pystr.Strip(n); n != "" {
			out[n] = true
		}
	}
	return out, true
}
