package kanban

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/hermeshome"

	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

type completeArgs struct {
	TaskID       string         `json:"task_id"`
	Summary      string         `json:"summary"`
	Metadata     map[string]any `json:"metadata"`
	Result       string         `json:"result"`
	CreatedCards []string       `json:"created_cards"`
	Artifacts    []string       `json:"artifacts"`
	Board        string         `json:"board"`
}

func (k *kit) handleComplete(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[completeArgs](raw)
	if err != nil {
		return fail("kanban_complete: %v", err), nil
	}
	tid, res, refused := k.taskArg(a.TaskID)
	if refused {
		return res, nil
	}
	summary, result := redact.String(a.Summary), redact.String(a.Result)
	var meta map[string]any
	if a.Metadata != nil {
		meta, _ = redactValue(a.Metadata).(map[string]any)
	}
	if arts := cleanList(a.Artifacts); len(arts) > 0 {
		if meta == nil {
			meta = map[string]any{}
		}
		// Merge with any artifacts the worker also put in metadata.
		var merged []any
		seen := map[string]bool{}
		var existing []any
		if list, ok := meta["artifacts"].([]any); ok {
			existing = list
		}
		for _, v := range existing {
			s := strings.TrimSpace(fmt.Sprint(v))
			if s != "" && !seen[s] {
				seen[s] = true
				merged = append(merged, s)
			}
		}
		for _, s := range arts {
			if !seen[s] {
				seen[s] = true
				merged = append(merged, s)
			}
		}
		meta["artifacts"] = merged
	}
	if summary == "" && result == "" {
		return fail("provide at least one of: summary (preferred), result"), nil
	}
	meta = k.stampSession(tid, meta)
	b, res, done, err := k.open(ctx, toolComplete, a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("could not complete %s (unknown id or already terminal)", tid), nil
	}
	defer b.Close()
	completed, err := b.CompleteTask(ctx, tid, Completion{
		Result: result, Summary: summary, Metadata: meta,
		CreatedCards: cleanList(a.CreatedCards), ExpectedRunID: k.workerRunID(tid),
	})
	var hall *HallucinatedCardsError
	if errors.As(err, &hall) {
		return fail("kanban_complete blocked: the following created_cards do not exist or were not created by this worker: %s. "+
			"Your task is still in-flight (no state change). Retry kanban_complete with the same summary/metadata and either "+
			"drop these ids from created_cards, or pass created_cards=[] to skip the card-claim check entirely.",
			strings.Join(hall.Phantom, ", ")), nil
	}
	if err != nil {
		return finish(toolComplete, err)
	}
	if !completed {
		return fail("could not complete %s (unknown id or already terminal)", tid), nil
	}
	return k.okWithRun(ctx, b, toolComplete, tid)
}

type blockArgs struct {
	TaskID string `json:"task_id"`
	Reason string `json:"reason"`
	Board  string `json:"board"`
}

func (k *kit) handleBlock(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[blockArgs](raw)
	if err != nil {
		return fail("kanban_block: %v", err), nil
	}
	tid, res, refused := k.taskArg(a.TaskID)
	if refused {
		return res, nil
	}
	if strings.TrimSpace(a.Reason) == "" {
		return fail("reason is required — explain what input you need"), nil
	}
	reason := redact.String(a.Reason)
	b, res, done, err := k.open(ctx, toolBlock, a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("could not block %s (unknown id or not in running/ready)", tid), nil
	}
	defer b.Close()
	blocked, err := b.BlockTask(ctx, tid, reason, k.workerRunID(tid))
	if err != nil {
		return finish(toolBlock, err)
	}
	if !blocked {
		return fail("could not block %s (unknown id or not in running/ready)", tid), nil
	}
	return k.okWithRun(ctx, b, toolBlock, tid)
}

type heartbeatArgs struct {
	TaskID string `json:"task_id"`
	Note   string `json:"note"`
	Board  string `json:"board"`
}

func (k *kit) handleHeartbeat(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[heartbeatArgs](raw)
	if err != nil {
		return fail("kanban_heartbeat: %v", err), nil
	}
	tid, res, refused := k.taskArg(a.TaskID)
	if refused {
		return res, nil
	}
	b, res, done, err := k.open(ctx, toolHeartbeat, a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("could not heartbeat %s (unknown id or not running)", tid), nil
	}
	defer b.Close()
	// Extending the claim is what keeps the dispatcher from reclaiming a
	// worker stuck in one long call; the heartbeat alone would not.
	if _, err := b.HeartbeatClaim(ctx, tid, k.claimer(), k.claimTTL()); err != nil {
		return finish(toolHeartbeat, err)
	}
	alive, err := b.HeartbeatWorker(ctx, tid, redact.String(a.Note), k.workerRunID(tid))
	if err != nil {
		return finish(toolHeartbeat, err)
	}
	if !alive {
		return fail("could not heartbeat %s (unknown id or not running)", tid), nil
	}
	return ok(map[string]any{"task_id": tid}), nil
}

type requestReviewArgs struct {
	TaskID   string         `json:"task_id"`
	Summary  string         `json:"summary"`
	Reviewer string         `json:"reviewer"`
	Metadata map[string]any `json:"metadata"`
	Board    string         `json:"board"`
}

func (k *kit) handleRequestReview(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[requestReviewArgs](raw)
	if err != nil {
		return fail("kanban_request_review: %v", err), nil
	}
	tid, res, refused := k.taskArg(a.TaskID)
	if refused {
		return res, nil
	}
	if strings.TrimSpace(a.Summary) == "" {
		return fail("summary is required — say what was implemented and how it was verified"), nil
	}
	var meta map[string]any
	if a.Metadata != nil {
		meta, _ = redactValue(a.Metadata).(map[string]any)
	}
	meta = k.stampSession(tid, meta)
	// A reviewer that is not an installed profile would park the task in
	// review under an assignee the dispatcher can never start.
	reviewer := ""
	if a.Reviewer != "" {
		reviewer = redact.String(a.Reviewer)
		root := hermeshome.RootOf(k.opts.Home)
		if !hermeshome.ProfileExists(root, reviewer) {
			return fail("reviewer profile %s is not installed. Installed profiles: %s", pyRepr(reviewer), strings.Join(hermeshome.ProfileNames(root), ", ")), nil
		}
	}
	b, res, done, err := k.open(ctx, toolRequestReview, a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("could not request review for %s: task not found", tid), nil
	}
	defer b.Close()
	moved, reason, err := b.RequestReview(ctx, tid, ReviewRequest{
		Summary: redact.String(a.Summary), Metadata: meta, Reviewer: reviewer, ExpectedRunID: k.workerRunID(tid),
	})
	if err != nil {
		return finish(toolRequestReview, err)
	}
	if !moved {
		return fail("could not request review for %s: %s", tid, reason), nil
	}
	return ok(map[string]any{"task_id": tid, "status": "review"}), nil
}

type requestChangesArgs struct {
	TaskID string `json:"task_id"`
	Reason string `json:"reason"`
	Board  string `json:"board"`
}

func (k *kit) handleRequestChanges(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[requestChangesArgs](raw)
	if err != nil {
		return fail("kanban_request_changes: %v", err), nil
	}
	tid, res, refused := k.taskArg(a.TaskID)
	if refused {
		return res, nil
	}
	if strings.TrimSpace(a.Reason) == "" {
		return fail("reason is required — list the changes the implementer must make"), nil
	}
	b, res, done, err := k.open(ctx, toolRequestChanges, a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("could not request changes on %s: task not found", tid), nil
	}
	defer b.Close()
	moved, msg, status, err := b.RequestChanges(ctx, tid, redact.String(a.Reason), k.workerRunID(tid))
	if err != nil {
		return finish(toolRequestChanges, err)
	}
	if !moved {
		return fail("could not request changes on %s: %s", tid, msg), nil
	}
	return ok(map[string]any{"task_id": tid, "status": status, "implementer": msg}), nil
}
