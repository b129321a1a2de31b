package memory

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/filelock"
	"github.com/hermes-go/hermes/internal/pystr"
	"github.com/hermes-go/hermes/internal/safefile"
)

// Delimiter separates entries in MEMORY.md and USER.md, as in Hermes.
const Delimiter = "\n§\n"

// Targets are the two stores: the agent's notes and what it knows about
// the user.
const (
	TargetMemory = "memory"
	TargetUser   = "user"
)

// Default character limits (config.yaml memory.memory_char_limit and
// memory.user_char_limit).
const (
	DefaultMemoryLimit = 2200
	DefaultUserLimit   = 1375
)

// readLimit bounds what a store file may hold to be read for a write: far
// above any character limit a store is given, far below what would cost
// memory. A larger file is refused like an unreadable one, and kept.
const readLimit = 8 << 20

// ErrUnreadable is matched (errors.Is) by Read's error for a file that
// exists but cannot be taken as a store: not valid UTF-8, not a regular
// file, over the size bound, or an I/O error.
var ErrUnreadable = errors.New("memory file exists but could not be read")

// Store is the memory directory of one Hermes home. Every mutation re-reads
// the file under an exclusive lock and replaces it atomically, so
// concurrent writers in any process (Go or Python) never lose an entry and
// a crash leaves either the old file or the new one.
type Store struct {
	// Dir is <HERMES_HOME>/memories.
	Dir string
	// Limits maps a target to its character limit.
	Limits map[string]int
	// Now stamps drift backups; nil means time.Now.
	Now func() time.Time
}

// Path is the file that holds target.
func (s *Store) Path(target string) string {
	return filepath.Join(s.Dir, fileName(target))
}

func fileName(target string) string {
	if target == TargetUser {
		return "USER.md"
	}
	return "MEMORY.md"
}

func (s *Store) limit(target string) int {
	if n, ok := s.Limits[target]; ok && n > 0 {
		return n
	}
	if target == TargetUser {
		return DefaultUserLimit
	}
	return DefaultMemoryLimit
}

// decode turns file bytes into the text the original parses: it reads
// memory files as utf-8-sig in text mode, so a leading BOM is dropped and
// CRLF and lone CR become LF. Bytes that are not UTF-8 are refused, not
// replaced: a write from a lossy view would replace the user's bytes.
func decode(data []byte) (string, bool) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if !utf8.Valid(data) {
		return "", false
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	return strings.ReplaceAll(text, "\r", "\n"), true
}

// split is the original's parse: the text cut at every delimiter, each
// part stripped, empty parts dropped. Duplicates are kept; the drift rule
// compares against them.
func split(text string) []string {
	var out []string
	for _, part := range strings.Split(text, Delimiter) {
		if part = pystr.Strip(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// dedupe keeps the first copy of each entry, as the original's reload does.
func dedupe(entries []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range entries {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

// Parse splits decoded memory text into entries as Hermes loads them:
// stripped, empties dropped, duplicates removed (the first copy kept). A
// BOM and CR line ends are taken as the original takes them.
func Parse(text string) []string {
	if t, ok := decode([]byte(text)); ok {
		text = t
	}
	return dedupe(split(text))
}

// Render is the file content for entries, byte for byte what the original
// writes: the entries joined by the delimiter, no final newline, and an
// empty file for no entries.
func Render(entries []string) string { return strings.Join(entries, Delimiter) }

// chars counts what the limit counts: characters (code points, as Python
// counts) of the joined entries.
func chars(entries []string) int { return utf8.RuneCountInString(Render(entries)) }

// drifted is the original's round-trip rule: a file is clean when it is
// blank, or when its stripped text is exactly its parsed entries re-joined
// and no entry is longer than the whole store may be. Anything else (padded
// or empty entries, a stray delimiter, a paste) did not come from a memory
// tool, and rewriting it would silently drop what the parse does not keep.
func drifted(text string, limit int) bool {
	stripped := pystr.Strip(text)
	if stripped == "" {
		return false
	}
	parsed := split(text)
	if stripped != Render(parsed) {
		return true
	}
	for _, e := range parsed {
		if utf8.RuneCountInString(e) > limit {
			return true
		}
	}
	return false
}

// readText reads target's file and decodes it. A missing file (or a link
// to nothing) is ("", nil): an empty store. Any other failure wraps
// ErrUnreadable. Links are followed, as the original follows them, but
// the file reached must be a regular file within the size bound, so a
// FIFO planted there cannot hang the call.
func (s *Store) readText(target string) (string, error) {
	p := s.Path(target)
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrUnreadable, p, err)
	}
	data, err := safefile.ReadFile(filepath.Dir(real), real, readLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil && real == p {
		// safefile's error names the file already.
		return "", fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrUnreadable, p, err)
	}
	text, ok := decode(data)
	if !ok {
		return "", fmt.Errorf("%w: %s is not valid UTF-8 text", ErrUnreadable, p)
	}
	return text, nil
}

// Read returns the entries of target without locking: a reader sees either
// the file before or after any replace. A drifted file reads normally; an
// unreadable one is an error matching ErrUnreadable.
func (s *Store) Read(target string) ([]string, error) {
	text, err := s.readText(target)
	if err != nil {
		return nil, err
	}
	return dedupe(split(text)), nil
}

// lockPollInterval is how often a blocked writer retries the lock. Writes
// take milliseconds, so a short poll keeps waits short without spinning.
const lockPollInterval = 5 * time.Millisecond

// withLock runs fn holding the exclusive lock of target's file. The lock
// lives in a separate <file>.lock so the file itself can be replaced by a
// rename; it is the same lock file Hermes uses, and the same kind of lock
// (flock; on Windows the first byte, as msvcrt.locking takes it), so the
// Go and Python writers exclude each other.
func (s *Store) withLock(ctx context.Context, target string, fn func() error) error {
	lock, err := filelock.Acquire(ctx, s.Path(target)+".lock", filelock.Options{Poll: lockPollInterval, Holder: "another process writing memory"})
	if err != nil {
		return fmt.Errorf("lock the %s store: %w", target, err)
	}
	defer lock.Release()
	return fn()
}

// change is what a mutation decided: either a reply to return as is
// (a refusal, or a success that needs no write), or the new entries with
// the success message and the reply fields that follow it.
type change struct {
	reply   *Reply
	entries []string
	message string
	extras  []field
}

func answer(r Reply) change { return change{reply: &r} }

// mutate is the skeleton every write shares, as the original's: lock,
// read, refuse an unreadable file (even an append rewrites the whole
// file), refuse drift unless skipDrift (an append loses nothing), then let
// fn decide on the deduplicated entries and write what it returns.
func (s *Store) mutate(ctx context.Context, target string, skipDrift bool, fn func(entries []string, limit int) change) (Reply, error) {
	var out Reply
	err := s.withLock(ctx, target, func() error {
		text, err := s.readText(target)
		if err != nil {
			out = readFailed(target)
			return nil
		}
		limit := s.limit(target)
		if !skipDrift && drifted(text, limit) {
			out = s.driftRefusal(target, text)
			return nil
		}
		c := fn(dedupe(split(text)), limit)
		if c.reply != nil {
			out = *c.reply
			return nil
		}
		if err := s.write(target, c.entries); err != nil {
			return err
		}
		out = s.success(target, c.entries, c.message, c.extras...)
		return nil
	})
	return out, err
}

func readFailed(target string) Reply {
	return failure(fmt.Sprintf("Refusing to write %s: the file exists on disk but could not be read right now "+
		"(temporarily locked by another program, a permission change, invalid/corrupt text encoding, or a "+
		"filesystem error). Treating an unreadable file as empty and saving would wipe existing memory, so the "+
		"write is refused. Nothing was changed — retry in a moment.", fileName(target)))
}

// driftRefusal saves text (the decoded, LF-normalised file) beside the
// file and says how to resolve the drift; the file itself is not touched.
func (s *Store) driftRefusal(target, text string) Reply {
	backup := s.backup(target, text)
	return failure(fmt.Sprintf("Refusing to write %s: file on disk has content that wouldn't round-trip through "+
		"the memory tool (likely added by the patch tool, a shell append, a manual edit, or a concurrent session). "+
		"A snapshot was saved to %s. Resolve the drift first — either rewrite the file as a clean §-delimited list "+
		"of entries, or move the extra content out — then retry. This guard exists to prevent silent data loss "+
		"(issue #26045).", fileName(target), backup),
		field{"drift_backup", backup},
		field{"remediation", "Open the .bak file, integrate the missing entries into the memory tool one at a time " +
			"via memory(action=add, content=...), then remove or rewrite the original file to a clean state."})
}

// backup writes <file>.bak.<unix seconds> in the memories directory and
// returns its path, or the path marked as failed. The copy is made through
// the directory itself and replaces whatever has that name: a link planted
// there (by anyone who can write the directory) is replaced, not followed,
// so the copy cannot be steered onto another file; and it is written to a
// temporary file first, so no half copy is left.
func (s *Store) backup(target, text string) string {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	name := fmt.Sprintf("%s.bak.%d", fileName(target), now().Unix())
	shown := filepath.Join(s.Dir, name)
	root, err := os.OpenRoot(s.Dir)
	if err == nil {
		// Owner-only: the copy holds the same private notes as the file.
		err = atomicfile.WriteIn(root, name, []byte(text), 0o600, nil)
		root.Close()
	}
	if err != nil {
		return shown + " (BACKUP FAILED — file unchanged on disk)"
	}
	return shown
}

func (s *Store) write(target string, entries []string) error {
	if err := atomicfile.Write(s.Path(target), []byte(Render(entries)), atomicfile.Options{}); err != nil {
		return fmt.Errorf("write memory file %s: %w", s.Path(target), err)
	}
	return nil
}

// delimiterInside returns why content (already stripped) cannot be stored
// as one entry, or "". The file is the entries joined by "\n§\n" and read
// back by cutting at every such line, so an entry holding that line would
// come back as two; one ending in "\n§" would join the delimiter after it
// and take a piece of its neighbour. CR line ends count: the file is read
// with them turned into LF. The original accepts both today (its issue
// #54403, with refusing PRs open); refusing is what those PRs do, and an
// entry that silently becomes two cannot then be removed by its text.
func delimiterInside(content string) string {
	text := strings.ReplaceAll(strings.ReplaceAll(content, "\r\n", "\n"), "\r", "\n")
	if !strings.Contains(text, Delimiter) && !strings.HasSuffix(text, strings.TrimSuffix(Delimiter, "\n")) {
		return ""
	}
	return "Content contains a line holding only '§', the separator between memory entries; stored as is it " +
		"would be read back as separate entries. Remove that line or put other text beside the '§', then retry."
}

// Add appends content unless an identical entry exists or it would break
// the limit. It skips the drift check (appending never clobbers foreign
// content) but, like every write, rewrites the whole file normalised.
func (s *Store) Add(ctx context.Context, target, content string) (Reply, error) {
	content = pystr.Strip(content)
	if content == "" {
		return failure("Content cannot be empty."), nil
	}
	if msg := scanThreats(content); msg != "" {
		return failure(msg), nil
	}
	if msg := delimiterInside(content); msg != "" {
		return failure(msg), nil
	}
	return s.mutate(ctx, target, true, func(entries []string, limit int) change {
		for _, e := range entries {
			if e == content {
				return answer(s.success(target, entries, "Entry already exists (no duplicate added)."))
			}
		}
		next := append(append([]string{}, entries...), content)
		if chars(next) > limit {
			return answer(s.withEntries(target, entries, fmt.Sprintf("Memory at %s/%s chars. Adding this entry (%d chars) "+
				"would exceed the limit. Consolidate now: use 'replace' to merge overlapping entries into shorter ones "+
				"or 'remove' stale or less important entries (see current_entries below), then retry this add — all "+
				"in this turn.", commas(chars(entries)), commas(limit), utf8.RuneCountInString(content))))
		}
		return change{entries: next, message: "Entry added."}
	})
}

// Replace overwrites the whole entry oldText selects with content: oldText
// only locates the entry.
func (s *Store) Replace(ctx context.Context, target, oldText, content string) (Reply, error) {
	content = pystr.Strip(content)
	if pystr.Strip(oldText) == "" {
		return failure("old_text cannot be empty."), nil
	}
	if content == "" {
		return failure("new_content cannot be empty. Use 'remove' to delete entries."), nil
	}
	if msg := scanThreats(content); msg != "" {
		return failure(msg), nil
	}
	if msg := delimiterInside(content); msg != "" {
		return failure(msg), nil
	}
	oldText = pystr.Strip(oldText)
	return s.mutate(ctx, target, false, func(entries []string, limit int) change {
		i, refusal := locate(entries, oldText, "replace")
		if refusal != nil {
			return answer(*refusal)
		}
		next := append([]string{}, entries...)
		next[i] = content
		if total := chars(next); total > limit {
			return answer(s.withEntries(target, entries, fmt.Sprintf("Replacement would put memory at %s/%s chars. "+
				"Shorten the new content, or 'remove' other stale or less important entries to make room (see "+
				"current_entries below), then retry — all in this turn.", commas(total), commas(limit))))
		}
		return change{entries: next, message: "Entry replaced.", extras: []field{{"replaced_entry", entries[i]}}}
	})
}

// Remove deletes the entry oldText selects.
func (s *Store) Remove(ctx context.Context, target, oldText string) (Reply, error) {
	oldText = pystr.Strip(oldText)
	if oldText == "" {
		return failure("old_text cannot be empty."), nil
	}
	return s.mutate(ctx, target, false, func(entries []string, limit int) change {
		i, refusal := locate(entries, oldText, "remove")
		if refusal != nil {
			return answer(*refusal)
		}
		next := append(append([]string{}, entries[:i]...), entries[i+1:]...)
		return change{entries: next, message: "Entry removed.", extras: []field{{"removed_entry", entries[i]}}}
	})
}

// match finds the entry oldText selects: an entry equal to it wins
// outright, so a short entry stays addressable when a longer one contains
// it; otherwise the entries containing it, which must all be the same
// text. It returns the index (-1 for none) and whether the match was
// ambiguous.
func match(entries []string, oldText string) (int, bool) {
	var hits []int
	for i, e := range entries {
		if e == oldText {
			hits = append(hits, i)
		}
	}
	if hits == nil {
		for i, e := range entries {
			if strings.Contains(e, oldText) {
				hits = append(hits, i)
			}
		}
	}
	if len(hits) == 0 {
		return -1, false
	}
	for _, i := range hits[1:] {
		if entries[i] != entries[hits[0]] {
			return -1, true
		}
	}
	return hits[0], false
}

// locate is match with the original's refusals for a single replace or
// remove.
func locate(entries []string, oldText, verb string) (int, *Reply) {
	i, ambiguous := match(entries, oldText)
	if ambiguous {
		previews := []string{}
		for _, e := range entries {
			if strings.Contains(e, oldText) {
				previews = append(previews, preview(e, 80))
			}
		}
		r := failure(fmt.Sprintf("Multiple entries matched '%s'. Be more specific.", oldText), field{"matches", previews})
		return -1, &r
	}
	if i < 0 {
		r := failure(fmt.Sprintf("No entry matched '%s'. Check current_entries below and retry with the exact text "+
			"of the entry you want to %s.", oldText, verb), field{"current_entries", nonNil(entries)})
		return -1, &r
	}
	return i, nil
}

// Op is one operation of a batch. Content falls back to NewText when
// empty, as the original reads `content or new_text`.
type Op struct {
	Action  string
	Content string
	NewText string
	OldText string
}

// Batch applies ops in order to a working copy of the entries, each seeing
// the earlier ones, and writes the result once, only when every op is
// valid and the final result fits the limit (intermediate states may
// exceed it, so one call can free room and add). A batch that would empty
// a store that had entries is refused; single removes are the way to do
// that deliberately.
func (s *Store) Batch(ctx context.Context, target string, ops []Op) (Reply, error) {
	if len(ops) == 0 {
		return failure("operations list is empty."), nil
	}
	// Every add and replace is scanned before the file is touched: one
	// poisoned op refuses the batch. The original scans only `content`;
	// content given as new_text is scanned here too, since it is written
	// the same way.
	for i, op := range ops {
		if op.Action != "add" && op.Action != "replace" {
			continue
		}
		if msg := scanThreats(op.content()); op.content() != "" && msg != "" {
			return failure(fmt.Sprintf("Operation %d: %s", i+1, msg)), nil
		}
		if msg := delimiterInside(pystr.Strip(op.content())); msg != "" {
			return failure(fmt.Sprintf("Operation %d: %s", i+1, msg)), nil
		}
	}
	return s.mutate(ctx, target, false, func(entries []string, limit int) change {
		abort := func(msg string) change {
			return answer(failure(msg+" No operations were applied (batch is all-or-nothing).",
				field{"usage", s.shortUsage(target, entries)}))
		}
		working := append([]string{}, entries...)
		var replaced, removed indexed
		for i, op := range ops {
			prev, msg := applyOp(&working, op, i+1)
			if msg != "" {
				return abort(msg)
			}
			switch {
			case prev == nil:
			case op.Action == "replace":
				replaced = append(replaced, indexedText{i + 1, *prev})
			default:
				removed = append(removed, indexedText{i + 1, *prev})
			}
		}
		if len(entries) > 0 && len(working) == 0 {
			return abort(fmt.Sprintf("Refusing to empty %s: this batch would remove every entry from a previously "+
				"non-empty store. Keep at least one entry — merge overlapping entries into a shorter one instead of "+
				"removing the last one. To delete the final entry deliberately, use single remove() calls.", fileName(target)))
		}
		if total := chars(working); total > limit {
			return abort(fmt.Sprintf("After applying all %d operations, memory would be at %s/%s chars -- over the "+
				"limit. Remove or shorten more entries in the same batch, then retry.", len(ops), commas(total), commas(limit)))
		}
		c := change{entries: working, message: fmt.Sprintf("Applied %d operation(s).", len(ops))}
		if replaced != nil {
			c.extras = append(c.extras, field{"replaced_entries", replaced})
		}
		if removed != nil {
			c.extras = append(c.extras, field{"removed_entries", removed})
		}
		return c
	})
}

func (op Op) content() string {
	if op.Content != "" {
		return op.Content
	}
	return op.NewText
}

// applyOp applies op (numbered n) to working. It returns the full text of
// the entry a replace or remove overwrote, or the reason the batch stops.
func applyOp(working *[]string, op Op, n int) (*string, string) {
	action := op.Action
	if action == "" {
		action = "unknown"
	}
	pos := fmt.Sprintf("Operation %d (%s)", n, action)
	content, oldText := pystr.Strip(op.content()), pystr.Strip(op.OldText)
	switch op.Action {
	case "add":
		if content == "" {
			return nil, pos + ": content is required."
		}
		for _, e := range *working {
			if e == content {
				return nil, "" // already there: an add is idempotent
			}
		}
		*working = append(*working, content)
		return nil, ""
	case "replace", "remove":
	default:
		return nil, pos + ": unknown action. Use add, replace, or remove."
	}
	if oldText == "" {
		return nil, pos + ": old_text is required."
	}
	if op.Action == "replace" && content == "" {
		return nil, pos + ": content is required (use action='remove' to delete)."
	}
	i, ambiguous := match(*working, oldText)
	if ambiguous {
		return nil, fmt.Sprintf("%s: '%s' matched multiple distinct entries -- be more specific.", pos, oldText)
	}
	if i < 0 {
		return nil, fmt.Sprintf("%s: no entry matched '%s'.", pos, oldText)
	}
	prev := (*working)[i]
	if op.Action == "replace" {
		(*working)[i] = content
	} else {
		*working = append((*working)[:i:i], (*working)[i+1:]...)
	}
	return &prev, ""
}

// success is the original's reply to a completed write: no entries (an
// echo invites the model to find more to fix and repeat the call), the
// usage, the message, what the write overwrote, and a note that it is
// done.
func (s *Store) success(target string, entries []string, message string, extras ...field) Reply {
	r := Reply{OK: true, Message: message, body: object{
		{"success", true}, {"done", true}, {"target", target},
		{"usage", s.Usage(target, entries)}, {"entry_count", len(entries)},
	}}
	if message != "" {
		r.body = append(r.body, field{"message", message})
	}
	r.body = append(r.body, extras...)
	r.body = append(r.body, field{"note", "Write saved. This update is complete — do not repeat it."})
	return r
}

// withEntries is a refusal that hands back the entries and the usage, so
// the model can consolidate in the same turn.
func (s *Store) withEntries(target string, entries []string, msg string) Reply {
	return failure(msg, field{"current_entries", nonNil(entries)}, field{"usage", s.shortUsage(target, entries)})
}

// Usage renders "<pct>% — <cur>/<limit> chars", as success replies show it.
func (s *Store) Usage(target string, entries []string) string {
	cur, limit := chars(entries), s.limit(target)
	pct := 0
	if limit > 0 {
		// In floating point, as the original computes it: 57/100 is 56%
		// there, and the two must print the same.
		pct = min(100, int(float64(cur)/float64(limit)*100))
	}
	return fmt.Sprintf("%d%% — %s/%s chars", pct, commas(cur), commas(limit))
}

// shortUsage renders "<cur>/<limit>", as refusals show it.
func (s *Store) shortUsage(target string, entries []string) string {
	return commas(chars(entries)) + "/" + commas(s.limit(target))
}

// commas formats n with thousands separators, as Hermes prints counts.
func commas(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + commas(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func preview(s string, width int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	return string(r[:width]) + "..."
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
