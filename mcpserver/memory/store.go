package memory

import (
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
	if target == TargetUser {
		return filepath.Join(s.Dir, "USER.md")
	}
	return filepath.Join(s.Dir, "MEMORY.md")
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

// Parse splits a memory file into entries: trimmed, empties dropped and
// duplicates removed (the first copy kept), as Hermes loads them.
func Parse(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, part := range strings.Split(text, Delimiter) {
		part = strings.TrimSpace(part)
		if part == "" || seen[part] {
			continue
		}
		seen[part] = true
		out = append(out, part)
	}
	return out
}

// Render is the file content for entries.
func Render(entries []string) string {
	if len(entries) == 0 {
		return ""
	}
	return strings.Join(entries, Delimiter) + "\n"
}

// chars counts what the limit counts: characters of the joined entries.
func chars(entries []string) int {
	if len(entries) == 0 {
		return 0
	}
	return utf8.RuneCountInString(strings.Join(entries, Delimiter))
}

// Read returns the entries of target without locking: a reader sees either
// the file before or after any replace.
func (s *Store) Read(target string) ([]string, error) {
	data, err := os.ReadFile(s.Path(target))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.Path(target), err)
	}
	return Parse(string(data)), nil
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

// Outcome is the result of one memory action. Failed outcomes carry the
// message the model sees; Entries are the entries after the action (or the
// current ones when it failed).
type Outcome struct {
	OK      bool
	Message string
	Entries []string
	// Matches lists previews when old_text matched several entries.
	Matches []string
	// OverLimit marks a refusal for lack of space.
	OverLimit bool
	// Backup is the drift snapshot's path when the file was refused.
	Backup string
}

// Add appends content unless an identical entry exists or it would break
// the limit.
func (s *Store) Add(ctx context.Context, target, content string) (Outcome, error) {
	content = strings.TrimSpace(content)
	if content == "" {
		return Outcome{Message: "Content cannot be empty."}, nil
	}
	if msg := scanThreats(content); msg != "" {
		return Outcome{Message: msg}, nil
	}
	var out Outcome
	err := s.withLock(ctx, target, func() error {
		entries, err := s.Read(target)
		if err != nil {
			return err
		}
		out.Entries = nonNil(entries)
		for _, e := range entries {
			if e == content {
				out.OK, out.Message = true, "Entry already exists (no duplicate added)."
				return nil
			}
		}
		next := append(append([]string{}, entries...), content)
		if total, limit := chars(next), s.limit(target); total > limit {
			out.OverLimit = true
			out.Message = fmt.Sprintf("Memory at %s/%s chars. Adding this entry (%d chars) would exceed the limit. "+
				"Consolidate now: merge related entries with 'replace' or drop stale ones with 'remove' "+
				"(current_entries lists them), then add again.",
				commas(chars(entries)), commas(limit), utf8.RuneCountInString(content))
			return nil
		}
		if err := s.write(target, next); err != nil {
			return err
		}
		out.OK, out.Message, out.Entries = true, "Entry added.", next
		return nil
	})
	return out, err
}

// Replace swaps the one entry containing oldText for content.
func (s *Store) Replace(ctx context.Context, target, oldText, content string) (Outcome, error) {
	oldText, content = strings.TrimSpace(oldText), strings.TrimSpace(content)
	if oldText == "" {
		return Outcome{Message: "old_text cannot be empty."}, nil
	}
	if content == "" {
		return Outcome{Message: "content cannot be empty for replace. Use 'remove' to delete entries."}, nil
	}
	if msg := scanThreats(content); msg != "" {
		return Outcome{Message: msg}, nil
	}
	return s.edit(ctx, target, oldText, func(entries []string, i int) ([]string, *Outcome) {
		next := append([]string{}, entries...)
		next[i] = content
		if total, limit := chars(next), s.limit(target); total > limit {
			return nil, &Outcome{OverLimit: true, Entries: entries, Message: fmt.Sprintf(
				"Replacement would put memory at %s/%s chars. Shorten the new content or remove other entries "+
					"(current_entries lists them), then try again.", commas(total), commas(limit))}
		}
		return next, &Outcome{OK: true, Message: "Entry replaced."}
	})
}

// Remove deletes the one entry containing oldText.
func (s *Store) Remove(ctx context.Context, target, oldText string) (Outcome, error) {
	oldText = strings.TrimSpace(oldText)
	if oldText == "" {
		return Outcome{Message: "old_text cannot be empty."}, nil
	}
	return s.edit(ctx, target, oldText, func(entries []string, i int) ([]string, *Outcome) {
		next := append(append([]string{}, entries[:i]...), entries[i+1:]...)
		return next, &Outcome{OK: true, Message: "Entry removed."}
	})
}

// edit finds the entry matching oldText under the lock and lets change
// produce the new list; a nil list means "refused, write nothing".
func (s *Store) edit(ctx context.Context, target, oldText string, change func([]string, int) ([]string, *Outcome)) (Outcome, error) {
	var out Outcome
	err := s.withLock(ctx, target, func() error {
		entries, err := s.Read(target)
		if err != nil {
			return err
		}
		out.Entries = nonNil(entries)
		if backup, err := s.checkDrift(target, entries); err != nil || backup != "" {
			if err == nil {
				out.Backup = backup
				out.Message = fmt.Sprintf("Refusing to rewrite %s: it holds an entry longer than the whole %d-character limit, "+
					"which the memory tool never writes (a paste, a shell append or a manual edit). Rewriting the file "+
					"would keep that text in the store without its being curated. A copy was saved to %s. Move the long text "+
					"out of the file (or split it into short entries separated by lines holding only §), then retry.",
					filepath.Base(s.Path(target)), s.limit(target), backup)
			}
			return err
		}
		var idx []int
		distinct := map[string]bool{}
		for i, e := range entries {
			if strings.Contains(e, oldText) {
				idx = append(idx, i)
				distinct[e] = true
			}
		}
		switch {
		case len(idx) == 0:
			out.Message = fmt.Sprintf("No entry matched '%s'. Pick a phrase that appears in exactly one of current_entries and retry.", oldText)
			return nil
		case len(distinct) > 1:
			out.Message = fmt.Sprintf("Multiple entries matched '%s'. Be more specific.", oldText)
			for _, i := range idx {
				out.Matches = append(out.Matches, preview(entries[i], 80))
			}
			return nil
		}
		next, res := change(entries, idx[0])
		if next == nil {
			out = *res
			return nil
		}
		if err := s.write(target, next); err != nil {
			return err
		}
		out = *res
		out.Entries = next
		return nil
	})
	return out, err
}

// checkDrift snapshots and refuses a file that the tool could not have
// written: an entry above the whole limit means text arrived another way.
func (s *Store) checkDrift(target string, entries []string) (string, error) {
	limit := s.limit(target)
	for _, e := range entries {
		if utf8.RuneCountInString(e) > limit {
			now := time.Now
			if s.Now != nil {
				now = s.Now
			}
			backup := fmt.Sprintf("%s.bak.%d", s.Path(target), now().Unix())
			data, err := os.ReadFile(s.Path(target))
			if err != nil {
				return "", fmt.Errorf("read %s: %w", s.Path(target), err)
			}
			if err := atomicfile.Write(backup, data, atomicfile.Options{}); err != nil {
				return "", fmt.Errorf("save a copy of %s: %w", s.Path(target), err)
			}
			return backup, nil
		}
	}
	return "", nil
}

func (s *Store) write(target string, entries []string) error {
	if err := atomicfile.Write(s.Path(target), []byte(Render(entries)), atomicfile.Options{}); err != nil {
		return fmt.Errorf("save %s: %w", s.Path(target), err)
	}
	return nil
}

// Usage renders "<pct>% — <cur>/<limit> chars".
func (s *Store) Usage(target string, entries []string) string {
	cur, limit := chars(entries), s.limit(target)
	pct := 0
	if limit > 0 {
		pct = min(100, cur*100/limit)
	}
	return fmt.Sprintf("%d%% — %s/%s chars", pct, commas(cur), commas(limit))
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
