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

// ownTask resolves the task a lifecycle tool acts on (the argument, else
// HERMES_KANBAN_TASK) and refuses one that is not the worker's own. A
// refusal comes back as the result to return.
func (k *kit) ownTask(arg string) (string, tooldef.Result, bool) {
	tid := k.defaultTaskID(arg)
	if tid == "" {
		return "", fail("task_id is required (or set HERMES_KANBAN_TASK in the env)"), true
	}
	if res, refused := k.ownership(tid); refused {
		return "", res, true
	}
	return tid, tooldef.Result{}, false
}

// ownership refuses a worker's lifecycle change to another task: a buggy
// or prompt-injected worker must not close sibling runs.
func (k *kit) ownership(tid string) (tooldef.Result, bool) {
	own := k.dispatchedTask()
	if own == "" || tid == own {
		return tooldef.Result{}, false
	}
	return fail("worker is scoped to task %s; refusing to mutate %s. Use kanban_comment to hand off information to other tasks, or kanban_create to spawn follow-up work.", own, tid), true
}

func (k *kit) orchestratorGuard(tool string) (tooldef.Result, bool) {
	if k.dispatchedTask() == "" {
		return tooldef.Result{}, false
	}
	return fail("%s is orchestrator-only; dispatcher-spawned workers must use kanban_complete, kanban_block, kanban_heartbeat, or kanban_comment for their assigned task.", tool), true
}
