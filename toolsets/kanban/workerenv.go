package kanban

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

func (k *kit) defaultTaskID(arg string) string {
	if arg = strings.TrimSpace(arg); arg != "" {
		return arg
	}
	return k.dispatchedTask()
}

// workerRunID is the dispatcher's run id for this worker's own task: it
// pins transitions to the run this worker was spawned for, so a worker
// that was reclaimed cannot close its successor's run.
func (k *kit) workerRunID(tid string) *int64 {
	if k.dispatchedTask() != tid {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(k.getenv(envRunID)), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

func (k *kit) claimTTL() time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(k.getenv(envClaimTTLSeconds))); err == nil && n >= 1 {
		return time.Duration(n) * time.Second
	}
	return DefaultClaimTTL
}

// claimer is the lock the dispatcher gave this worker, else host:pid as in
// Hermes (which then matches no dispatcher claim, so only the heartbeat is
// recorded).
func (k *kit) claimer() string {
	if v := strings.TrimSpace(k.getenv(envClaimLock)); v != "" {
		return v
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

func (k *kit) author() string {
	if p := strings.TrimSpace(k.getenv(envProfile)); p != "" {
		return p
	}
	return "worker"
}

// stampSession records the worker's session on its own task's handoff, so
// a person can find the conversation behind a result.
func (k *kit) stampSession(tid string, meta map[string]any) map[string]any {
	session := strings.TrimSpace(k.getenv(envSessionID))
	if k.dispatchedTask() != tid || session == "" {
		return meta
	}
	if meta == nil {
		meta = map[string]any{}
	}
	meta["worker_session_id"] = session
	return meta
}
