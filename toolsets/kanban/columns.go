package kanban

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
)

// Hermes' column conventions: an absent value is NULL, payloads and run
// metadata are JSON text.

func strPtr(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

func intPtr(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	return &n.Int64
}

// nullable stores "" as NULL, as Hermes stores an absent value.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullInt(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func metaValue(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}

func ptrValue(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// encodePayload renders an event payload or run metadata the way Hermes
// does: JSON text, or NULL for an empty value.
func encodePayload(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode payload: %w", err)
	}
	return strings.TrimRight(buf.String(), "\n"), nil
}

func decodeJSON(s sql.NullString) any {
	if !s.Valid || s.String == "" {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(s.String), &v); err != nil {
		return nil
	}
	return v
}

// firstLine is the first line of s, cut to limit characters; nil when s
// has no text.
func firstLine(s string, limit int) any {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	r := []rune(s)
	if len(r) > limit {
		r = r[:limit]
	}
	return string(r)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
