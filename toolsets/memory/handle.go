package memory

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hermes-go/hermes/internal/pystr"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// args are the call's arguments as given: the original tells an absent
// argument from null (a null action reads "None" in its refusal, a null
// content lets new_text stand in), so each is kept raw until read.
type args map[string]json.RawMessage

// str returns the argument as a string, whether it was a string, and
// whether it was given at all (null counts as not given).
func (a args) str(key string) (string, bool) {
	raw, ok := a[key]
	if !ok || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		// Not a string (the schema check lets none through); the
		// original would fail on it as on a missing value.
		return "", false
	}
	return s, true
}

// ops decodes a batch. An item that is null or not an object is an op
// with no action, which the batch refuses by its position.
func ops(raw json.RawMessage) ([]Op, bool) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	out := make([]Op, len(items))
	for i, item := range items {
		var a args
		if json.Unmarshal(item, &a) != nil {
			continue
		}
		out[i].Action, _ = a.str("action")
		out[i].Content, _ = a.str("content")
		out[i].NewText, _ = a.str("new_text")
		out[i].OldText, _ = a.str("old_text")
	}
	return out, true
}

func (k *kit) handle(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[args](raw)
	if err != nil {
		return toolError(fmt.Sprintf("Invalid arguments: %v", err)).result(), nil
	}
	cfg, err := k.settings()
	if err != nil {
		return tooldef.Result{}, err
	}
	st := k.store(cfg)

	// The dispatch order is the original's: content falls back to
	// new_text, a missing or null target is "memory", the target is
	// checked, then operations (when truthy) win over action.
	content, hasContent := a.str("content")
	if !hasContent {
		content, _ = a.str("new_text")
	}
	oldText, _ := a.str("old_text")
	target, ok := a.str("target")
	if !ok {
		if _, given := a["target"]; given && string(a["target"]) != "null" {
			target = string(a["target"]) // not a string: quoted as given
		} else {
			target = TargetMemory
		}
	}
	if target != TargetMemory && target != TargetUser {
		return failure(boundError(fmt.Sprintf("Invalid memory target '%s'. Use 'memory' or 'user'.", target))).result(), nil
	}
	on := enabled(cfg.Memory.MemoryEnabled)
	if target == TargetUser {
		on = enabled(cfg.Memory.UserProfileEnabled)
	}
	if !on {
		return failure(fmt.Sprintf("Built-in %s writes are disabled in memory config.", fileName(target)),
			field{"target", target}).result(), nil
	}

	if rawOps, given := a["operations"]; given && pystr.TruthyJSON(rawOps) {
		list, ok := ops(rawOps)
		if !ok {
			return toolError("operations must be a list of {action, content?, old_text?} objects.").result(), nil
		}
		out, err := st.Batch(ctx, target, list)
		if err != nil {
			return tooldef.Result{}, err
		}
		return out.result(), nil
	}

	action, ok := a.str("action")
	if !ok {
		if v, given := a["action"]; given && string(v) == "null" {
			action = "None" // how the original prints a null action
		}
	}
	var out Reply
	switch action {
	case "read":
		return k.read(st, target), nil
	case "add":
		if content == "" {
			return toolError("Content is required for 'add' action.").result(), nil
		}
		out, err = st.Add(ctx, target, content)
	case "replace", "remove":
		if oldText == "" {
			return k.needsOldText(st, target, action).result(), nil
		}
		if action == "remove" {
			out, err = st.Remove(ctx, target, oldText)
			break
		}
		if content == "" {
			return toolError("content is required for 'replace' action.").result(), nil
		}
		out, err = st.Replace(ctx, target, oldText, content)
	default:
		return toolError(fmt.Sprintf("Unknown action '%s'. Use: add, replace, remove", action)).result(), nil
	}
	if err != nil {
		return tooldef.Result{}, err
	}
	return out.result(), nil
}

// needsOldText is the original's recoverable refusal of a replace or
// remove without old_text: the entries come back so the model can pick
// one and reissue the call.
func (k *kit) needsOldText(st *Store, target, action string) Reply {
	hint := ""
	if action == "replace" {
		hint = " For 'replace', content is the COMPLETE new entry -- the whole matched entry is overwritten, not just the old_text span."
	}
	entries, _ := st.Read(target) // an unreadable store shows as empty here; the write refuses it
	return failure(fmt.Sprintf("'%s' needs old_text -- a short unique substring of the entry to %s. None was "+
		"provided. Reissue the %s with old_text set to part of one of the current_entries below.%s",
		action, action, action, hint),
		field{"current_entries", nonNil(entries)}, field{"usage", st.shortUsage(target, entries)})
}

// read answers this server's read action: the entries, which is the
// point of reading, with the usage a write reports. A drifted file reads
// as the original loads it; an unreadable one is refused with the cause.
func (k *kit) read(st *Store, target string) tooldef.Result {
	entries, err := st.Read(target)
	if err != nil {
		return failure(fmt.Sprintf("Could not read %s (%v). Nothing was changed; fix or move the file, then retry.",
			fileName(target), err)).result()
	}
	entries = nonNil(entries)
	return Reply{OK: true, body: object{
		{"success", true}, {"target", target}, {"usage", st.Usage(target, entries)},
		{"entry_count", len(entries)}, {"entries", entries},
	}}.result()
}
