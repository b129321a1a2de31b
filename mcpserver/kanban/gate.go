package kanban

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// Gating follows Hermes: the checks decide which tools this process lists,
// from the environment and config.yaml alone (never the board); the guards
// refuse, call by call, what a dispatcher worker may not do even with the
// tool listed.

// dispatchedTask is the task the dispatcher spawned this process for, or
// "" outside a dispatcher worker.
func (k *kit) dispatchedTask() string { return strings.TrimSpace(k.getenv(envTask)) }

func (k *kit) configPath() string {
	if k.opts.ConfigPath != "" {
		return k.opts.ConfigPath
	}
	return filepath.Join(k.opts.Home, hermeshome.ConfigFile)
}

// profileHasKanban reads config.yaml: "kanban" in the top-level toolsets,
// and not in agent.disabled_toolsets. An unreadable file means no, as in
// Hermes: gating must not be the thing that fails.
func (k *kit) profileHasKanban() bool {
	var cfg struct {
		Toolsets []any `yaml:"toolsets"`
		Agent    struct {
			DisabledToolsets []any `yaml:"disabled_toolsets"`
		} `yaml:"agent"`
	}
	if hermeshome.DecodeFile(k.configPath(), &cfg) != nil {
		return false
	}
	has := func(list []any) bool {
		for _, v := range list {
			if fmt.Sprint(v) == ToolsetName {
				return true
			}
		}
		return false
	}
	return has(cfg.Toolsets) && !has(cfg.Agent.DisabledToolsets)
}

func (k *kit) checkWorker() error {
	if k.dispatchedTask() != "" || k.profileHasKanban() {
		return nil
	}
	return fmt.Errorf(`kanban tools are for Hermes kanban work only: a dispatcher worker (HERMES_KANBAN_TASK set) or an orchestrator profile ("kanban" in toolsets in %s)`, k.configPath())
}

func (k *kit) checkOrchestrator() error {
	if k.dispatchedTask() != "" {
		return errors.New("orchestrator-only: hidden from dispatcher workers (HERMES_KANBAN_TASK is set)")
	}
	if k.profileHasKanban() {
		return nil
	}
	return fmt.Errorf(`orchestrator-only: add "kanban" to toolsets in %s to route board work from this profile`, k.configPath())
}

// taskArg resolves the task a lifecycle tool acts on: the argument, else
// HERMES_KANBAN_TASK. Whether a worker may act on it was decided by
// authorize before the handler ran.
func (k *kit) taskArg(arg string) (string, tooldef.Result, bool) {
	tid := k.defaultTaskID(arg)
	if tid == "" {
		return "", fail("task_id is required (or set HERMES_KANBAN_TASK in the env)"), true
	}
	return tid, tooldef.Result{}, false
}
