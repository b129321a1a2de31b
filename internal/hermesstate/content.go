package hermesstate

import (
	"encoding/json"
	"strings"
)

// JSONContentPrefix marks messages.content that Hermes stored as JSON: a
// message whose content was a list of parts (text, images) is written as
// this prefix followed by the list's JSON. A NUL byte never starts typed
// text, so a plain string can never be mistaken for it.
const JSONContentPrefix = "\x00json:"

// MultimodalPlaceholder stands for a list of parts without any text, as
// Hermes shows it.
const MultimodalPlaceholder = "[multimodal content]"

// ContentText is the text of a messages.content value as Hermes displays
// it: plain text as is; JSON-encoded content flattened, a list of parts to
// its text parts joined by spaces (or MultimodalPlaceholder when it has
// none), a JSON string to that string. JSON that cannot be read is shown as
// stored, without the prefix, rather than lost.
func ContentText(stored string) string {
	raw, ok := strings.CutPrefix(stored, JSONContentPrefix)
	if !ok {
		return stored
	}
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return raw
	}
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, p := range x {
			m, ok := p.(map[string]any)
			if !ok || m["type"] != "text" {
				continue
			}
			if t, _ := m["text"].(string); t != "" {
				parts = append(parts, t)
			}
		}
		if s := strings.TrimSpace(strings.Join(parts, " ")); s != "" {
			return s
		}
		return MultimodalPlaceholder
	}
	return ""
}
