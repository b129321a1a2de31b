package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

type args struct {
	Query           string `json:"query"`
	Limit           *int   `json:"limit"`
	Sort            string `json:"sort"`
	SessionID       string `json:"session_id"`
	AroundMessageID *int64 `json:"around_message_id"`
	Window          *int   `json:"window"`
	RoleFilter      string `json:"role_filter"`
	Profile         string `json:"profile"`
}

func failure(format string, a ...any) tooldef.Result {
	return tooldef.Failure(map[string]any{"success": false, "error": fmt.Sprintf(format, a...)})
}

// statePath finds the state.db to read: this home's, or a named profile's
// under the shared Hermes root.
func (k *kit) statePath(profile string) (string, error) {
	profile = strings.TrimSpace(profile)
	if profile == "" {
		return filepath.Join(k.opts.Home, "state.db"), nil
	}
	if profile != hermeshome.DefaultProfile && !hermeshome.ValidProfileName(profile) {
		return "", fmt.Errorf("invalid profile name '%s': use lowercase letters, digits, '-' and '_'", profile)
	}
	root := hermeshome.RootOf(k.opts.Home)
	if profile == "default" {
		return filepath.Join(root, "state.db"), nil
	}
	return filepath.Join(root, "profiles", profile, "state.db"), nil
}

func (k *kit) handle(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[args](raw)
	if err != nil {
		return failure("Invalid arguments: %v", err), nil
	}
	path, err := k.statePath(a.Profile)
	if err != nil {
		return failure("%v", err), nil
	}
	db, err := Open(ctx, path, k.opts.BusyTimeout)
	if errors.Is(err, fs.ErrNotExist) {
		if a.Profile != "" {
			return failure("No session history for profile '%s' (%s does not exist).", a.Profile, path), nil
		}
		return failure("No session history yet: %s does not exist. Hermes creates it with its first session.", path), nil
	}
	if err != nil {
		return tooldef.Result{}, fmt.Errorf("session_search: %w", err)
	}
	defer db.Close()
	if note := db.Note(); note != "" {
		k.mu.Lock()
		first := !k.noted[note]
		k.noted[note] = true
		k.mu.Unlock()
		if first {
			k.log.Info(note)
		}
	}

	sid := strings.TrimSpace(a.SessionID)
	switch {
	case sid != "" && a.AroundMessageID != nil:
		return k.scroll(ctx, db, sid, *a.AroundMessageID, clamp(a.Window, 5, 1, 20))
	case sid != "":
		return k.read(ctx, db, sid)
	case strings.TrimSpace(a.Query) != "":
		roles, bad := parseRoles(a.RoleFilter)
		if bad != "" {
			return failure("Unknown role '%s' in role_filter; use user, assistant, tool or system.", bad), nil
		}
		return k.discover(ctx, db, strings.TrimSpace(a.Query), roles, clamp(a.Limit, 3, 1, 10), a.Sort)
	case a.AroundMessageID != nil:
		return failure("around_message_id needs session_id: pass the session the message belongs to."), nil
	default:
		return k.browse(ctx, db, clamp(a.Limit, 10, 1, 50), a.Sort)
	}
}

func clamp(v *int, def, lo, hi int) int {
	if v == nil {
		return def
	}
	return max(lo, min(hi, *v))
}

func parseRoles(filter string) ([]string, string) {
	if strings.TrimSpace(filter) == "" {
		return []string{"user", "assistant"}, ""
	}
	var roles []string
	for _, r := range strings.Split(filter, ",") {
		r = strings.ToLower(strings.TrimSpace(r))
		switch r {
		case "":
		case "user", "assistant", "tool", "system":
			roles = append(roles, r)
		default:
			return nil, r
		}
	}
	if len(roles) == 0 {
		return []string{"user", "assistant"}, ""
	}
	return roles, ""
}

// when renders a timestamp as Hermes does ("March 04, 2026 at 02:15 PM").
func (k *kit) when(ts float64) string {
	if ts <= 0 {
		return "unknown"
	}
	return time.Unix(0, int64(ts*1e9)).In(k.loc).Format("January 02, 2006 at 03:04 PM")
}

func (k *kit) meta(se *Session) map[string]any {
	return map[string]any{"when": k.when(se.StartedAt), "source": orUnknown(se.Source), "model": orUnknown(se.Model), "title": nilIfEmpty(se.Title)}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// shape renders a message for the model, with long content cut so one
// pasted log cannot crowd out the rest of the result.
func shape(m Message, anchor int64, maxLen int) map[string]any {
	content := m.Content
	if n := utf8.RuneCountInString(content); n > maxLen {
		content = string([]rune(content)[:maxLen]) + fmt.Sprintf("… [%d more characters]", n-maxLen)
	}
	out := map[string]any{"id": m.ID, "role": m.Role, "content": content, "timestamp": m.Timestamp}
	if m.ToolName != "" {
		out["tool_name"] = m.ToolName
	}
	if len(m.ToolCalls) > 0 {
		out["tool_calls"] = m.ToolCalls
	}
	if m.ID == anchor {
		out["is_anchor"] = true
	}
	return out
}

func shapeAll(ms []Message, anchor int64, maxLen int) []map[string]any {
	out := make([]map[string]any, 0, len(ms))
	for _, m := range ms {
		out = append(out, shape(m, anchor, maxLen))
	}
	return out
}

// Result sizes: a window message keeps more than a bookend, which only
// reminds the model how the conversation started and ended.
const (
	discoverScan   = 300
	windowMaxLen   = 4000
	bookendMaxLen  = 1200
	bookendCount   = 3
	discoverWindow = 5
	readHead       = 10
	readTail       = 40
)

// compaction summaries are machine-written digests of earlier context; a
// bookend made of one would re-inject a whole summary into the session.
func isCompaction(content string) bool {
	c := strings.TrimSpace(content)
	return strings.HasPrefix(c, "[CONTEXT COMPACTION") || strings.HasPrefix(c, "[CONTEXT SUMMARY]:")
}

func withoutCompaction(ms []Message) []Message {
	var out []Message
	for _, m := range ms {
		if !isCompaction(m.Content) {
			out = append(out, m)
		}
	}
	return out
}

func (k *kit) discover(ctx context.Context, db *DB, query string, roles []string, limit int, sortBy string) (tooldef.Result, error) {
	hits, err := db.Search(ctx, query, roles, sortBy, discoverScan)
	if err != nil {
		return tooldef.Result{}, fmt.Errorf("session_search: %w", err)
	}
	// Scheduled runs answer the same questions every night; as in Hermes,
	// they come after every conversation the user had.
	slices.SortStableFunc(hits, func(a, b Hit) int {
		return cmpBool(a.Session.Source == "cron", b.Session.Source == "cron")
	})
	roots := map[string]string{}
	current := strings.TrimSpace(k.getenv(sessionIDEnv))
	currentRoot := ""
	if current != "" {
		if currentRoot, err = db.lineageRoot(ctx, current, roots); err != nil {
			return tooldef.Result{}, fmt.Errorf("session_search: %w", err)
		}
	}
	// One result per conversation: the best hit of each lineage, skipping
	// the caller's own conversation, which it already has in context.
	type pick struct {
		hit  Hit
		root string
	}
	var picks []pick
	seen := map[string]bool{}
	for _, h := range hits {
		if len(picks) >= limit {
			break
		}
		root, err := db.lineageRoot(ctx, h.SessionID, roots)
		if err != nil {
			return tooldef.Result{}, fmt.Errorf("session_search: %w", err)
		}
		if seen[root] || (currentRoot != "" && root == currentRoot) {
			continue
		}
		seen[root] = true
		picks = append(picks, pick{h, root})
	}
	terms := queryTerms(query)
	results := []map[string]any{}
	for i, p := range picks {
		h := p.hit
		meta := &h.Session
		if p.root != h.SessionID {
			if rootSession, err := db.Session(ctx, p.root); err == nil && rootSession != nil {
				meta = rootSession
			}
		}
		detail := "compact"
		var msgs, head, tail []Message
		before, after := 0, 0
		if i == 0 {
			detail = "full"
			w, err := db.Around(ctx, h.SessionID, h.ID, discoverWindow)
			if err != nil {
				return tooldef.Result{}, fmt.Errorf("session_search: %w", err)
			}
			msgs, before, after = w.Messages, w.Before, w.After
			inWindow := map[int64]bool{}
			for _, m := range msgs {
				inWindow[m.ID] = true
			}
			if head, tail, err = db.Ends(ctx, h.SessionID, bookendCount, inWindow); err != nil {
				return tooldef.Result{}, fmt.Errorf("session_search: %w", err)
			}
			head, tail = withoutCompaction(head), withoutCompaction(tail)
		} else {
			w, err := db.Around(ctx, h.SessionID, h.ID, 0)
			if err != nil {
				return tooldef.Result{}, fmt.Errorf("session_search: %w", err)
			}
			msgs, before, after = w.Messages, w.Before, w.After
		}
		entry := map[string]any{
			"session_id":       h.SessionID,
			"when":             k.when(meta.StartedAt),
			"source":           orUnknown(meta.Source),
			"model":            orUnknown(meta.Model),
			"title":            nilIfEmpty(meta.Title),
			"matched_role":     h.Role,
			"match_message_id": h.ID,
			"snippet":          snippet(h.Content, terms, 160),
			"detail":           detail,
			"bookend_start":    shapeAll(head, -1, bookendMaxLen),
			"messages":         shapeAll(msgs, h.ID, windowMaxLen),
			"bookend_end":      shapeAll(tail, -1, bookendMaxLen),
			"messages_before":  before,
			"messages_after":   after,
		}
		if p.root != h.SessionID {
			entry["parent_session_id"] = p.root
		}
		results = append(results, entry)
	}
	out := map[string]any{"success": true, "mode": "discover", "query": query, "results": results, "count": len(results), "sessions_searched": len(seen)}
	if len(results) == 0 {
		out["message"] = "No matching sessions found."
	}
	return tooldef.OK(out), nil
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func (k *kit) scroll(ctx context.Context, db *DB, sid string, anchor int64, window int) (tooldef.Result, error) {
	se, err := db.Session(ctx, sid)
	if err != nil {
		return tooldef.Result{}, fmt.Errorf("session_search: %w", err)
	}
	if se == nil {
		return failure("session_id not found: %s", sid), nil
	}
	w, err := db.Around(ctx, sid, anchor, window)
	if err != nil {
		return tooldef.Result{}, fmt.Errorf("session_search: %w", err)
	}
	if !w.Found {
		return failure("around_message_id %d not in session_id %s", anchor, sid), nil
	}
	return tooldef.OK(map[string]any{
		"success": true, "mode": "scroll", "session_id": sid, "around_message_id": anchor,
		"session_meta": k.meta(se), "window": window, "messages": shapeAll(w.Messages, anchor, windowMaxLen),
		"messages_before": w.Before, "messages_after": w.After,
	}), nil
}

func (k *kit) read(ctx context.Context, db *DB, sid string) (tooldef.Result, error) {
	se, err := db.Session(ctx, sid)
	if err != nil {
		return tooldef.Result{}, fmt.Errorf("session_search: %w", err)
	}
	if se == nil {
		return failure("session_id not found: %s", sid), nil
	}
	msgs, omitted, total, err := db.SessionMessages(ctx, sid, readHead, readTail)
	if err != nil {
		return tooldef.Result{}, fmt.Errorf("session_search: %w", err)
	}
	out := map[string]any{
		"success": true, "mode": "read", "session_id": sid, "session_meta": k.meta(se),
		"messages": shapeAll(msgs, -1, windowMaxLen), "total_messages": total, "omitted": omitted,
	}
	if omitted > 0 {
		out["message"] = fmt.Sprintf("Showing the first %d and last %d of %d messages; scroll with around_message_id to see the %d in between.", readHead, readTail, total, omitted)
	}
	return tooldef.OK(out), nil
}

func (k *kit) browse(ctx context.Context, db *DB, limit int, sortBy string) (tooldef.Result, error) {
	recent, err := db.Recent(ctx, sortBy, limit)
	if err != nil {
		return tooldef.Result{}, fmt.Errorf("session_search: %w", err)
	}
	sessions := []map[string]any{}
	for _, se := range recent {
		first, err := db.FirstUserMessage(ctx, se.ID)
		if err != nil {
			return tooldef.Result{}, fmt.Errorf("session_search: %w", err)
		}
		sessions = append(sessions, map[string]any{
			"session_id": se.ID, "when": k.when(se.StartedAt), "source": orUnknown(se.Source), "model": orUnknown(se.Model),
			"title": nilIfEmpty(se.Title), "message_count": se.MessageCount, "preview": snippet(first, nil, 200),
			"ended": se.EndedAt != nil,
		})
	}
	return tooldef.OK(map[string]any{"success": true, "mode": "browse", "sessions": sessions, "count": len(sessions)}), nil
}

// snippet cuts content to about width characters around the first query
// term it contains (or from the start), on one line.
func snippet(content string, terms []string, width int) string {
	text := strings.Join(strings.Fields(content), " ")
	runes := []rune(text)
	if len(runes) <= width {
		return text
	}
	lower := lowerRunes(runes)
	at := -1
	for _, t := range terms {
		if i := indexRunes(lower, lowerRunes([]rune(t))); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	start := 0
	if at > width/3 {
		start = at - width/3
	}
	end := min(len(runes), start+width)
	s := string(runes[start:end])
	if start > 0 {
		s = "…" + s
	}
	if end < len(runes) {
		s += "…"
	}
	return s
}

// lowerRunes lower-cases rune by rune, so indexes still line up with the
// original text (strings.ToLower may change the length).
func lowerRunes(rs []rune) []rune {
	out := make([]rune, len(rs))
	for i, r := range rs {
		out[i] = unicode.ToLower(r)
	}
	return out
}

func indexRunes(s, sub []rune) int {
	if len(sub) == 0 {
		return -1
	}
outer:
	for i := 0; i+len(sub) <= len(s); i++ {
		for j := range sub {
			if s[i+j] != sub[j] {
				continue outer
			}
		}
		return i
	}
	return -1
}
