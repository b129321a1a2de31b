package kanban

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Caps that keep the worker context bounded on a pathological board.
const (
	ctxMaxRuns     = 10
	ctxMaxComments = 30
	ctxMaxField    = 4 * 1024
	ctxMaxBody     = 8 * 1024
	ctxMaxComment  = 2 * 1024
)

// WorkerContext renders what a worker should read about its task: the
// task, its body, earlier attempts, the handoffs of finished parents and
// the comment thread. Ages are relative because a model takes a bare
// timestamp as "now" and would not re-check stale sibling work.
func (b *Board) WorkerContext(ctx context.Context, id string) (string, error) {
	t, err := b.Task(ctx, id)
	if err != nil {
		return "", err
	}
	if t == nil {
		return "", inputErrorf("unknown task %s", id)
	}
	now := b.unix()
	var w strings.Builder
	fmt.Fprintf(&w, "# Kanban task %s: %s\n\n", t.ID, t.Title)
	fmt.Fprintf(&w, "- Status: %s\n", t.Status)
	if t.Assignee != nil {
		fmt.Fprintf(&w, "- Assignee: %s\n", *t.Assignee)
	}
	if t.Tenant != nil {
		fmt.Fprintf(&w, "- Tenant: %s\n", *t.Tenant)
	}
	ws := t.WorkspaceKind
	if t.WorkspacePath != nil {
		ws += " at " + *t.WorkspacePath
	}
	fmt.Fprintf(&w, "- Workspace: %s\n", ws)
	if len(t.Skills) > 0 {
		fmt.Fprintf(&w, "- Skills: %s\n", strings.Join(t.Skills, ", "))
	}
	by := "unknown"
	if t.CreatedBy != nil {
		by = *t.CreatedBy
	}
	fmt.Fprintf(&w, "- Created by %s, %s\n", by, age(t.CreatedAt, now))
	if t.Body != nil && strings.TrimSpace(*t.Body) != "" {
		fmt.Fprintf(&w, "\n## Body\n\n%s\n", capText(*t.Body, ctxMaxBody))
	}
	// The files are named with their absolute paths, which is how a
	// worker reads them (Hermes' build_worker_context does the same).
	atts, err := b.ListAttachments(ctx, id)
	if err != nil {
		return "", err
	}
	if len(atts) > 0 {
		w.WriteString("\n## Attachments\nFiles attached to this task. Read them with the file/terminal tools at the absolute paths below:\n")
		for _, a := range atts {
			fmt.Fprintf(&w, "- `%s`", a.Filename)
			if a.ContentType != nil && *a.ContentType != "" {
				fmt.Fprintf(&w, ", %s", *a.ContentType)
			}
			if a.Size > 0 {
				fmt.Fprintf(&w, ", %d KB", max(1, (a.Size+1023)/1024))
			}
			fmt.Fprintf(&w, " → `%s`\n", a.StoredPath)
		}
	}

	runs, err := b.Runs(ctx, id)
	if err != nil {
		return "", err
	}
	var ended []Run
	for _, r := range runs {
		if r.EndedAt != nil {
			ended = append(ended, r)
		}
	}
	if len(ended) > 0 {
		fmt.Fprintf(&w, "\n## Earlier attempts (%d)\n", len(ended))
		if len(ended) > ctxMaxRuns {
			fmt.Fprintf(&w, "\n(%d older attempts not shown)\n", len(ended)-ctxMaxRuns)
			ended = ended[len(ended)-ctxMaxRuns:]
		}
		for _, r := range ended {
			outcome := r.Status
			if r.Outcome != nil {
				outcome = *r.Outcome
			}
			profile := "unknown"
			if r.Profile != nil {
				profile = *r.Profile
			}
			fmt.Fprintf(&w, "\n### Run %d by %s: %s, %s\n", r.ID, profile, outcome, age(*r.EndedAt, now))
			if r.Summary != nil && *r.Summary != "" {
				fmt.Fprintf(&w, "%s\n", capText(*r.Summary, ctxMaxField))
			}
			if r.Error != nil && *r.Error != "" {
				fmt.Fprintf(&w, "Error: %s\n", capText(*r.Error, ctxMaxField))
			}
			if r.Metadata != nil {
				if m, err := json.Marshal(r.Metadata); err == nil {
					fmt.Fprintf(&w, "Metadata: %s\n", capText(string(m), ctxMaxField))
				}
			}
		}
	}

	parents, err := b.ParentIDs(ctx, id)
	if err != nil {
		return "", err
	}
	var handoffs []string
	for _, pid := range parents {
		p, err := b.Task(ctx, pid)
		if err != nil {
			return "", err
		}
		if p == nil || p.Status != "done" {
			continue
		}
		var s strings.Builder
		fmt.Fprintf(&s, "\n### %s: %s (done", p.ID, p.Title)
		if p.CompletedAt != nil {
			fmt.Fprintf(&s, ", %s", age(*p.CompletedAt, now))
		}
		s.WriteString(")\n")
		last, err := b.lastCompletedRun(ctx, pid)
		if err != nil {
			return "", err
		}
		if last != nil && last.Summary != nil && *last.Summary != "" {
			fmt.Fprintf(&s, "%s\n", capText(*last.Summary, ctxMaxField))
		} else if p.Result != nil && *p.Result != "" {
			fmt.Fprintf(&s, "%s\n", capText(*p.Result, ctxMaxField))
		}
		if last != nil && last.Metadata != nil {
			if m, err := json.Marshal(last.Metadata); err == nil {
				fmt.Fprintf(&s, "Metadata: %s\n", capText(string(m), ctxMaxField))
			}
		}
		handoffs = append(handoffs, s.String())
	}
	if len(handoffs) > 0 {
		fmt.Fprintf(&w, "\n## Handoffs from finished parent tasks\n%s", strings.Join(handoffs, ""))
	}

	comments, err := b.Comments(ctx, id)
	if err != nil {
		return "", err
	}
	if len(comments) > 0 {
		fmt.Fprintf(&w, "\n## Comments (%d)\n\n", len(comments))
		if len(comments) > ctxMaxComments {
			fmt.Fprintf(&w, "(%d older comments not shown)\n\n", len(comments)-ctxMaxComments)
			comments = comments[len(comments)-ctxMaxComments:]
		}
		for _, c := range comments {
			fmt.Fprintf(&w, "**%s** (%s): %s\n\n", c.Author, age(c.CreatedAt, now), capText(c.Body, ctxMaxComment))
		}
	}
	return strings.TrimRight(w.String(), "\n") + "\n", nil
}

func (b *Board) lastCompletedRun(ctx context.Context, id string) (*Run, error) {
	runs, err := b.Runs(ctx, id)
	if err != nil {
		return nil, err
	}
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].Outcome != nil && *runs[i].Outcome == "completed" {
			return &runs[i], nil
		}
	}
	return nil, nil
}

// age renders a timestamp as its date and how long ago it was.
func age(ts, now int64) string {
	when := time.Unix(ts, 0).UTC().Format("2006-01-02 15:04 UTC")
	d := now - ts
	switch {
	case d < 60:
		return when + " (just now)"
	case d < 3600:
		return fmt.Sprintf("%s (%dm ago)", when, d/60)
	case d < 86400:
		return fmt.Sprintf("%s (%dh ago)", when, d/3600)
	}
	return fmt.Sprintf("%s (%dd ago)", when, d/86400)
}

// capText trims s and cuts it to limit characters, saying how much went.
func capText(s string, limit int) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) <= limit {
		return s
	}
	return string(r[:limit]) + fmt.Sprintf("… [truncated, %d chars omitted]", len(r)-limit)
}
