package kanban

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Bounds on the attach tools' arguments, checked before any work. Hermes
// has none but the size cap; a name is cut to 200 characters anyway.
const (
	maxFilenameArg    = 4096
	maxContentTypeArg = 255
	maxURLArg         = 8192
)

type attachArgs struct {
	TaskID        string  `json:"task_id"`
	Filename      string  `json:"filename"`
	ContentBase64 string  `json:"content_base64"`
	ContentType   *string `json:"content_type"`
	Board         string  `json:"board"`
}

func (k *kit) handleAttach(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[attachArgs](raw)
	if err != nil {
		return fail("kanban_attach: %v", err), nil
	}
	tid, res, refused := k.taskArg(a.TaskID)
	if refused {
		return res, nil
	}
	if pyStrip(a.Filename) == "" {
		return fail("filename is required"), nil
	}
	if pyStrip(a.ContentBase64) == "" {
		return fail("content_base64 is required"), nil
	}
	if res, bad := boundAttachArgs(toolAttach, a.Filename, a.ContentType); bad {
		return res, nil
	}
	if len(a.ContentBase64) > maxBase64Len {
		return fail("kanban_attach: attachment exceeds %d MB limit", AttachmentMaxBytes>>20), nil
	}
	data, err := pyB64Decode(a.ContentBase64)
	if err != nil {
		return fail("content_base64 is not valid base64: %v", err), nil
	}
	return k.storeAttachment(ctx, toolAttach, a.Board, tid, a.Filename, data, a.ContentType)
}

type attachURLArgs struct {
	TaskID   string `json:"task_id"`
	URL      string `json:"url"`
	Filename string `json:"filename"`
	// Title is the name Hermes accepted before filename existed.
	Title       string  `json:"title"`
	ContentType *string `json:"content_type"`
	Board       string  `json:"board"`
}

func (k *kit) handleAttachURL(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[attachURLArgs](raw)
	if err != nil {
		return fail("kanban_attach_url: %v", err), nil
	}
	tid, res, refused := k.taskArg(a.TaskID)
	if refused {
		return res, nil
	}
	rawURL := pyStrip(a.URL)
	if rawURL == "" {
		return fail("url is required"), nil
	}
	if len(rawURL) > maxURLArg {
		return fail("kanban_attach_url: url is too long (%d bytes; at most %d)", len(rawURL), maxURLArg), nil
	}
	name := a.Filename
	if name == "" {
		name = a.Title
	}
	if pyStrip(name) == "" {
		name = urlLeafName(rawURL)
	}
	if res, bad := boundAttachArgs(toolAttachURL, name, a.ContentType); bad {
		return res, nil
	}
	data, fetchedType, err := k.download(ctx, rawURL, AttachmentMaxBytes)
	var fe *fetchError
	if errors.As(err, &fe) {
		return fail("kanban_attach_url: %s", fe.msg), nil
	}
	if err != nil {
		return tooldef.Result{}, err
	}
	ct := a.ContentType
	if ct == nil || *ct == "" {
		ct = nil
		if fetchedType != "" {
			ct = &fetchedType
		}
	}
	return k.storeAttachment(ctx, toolAttachURL, a.Board, tid, name, data, ct)
}

// boundAttachArgs refuses a file name or content type too long to be one.
func boundAttachArgs(tool, filename string, contentType *string) (tooldef.Result, bool) {
	if len(filename) > maxFilenameArg {
		return fail("%s: filename is too long (%d bytes; at most %d)", tool, len(filename), maxFilenameArg), true
	}
	if contentType != nil && len(*contentType) > maxContentTypeArg {
		return fail("%s: content_type is too long (%d bytes; at most %d)", tool, len(*contentType), maxContentTypeArg), true
	}
	return tooldef.Result{}, false
}

// storeAttachment stores data as the task's attachment on the call's
// board, uploaded by "agent" as Hermes records tool uploads.
func (k *kit) storeAttachment(ctx context.Context, tool, board, tid, filename string, data []byte, contentType *string) (tooldef.Result, error) {
	// Workers and delegates keep their files under the pinned attachments
	// directory even when they name a board.
	fenced := k.getenv(envTask) != "" || k.delegated()
	dir, err := ResolveAttachments(k.opts.Home, board, fenced, k.getenv)
	if err != nil {
		return finish(tool, err)
	}
	b, res, done, err := k.open(ctx, tool, board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("%s: unknown task %s", tool, tid), nil
	}
	defer b.Close()
	att, err := b.StoreAttachment(ctx, dir, tid, filename, data, contentType, "agent")
	if err != nil {
		return finish(tool, err)
	}
	return ok(map[string]any{"task_id": tid, "attachment_id": att.ID, "size": att.Size}), nil
}

type attachmentsArgs struct {
	TaskID string `json:"task_id"`
	Board  string `json:"board"`
}

func (k *kit) handleAttachments(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[attachmentsArgs](raw)
	if err != nil {
		return fail("kanban_attachments: %v", err), nil
	}
	tid, res, refused := k.taskArg(a.TaskID)
	if refused {
		return res, nil
	}
	b, res, done, err := k.open(ctx, toolAttachments, a.Board, readBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("task %s not found", tid), nil
	}
	defer b.Close()
	t, err := b.Task(ctx, tid)
	if err != nil {
		return finish(toolAttachments, err)
	}
	if t == nil {
		return fail("task %s not found", tid), nil
	}
	list, err := b.ListAttachments(ctx, tid)
	if err != nil {
		return finish(toolAttachments, err)
	}
	return ok(map[string]any{"task_id": tid, "attachments": list}), nil
}

// urlLeafName is the name Hermes gives a download when none is asked for:
// the last segment of the URL's path (urlparse: before any query,
// fragment or ;params), percent-decoded, trimmed, else "download".
func urlLeafName(raw string) string {
	s := raw
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ":"); i > 0 && isSchemeName(s[:i]) {
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		if i := strings.IndexByte(s, '/'); i >= 0 {
			s = s[i:]
		} else {
			s = ""
		}
	}
	leaf := s[strings.LastIndexByte(s, '/')+1:]
	if i := strings.IndexByte(leaf, ';'); i >= 0 {
		leaf = leaf[:i]
	}
	if name := pyStrip(pyUnquote(leaf)); name != "" {
		return name
	}
	return "download"
}

func isSchemeName(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// pyUnquote is Python's urllib.parse.unquote: %XX sequences decoded to
// bytes, read as UTF-8 with invalid sequences replaced by U+FFFD; a stray
// % stays as it is.
func pyUnquote(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			out = append(out, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		out = append(out, s[i])
	}
	if utf8.Valid(out) {
		return string(out)
	}
	var b strings.Builder
	for _, r := range string(out) {
		b.WriteRune(r) // an invalid byte reads as U+FFFD
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
