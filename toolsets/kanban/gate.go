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

// profileHasKanban is hermeshome.KanbanProfile on this profile's
// config.yaml; a file that cannot be read means no.
func (k *kit) profileHasKanban() bool {
	var cfg map[string]any
	if hermeshome.DecodeFile(k.configPath(), &cfg) != nil {
		return false
	}
	return hermeshome.KanbanProfile(cfg)
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
