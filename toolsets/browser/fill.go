package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// maxFillFields bounds browser_fill's fields; the schema advertises it.
const maxFillFields = 30

// fillField is one item of browser_fill: a ref and the value to give it, a
// string or (for a checkbox or radio) a boolean.
type fillField struct {
	Ref   string          `json:"ref"`
	Value json.RawMessage `json:"value"`
}

// fill sets several form fields in one call, in order, each as browser_type
// (text, select) or a click (checkbox, radio) would, and reports what each
// field holds afterwards. It stops at the first field it cannot set and
// says which were set and which were not touched.
func (s *Session) fill(ctx context.Context, c *call, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[struct {
		Fields []fillField `json:"fields"`
	}](raw)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	if len(args.Fields) == 0 {
		return tooldef.Errorf("fields is empty: pass [{\"ref\": \"@e3\", \"value\": \"text\"}, ...]"), nil
	}
	if len(args.Fields) > maxFillFields {
		return tooldef.Errorf("%d fields is over the limit of %d per call; fill the rest in another call", len(args.Fields), maxFillFields), nil
	}
	// Every argument is checked before the first field changes, so a bad
	// item never leaves a form half filled.
	type item struct {
		ref  string
		text string
		set  *bool // a boolean value: check or uncheck
	}
	items := make([]item, len(args.Fields))
	for i, f := range args.Fields {
		if _, _, ok := parseRef(f.Ref); !ok {
			return tooldef.Errorf("fields[%d]: invalid ref %q: pass a ref from the latest snapshot, like @e5", i, f.Ref), nil
		}
		items[i].ref = f.Ref
		var b bool
		var str string
		switch {
		case json.Unmarshal(f.Value, &b) == nil:
			items[i].set = &b
		case json.Unmarshal(f.Value, &str) == nil:
			items[i].text = str
		default:
			return tooldef.Errorf("fields[%d] (%s): value must be a string (text, or an option of a select) or true/false (a checkbox or radio)", i, f.Ref), nil
		}
	}
	var done []string
	failAt := func(i int, ref, msg string) (tooldef.Result, error) {
		text := fmt.Sprintf("fields[%d] (@%s): %s", i, ref, msg)
		if len(done) > 0 {
			text += fmt.Sprintf(". Already set: %s", strings.Join(done, "; "))
		}
		if rest := len(items) - i - 1; rest > 0 {
			text += fmt.Sprintf(". Not touched: the %d field(s) after it", rest)
		}
		return tooldef.Errorf("%s", text), nil
	}
	for i, it := range items {
		obj, ref, fail, err := c.element(ctx, it.ref)
		if err != nil {
			return tooldef.Result{}, err
		}
		if fail != nil {
			m, _ := fail.Value.(map[string]any)
			return failAt(i, ref, fmt.Sprint(m["error"]))
		}
		kind, err := callOn[string](ctx, obj, `function() { return globalThis.__hermes.fillKind(this); }`)
		if err != nil {
			if errors.Is(err, errStale) || isNodeGone(err) {
				return failAt(i, ref, "the element is gone; take a new snapshot")
			}
			return tooldef.Result{}, err
		}
		msg := ""
		switch kind {
		case "checkbox", "radio", "ariacheckbox", "ariaradio":
			want := it.set
			if want == nil {
				v, ok := truthWord(it.text)
				if !ok {
					return failAt(i, ref, fmt.Sprintf("is a %s: pass true or false, not %q", strings.TrimPrefix(kind, "aria"), it.text))
				}
				want = &v
			}
			if blocked, err := callOn[string](ctx, obj, `function() { return globalThis.__hermes.clickBlock(this); }`); err != nil {
				return tooldef.Result{}, err
			} else if blocked != "" {
				return failAt(i, ref, "cannot be changed: it is "+blocked)
			}
			msg, err = callOn[string](ctx, obj, `function(w) { return globalThis.__hermes.setChecked(this, w); }`, *want)
		case "select":
			if it.set != nil {
				return failAt(i, ref, "is a select: pass the option's label as a string")
			}
			msg, err = callOn[string](ctx, obj, `function(t) { return globalThis.__hermes.selectOption(this, t); }`, it.text)
		case "text":
			if it.set != nil {
				return failAt(i, ref, "is a text field: pass the text as a string")
			}
			msg, err = c.typeInto(ctx, obj, it.text)
		case "disabled", "readonly":
			return failAt(i, ref, "is "+kind+" and cannot be filled")
		default:
			return failAt(i, ref, fmt.Sprintf("is a %s, not a form field: use browser_click for it", strings.TrimPrefix(kind, "other:")))
		}
		if err != nil {
			if errors.Is(err, errStale) || isNodeGone(err) {
				return failAt(i, ref, "the element is gone; take a new snapshot")
			}
			return tooldef.Result{}, err
		}
		if msg != "" {
			return failAt(i, ref, msg)
		}
		state, err := callOn[string](ctx, obj, `function() { return globalThis.__hermes.fieldState(this); }`)
		if err != nil {
			state = "set (the page replaced the element afterwards)"
		}
		done = append(done, "@"+ref+" "+state)
	}
	res := map[string]any{"success": true, "filled": done}
	c.reportAction(ctx, res)
	return tooldef.OK(res), nil
}

// typeInto replaces a text field's content with text as browser_type does:
// focused, its content selected, then text inserted as one trusted input.
func (c *call) typeInto(ctx context.Context, obj *runtime.RemoteObject, text string) (string, error) {
	kind, err := callOn[string](ctx, obj, `function() { return globalThis.__hermes.prepareType(this); }`)
	if err != nil {
		return "", err
	}
	if kind != "input" && kind != "editable" {
		return "cannot be typed into (" + kind + ")", nil
	}
	if text == "" {
		_, err := callOn[any](ctx, obj, `function() { globalThis.__hermes.clearField(this); }`)
		return "", err
	}
	return "", chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		return t.Call(ctx, "Input.insertText", map[string]any{"text": text}, nil)
	}))
}

// truthWord reads a checkbox value given as a word.
func truthWord(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on", "checked", "check", "1", "x":
		return true, true
	case "false", "no", "off", "unchecked", "uncheck", "0", "":
		return false, true
	}
	return false, false
}
