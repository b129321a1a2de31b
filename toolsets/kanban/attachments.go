package kanban

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/safefile"
)

// AttachmentMaxBytes is Hermes' one cap on an attachment, for the
// dashboard, the CLI and the tools alike (KANBAN_ATTACHMENT_MAX_BYTES).
const AttachmentMaxBytes = 25 << 20

// envAttachmentsRoot pins the attachments directory, as HERMES_KANBAN_DB
// pins the database.
const envAttachmentsRoot = "HERMES_KANBAN_ATTACHMENTS_ROOT"

// AttachmentsDir is where a board keeps its files: <Base>/<Sub...>/<task
// id>/<name>. Base is the board's directory, or the directory
// HERMES_KANBAN_ATTACHMENTS_ROOT names: links in its path are the user's
// to make, as they are for the board's database. The attachments
// directory and each task's directory below it must be real directories:
// one swapped for a symbolic link is refused, never followed, so a planted
// link cannot send a file elsewhere.
type AttachmentsDir struct {
	Base string
	Sub  []string
}

// Path is the attachments root as Hermes names it.
func (d AttachmentsDir) Path() string { return filepath.Join(append([]string{d.Base}, d.Sub...)...) }

// ResolveAttachments is Hermes' attachments_root(board): the board
// argument's directory, else HERMES_KANBAN_ATTACHMENTS_ROOT, else the
// current board's (<root>/kanban/attachments for the default board,
// <root>/kanban/boards/<slug>/attachments for another). A fenced caller (a
// dispatched worker or a delegate) stays on the pinned root even when it
// names a board. The directory never follows HERMES_KANBAN_DB: a pinned
// database with no board named keeps its files under the current board.
func ResolveAttachments(home, board string, fenced bool, getenv func(string) string) (AttachmentsDir, error) {
	pin := pyStrip(getenv(envAttachmentsRoot))
	slug := ""
	if strings.TrimSpace(board) != "" {
		ref, err := slugRef("", board)
		if err != nil {
			return AttachmentsDir{}, err
		}
		slug = ref.Slug
	}
	if pin != "" && (slug == "" || fenced) {
		p, err := hermeshome.ExpandPath(pin, getenv)
		if err != nil {
			return AttachmentsDir{}, fmt.Errorf("%s: %w", envAttachmentsRoot, err)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return AttachmentsDir{}, fmt.Errorf("%s %q: %w", envAttachmentsRoot, pin, err)
		}
		return AttachmentsDir{Base: abs}, nil
	}
	root, err := Root(home, getenv)
	if err != nil {
		return AttachmentsDir{}, err
	}
	if slug == "" {
		slug = currentBoard(root, getenv)
	}
	if slug == DefaultBoard {
		return AttachmentsDir{Base: filepath.Join(root, "kanban"), Sub: []string{"attachments"}}, nil
	}
	return AttachmentsDir{Base: boardDir(root, slug), Sub: []string{"attachments"}}, nil
}

// Attachment is one row of task_attachments.
type Attachment struct {
	ID          int64   `json:"id"`
	TaskID      string  `json:"-"`
	Filename    string  `json:"filename"`
	ContentType *string `json:"content_type"`
	Size        int64   `json:"size"`
	UploadedBy  *string `json:"uploaded_by"`
	StoredPath  string  `json:"stored_path"`
	CreatedAt   int64   `json:"created_at"`
}

// ListAttachments returns a task's attachments, oldest first.
func (b *Board) ListAttachments(ctx context.Context, taskID string) ([]Attachment, error) {
	out := []Attachment{}
	if b.empty {
		return out, nil
	}
	rows, err := b.db.QueryContext(ctx, `SELECT id, task_id, filename, stored_path, content_type, COALESCE(size, 0),
			uploaded_by, created_at
		FROM task_attachments WHERE task_id = ? ORDER BY created_at ASC, id ASC`, taskID)
	if err != nil {
		return nil, b.db.Explain("read the attachments of "+taskID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var a Attachment
		var ct, by sql.NullString
		if err := rows.Scan(&a.ID, &a.TaskID, &a.Filename, &a.StoredPath, &ct, &a.Size, &by, &a.CreatedAt); err != nil {
			return nil, b.db.Explain("read the attachments of "+taskID, err)
		}
		a.ContentType, a.UploadedBy = strPtr(ct), strPtr(by)
		out = append(out, a)
	}
	return out, b.db.Explain("read the attachments of "+taskID, rows.Err())
}

// safeAttachmentName is Hermes' _safe_attachment_name: the last path
// component (either separator), without characters Python does not print
// (controls, format characters, separators other than the space), without
// leading dots (no dotfiles, no "..") and surrounding blanks, at most 200
// characters. Nothing left is an error.
func safeAttachmentName(raw string) (string, error) {
	name := strings.ReplaceAll(raw, `\`, "/")
	name = pyStrip(name[strings.LastIndexByte(name, '/')+1:])
	name = strings.Map(func(r rune) rune {
		if r == 0 || !pyPrintable(r) {
			return -1
		}
		return r
	}, name)
	name = pyStrip(strings.TrimLeft(pyStrip(name), "."))
	if name == "" {
		return "", inputErrorf("invalid attachment filename")
	}
	if r := []rune(name); len(r) > 200 {
		name = string(r[:200])
	}
	return name, nil
}

// collisionName is the n-th candidate for name, as Hermes'
// _collision_free_path numbers them: split at the first dot, "a.tar.gz"
// then "a (1).tar.gz", "a (2).tar.gz".
func collisionName(name string, n int) string {
	if n == 0 {
		return name
	}
	stem, ext, dot := strings.Cut(name, ".")
	if !dot {
		return fmt.Sprintf("%s (%d)", stem, n)
	}
	return fmt.Sprintf("%s (%d).%s", stem, n, ext)
}

// maxCollisions bounds the search for a free name (Hermes' is unbounded).
const maxCollisions = 10000

// StoreAttachment is Hermes' store_attachment_bytes: data is written as a
// new file named after filename (made safe, numbered when the name is
// taken) in the task's directory under dir, and recorded in
// task_attachments with its resolved path and an attached event. The file
// appears whole or not at all: it is written under a temporary name and
// hard-linked to its final name, which never replaces an existing file
// and never follows a link planted there. A failure removes what was
// written.
func (b *Board) StoreAttachment(ctx context.Context, dir AttachmentsDir, taskID, filename string, data []byte, contentType *string, uploadedBy string) (Attachment, error) {
	if len(data) > AttachmentMaxBytes {
		return Attachment{}, inputErrorf("attachment exceeds %d MB limit", AttachmentMaxBytes>>20)
	}
	name, err := safeAttachmentName(filename)
	if err != nil {
		return Attachment{}, err
	}
	// Checked before anything is written, so an unknown task leaves
	// nothing behind (Hermes writes first and leaves an empty directory).
	if t, err := b.Task(ctx, taskID); err != nil {
		return Attachment{}, err
	} else if t == nil {
		return Attachment{}, inputErrorf("unknown task %s", taskID)
	}
	taskDir, realDir, err := openTaskDir(dir, taskID)
	if err != nil {
		return Attachment{}, err
	}
	defer taskDir.Close()
	stored, err := writeNew(taskDir, realDir, name, data)
	if err != nil {
		return Attachment{}, err
	}
	a := Attachment{TaskID: taskID, Filename: stored, StoredPath: filepath.Join(realDir, stored), ContentType: contentType,
		Size: int64(len(data)), CreatedAt: b.unix()}
	if uploadedBy != "" {
		a.UploadedBy = &uploadedBy
	}
	err = b.db.Tx(ctx, "attach "+stored+" to "+taskID, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, "SELECT 1 FROM tasks WHERE id = ?", taskID).Scan(&one); errors.Is(err, sql.ErrNoRows) {
			return inputErrorf("unknown task %s", taskID)
		} else if err != nil {
			return b.db.Explain("read task "+taskID, err)
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO task_attachments
				(task_id, filename, stored_path, content_type, size, uploaded_by, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?)`,
			taskID, stored, a.StoredPath, ptrValue(contentType), a.Size, ptrValue(a.UploadedBy), a.CreatedAt)
		if err != nil {
			return b.db.Explain("record the attachment", err)
		}
		if a.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		return b.appendEvent(ctx, tx, taskID, "attached", attachedPayload{Filename: stored, Size: a.Size, By: a.UploadedBy}, nil)
	})
	if err != nil {
		// No orphan file when the row cannot be written.
		_ = taskDir.Remove(stored)
		return Attachment{}, err
	}
	return a, nil
}

// attachedPayload is the attached event's payload, in Hermes' key order.
type attachedPayload struct {
	Filename string  `json:"filename"`
	Size     int64   `json:"size"`
	By       *string `json:"by"`
}

// openTaskDir opens (creating them) the directories from dir.Base down to
// the task's own, each checked to be a real directory and not a link, and
// returns the task directory with its resolved absolute path.
func openTaskDir(dir AttachmentsDir, taskID string) (*os.Root, string, error) {
	if err := os.MkdirAll(dir.Base, 0o755); err != nil {
		return nil, "", fmt.Errorf("create the attachments directory %s: %w", dir.Base, err)
	}
	realBase, err := filepath.EvalSymlinks(dir.Base)
	if err != nil {
		return nil, "", fmt.Errorf("resolve the attachments directory %s: %w", dir.Base, err)
	}
	cur, err := os.OpenRoot(realBase)
	if err != nil {
		return nil, "", fmt.Errorf("open the attachments directory %s: %w", dir.Base, err)
	}
	real := realBase
	for _, part := range append(append([]string{}, dir.Sub...), taskID) {
		next, err := openRealDir(cur, part, filepath.Join(real, part))
		cur.Close()
		if err != nil {
			return nil, "", err
		}
		cur, real = next, filepath.Join(real, part)
	}
	return cur, real, nil
}

// openRealDir opens the directory name in parent, creating it when
// missing, and refuses anything else found there: a symbolic link (even
// to a directory), a file, or a directory swapped in between the check and
// the open.
func openRealDir(parent *os.Root, name, shown string) (*os.Root, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return nil, inputErrorf("invalid attachments path component %s", pyRepr(name))
	}
	if err := parent.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("create %s: %w", shown, err)
	}
	fi, err := parent.Lstat(name)
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", shown, err)
	}
	if !fi.IsDir() {
		return nil, inputErrorf("%s is %s, not a directory; refusing to store attachments through it (move it aside)", shown, safefile.Describe(fi.Mode()))
	}
	sub, err := parent.OpenRoot(name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", shown, err)
	}
	opened, err := sub.Stat(".")
	if err != nil || !os.SameFile(fi, opened) {
		sub.Close()
		return nil, inputErrorf("%s changed while it was being opened; refusing to store attachments through it", shown)
	}
	return sub, nil
}

// writeNew writes data to a fresh file in dir named name or, when that
// name is taken by anything at all (a dangling link included), the first
// free collisionName, and returns the name used.
func writeNew(dir *os.Root, realDir, name string, data []byte) (string, error) {
	var suffix [6]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return "", err
	}
	tmpName := ".attach-" + hex.EncodeToString(suffix[:]) + ".tmp"
	tmp, err := dir.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("create a temporary file in %s: %w", realDir, err)
	}
	defer dir.Remove(tmpName)
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("write %s: %w", filepath.Join(realDir, tmpName), err)
	}
	for n := range maxCollisions {
		candidate := collisionName(name, n)
		// Hermes' rule can leave "." or ".." (" . .." loses only its
		// first dot): both exist, as directories, so they are taken.
		if candidate == "." || candidate == ".." {
			continue
		}
		if _, err := dir.Lstat(candidate); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("stat %s: %w", filepath.Join(realDir, candidate), err)
		}
		// link(2) fails on any existing name, links included, and never
		// follows one: nothing is replaced, nothing written elsewhere.
		err := dir.Link(tmpName, candidate)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("store %s: %w", filepath.Join(realDir, candidate), err)
		}
		return candidate, nil
	}
	return "", inputErrorf("%s: every name from %s to %s is taken", realDir, name, collisionName(name, maxCollisions-1))
}
