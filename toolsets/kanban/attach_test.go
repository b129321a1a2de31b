package kanban_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/kanban"
)

func TestSafeAttachmentName(t *testing.T) {
	long := strings.Repeat("é", 300)
	tests := []struct{ in, want string }{
		{"report.pdf", "report.pdf"},
		{"../../etc/passwd", "passwd"},
		{`..\..\Windows\evil.bat`, "evil.bat"},
		{"/abs/path/x.txt", "x.txt"},
		{".bashrc", "bashrc"},
		{" . hidden ", "hidden"},
		{" . ..", ".."}, // as in Hermes; the storage steps around it
		{"re\x00port\t.pdf", "report.pdf"},
		{"a\u200bb\u00a0c.txt", "abc.txt"},
		{"tab\there", "tabhere"},
		{"日本語 レポート.txt", "日本語 レポート.txt"},
		{"a.tar.gz", "a.tar.gz"},
		{long, strings.Repeat("é", 200)},
		{"...", ""},
		{"   ", ""},
		{"dir/", ""},
		{"\x01\x02", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := kanban.SafeAttachmentName(tt.in)
		if tt.want == "" {
			if err == nil || err.Error() != "invalid attachment filename" {
				t.Errorf("%q = %q, %v; want Hermes' refusal", tt.in, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestSafeAttachmentNameMatchesPython runs Hermes' rule in Python on
// random names over the characters it treats specially. Skipped without
// python3.
func TestSafeAttachmentNameMatchesPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	alphabet := []rune("ab.Z9 -_/\\\t\n\x00\x1c\x7f\u00a0\u200b\u2028\u3000\u00e9日\u0301\ufeff")
	rng := rand.New(rand.NewPCG(5, 6))
	var inputs []string
	for range 3000 {
		r := make([]rune, rng.IntN(10))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		inputs = append(inputs, string(r))
	}
	in, _ := json.Marshal(inputs)
	const script = `
import json, sys
def safe(raw):
    name = (raw or "").replace("\\", "/").split("/")[-1].strip()
    name = "".join(ch for ch in name if ch.isprintable() and ch not in "\x00").strip()
    name = name.lstrip(".").strip()
    return name[:200] if name else None
json.dump([safe(s) for s in json.load(sys.stdin)], sys.stdout)
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(string(in))
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var want []*string
	json.Unmarshal(raw, &want)
	for i, s := range inputs {
		got, err := kanban.SafeAttachmentName(s)
		switch {
		case want[i] == nil && err == nil:
			t.Errorf("%q: got %q, Python refuses it", s, got)
		case want[i] != nil && (err != nil || got != *want[i]):
			t.Errorf("%q: got %q, %v; Python gives %q", s, got, err, *want[i])
		}
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func readAttachment(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// filesIn lists a directory's entries, hidden ones included.
func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestAttach(t *testing.T) {
	home := t.TempDir()
	orch := newHarness(t, home, map[string]string{"HERMES_PROFILE": "lead"})
	id := orch.ok("kanban_create", obj{"title": "Report", "assignee": "writer"})["task_id"].(string)
	dir := filepath.Join(home, "kanban", "attachments", id)

	got := orch.ok("kanban_attach", obj{"task_id": id, "filename": "../../notes/report.txt", "content_base64": b64("first"), "content_type": "text/plain"})
	if got["task_id"] != id || got["size"] != float64(5) || got["attachment_id"] == nil {
		t.Errorf("attach = %v", got)
	}
	orch.ok("kanban_attach", obj{"task_id": id, "filename": "report.txt", "content_base64": b64("second")})
	orch.ok("kanban_attach", obj{"task_id": id, "filename": "report.txt", "content_base64": b64("")[:0] + b64("third")})
	orch.ok("kanban_attach", obj{"task_id": id, "filename": "a.tar.gz", "content_base64": b64("tar")})
	orch.ok("kanban_attach", obj{"task_id": id, "filename": "a.tar.gz", "content_base64": b64("tar2")})
	if files := filesIn(t, dir); !slices.Equal(files, []string{"a (1).tar.gz", "a.tar.gz", "report (1).txt", "report (2).txt", "report.txt"}) {
		t.Errorf("files = %v", files)
	}
	if s := readAttachment(t, filepath.Join(dir, "report (2).txt")); s != "third" {
		t.Errorf("report (2).txt = %q", s)
	}

	listed := orch.ok("kanban_attachments", obj{"task_id": id})
	atts := listed["attachments"].([]any)
	if len(atts) != 5 {
		t.Fatalf("attachments = %v", atts)
	}
	first := atts[0].(obj)
	realDir, _ := filepath.EvalSymlinks(dir)
	want := obj{"id": first["id"], "filename": "report.txt", "content_type": "text/plain", "size": float64(5),
		"uploaded_by": "agent", "stored_path": filepath.Join(realDir, "report.txt"), "created_at": first["created_at"]}
	if !jsonEqual(first, want) {
		t.Errorf("first attachment = %v\nwant %v", first, want)
	}
	if second := atts[1].(obj); second["filename"] != "report (1).txt" || second["content_type"] != nil {
		t.Errorf("second attachment = %v", second)
	}
	b := openBoard(t, filepath.Join(home, "kanban.db"))
	evs, _ := b.Events(context.Background(), id)
	if e := evs[1]; e.Kind != "attached" || !jsonEqual(e.Payload, obj{"filename": "report.txt", "size": 5, "by": "agent"}) {
		t.Errorf("attached event = %+v", e)
	}
	// The worker context names the files where they can be read.
	wctx := orch.ok("kanban_show", obj{"task_id": id})["worker_context"].(string)
	if !contains(wctx, "## Attachments\n") || !contains(wctx, "- `report.txt`, text/plain, 1 KB → `"+filepath.Join(realDir, "report.txt")+"`") {
		t.Errorf("worker context:\n%s", wctx)
	}

	for _, tt := range []struct {
		args obj
		want string
	}{
		{obj{"task_id": id, "filename": " ", "content_base64": b64("x")}, "filename is required"},
		{obj{"task_id": id, "filename": "x", "content_base64": ""}, "content_base64 is required"},
		{obj{"task_id": id, "filename": "x", "content_base64": "aGk"}, "content_base64 is not valid base64: Incorrect padding"},
		{obj{"task_id": id, "filename": "x", "content_base64": "aGk=\n"}, "content_base64 is not valid base64: Only base64 data is allowed"},
		{obj{"task_id": id, "filename": "x", "content_base64": "aG-_"}, "content_base64 is not valid base64: Only base64 data is allowed"},
		{obj{"task_id": id, "filename": "...", "content_base64": b64("x")}, "kanban_attach: invalid attachment filename"},
		{obj{"task_id": "t_nope", "filename": "x", "content_base64": b64("x")}, "kanban_attach: unknown task t_nope"},
		{obj{"filename": "x", "content_base64": b64("x")}, "task_id is required: this session has no dispatcher-assigned task to default to. Pass an explicit task_id; discover task ids with kanban_list."},
		{obj{"task_id": id, "filename": strings.Repeat("n", 5000), "content_base64": b64("x")}, "kanban_attach: filename is too long (5000 bytes; at most 4096)"},
		{obj{"task_id": id, "filename": "x", "content_base64": b64("x"), "content_type": strings.Repeat("t", 300)}, "kanban_attach: content_type is too long (300 bytes; at most 255)"},
	} {
		if msg := orch.fail("kanban_attach", tt.args); msg != tt.want {
			t.Errorf("%.80v: %s\nwant %s", tt.args, msg, tt.want)
		}
	}
	// Nothing was written for the refused calls, not even a directory.
	if _, err := os.Stat(filepath.Join(home, "kanban", "attachments", "t_nope")); !os.IsNotExist(err) {
		t.Errorf("unknown task left a directory: %v", err)
	}
	if files := filesIn(t, dir); len(files) != 5 {
		t.Errorf("files after refusals = %v", files)
	}
	if msg := orch.fail("kanban_attachments", obj{"task_id": "t_nope"}); msg != "task t_nope not found" {
		t.Errorf("attachments of an unknown task: %s", msg)
	}
}

// TestAttachSizeCap: over 25 MiB is refused before decoding (encoded) or
// before anything is written (decoded).
func TestAttachSizeCap(t *testing.T) {
	home := t.TempDir()
	orch := newHarness(t, home, nil)
	id := orch.ok("kanban_create", obj{"title": "Big", "assignee": "w"})["task_id"].(string)
	huge := strings.Repeat("A", kanban.AttachmentMaxBytes/3*4+8)
	if msg := orch.fail("kanban_attach", obj{"task_id": id, "filename": "big.bin", "content_base64": huge}); msg != "kanban_attach: attachment exceeds 25 MB limit" {
		t.Errorf("oversize: %s", msg)
	}
	b := openBoard(t, filepath.Join(home, "kanban.db"))
	dir, err := kanban.ResolveAttachments(home, "", false, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := b.StoreAttachment(ctx, dir, id, "big.bin", make([]byte, kanban.AttachmentMaxBytes+1), nil, "agent"); err == nil || err.Error() != "attachment exceeds 25 MB limit" {
		t.Errorf("StoreAttachment over the cap: %v", err)
	}
	if _, err := b.StoreAttachment(ctx, dir, id, "max.bin", make([]byte, kanban.AttachmentMaxBytes), nil, "agent"); err != nil {
		t.Errorf("StoreAttachment at the cap: %v", err)
	}
	if files := filesIn(t, filepath.Join(dir.Path(), id)); !slices.Equal(files, []string{"max.bin"}) {
		t.Errorf("files = %v", files)
	}
}

// TestAttachmentsRoot is Hermes' attachments_root: the board's directory,
// HERMES_KANBAN_ATTACHMENTS_ROOT when no board is named (and always for a
// worker), never the directory of a pinned HERMES_KANBAN_DB.
func TestAttachmentsRoot(t *testing.T) {
	home := t.TempDir()
	pin := filepath.Join(t.TempDir(), "pinned")
	writeFile(t, filepath.Join(home, "kanban", "boards", "ops", "board.json"), `{"name": "Ops"}`)
	writeFile(t, filepath.Join(home, "kanban", "boards", "dead", "board.json"), `{"archived": true}`)
	dbPin := filepath.Join(t.TempDir(), "elsewhere", "kanban.db")
	tests := []struct {
		name   string
		home   string
		board  string
		fenced bool
		env    map[string]string
		want   string
	}{
		{name: "default board", home: home, want: filepath.Join(home, "kanban", "attachments")},
		{name: "named board", home: home, board: "OPS", want: filepath.Join(home, "kanban", "boards", "ops", "attachments")},
		{name: "current board from the environment", home: home, env: map[string]string{"HERMES_KANBAN_BOARD": "ops"}, want: filepath.Join(home, "kanban", "boards", "ops", "attachments")},
		{name: "archived board falls through", home: home, env: map[string]string{"HERMES_KANBAN_BOARD": "dead"}, want: filepath.Join(home, "kanban", "attachments")},
		{name: "pinned root", home: home, env: map[string]string{"HERMES_KANBAN_ATTACHMENTS_ROOT": " " + pin + " "}, want: pin},
		{name: "a named board outranks the pin", home: home, board: "ops", env: map[string]string{"HERMES_KANBAN_ATTACHMENTS_ROOT": pin}, want: filepath.Join(home, "kanban", "boards", "ops", "attachments")},
		{name: "not for a fenced caller", home: home, board: "ops", fenced: true, env: map[string]string{"HERMES_KANBAN_ATTACHMENTS_ROOT": pin}, want: pin},
		{name: "a pinned database does not move them", home: home, env: map[string]string{"HERMES_KANBAN_DB": dbPin}, want: filepath.Join(home, "kanban", "attachments")},
		{name: "profile home shares the root", home: filepath.Join(home, "profiles", "coder"), want: filepath.Join(home, "kanban", "attachments")},
		{name: "kanban home", home: home, env: map[string]string{"HERMES_KANBAN_HOME": "/srv/kb"}, want: "/srv/kb/kanban/attachments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := kanban.ResolveAttachments(tt.home, tt.board, tt.fenced, func(k string) string { return tt.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if d.Path() != tt.want {
				t.Errorf("attachments root = %s, want %s", d.Path(), tt.want)
			}
		})
	}
	if _, err := kanban.ResolveAttachments(home, "../x", false, func(string) string { return "" }); err == nil || !contains(err.Error(), "invalid board slug '../x'") {
		t.Errorf("bad slug: %v", err)
	}

	// Through the tools: a worker's files go to the pinned root, even
	// when the dispatcher also pinned the database.
	orch := newHarness(t, home, nil)
	id := orch.ok("kanban_create", obj{"title": "t", "assignee": "w"})["task_id"].(string)
	w := newHarness(t, home, map[string]string{"HERMES_KANBAN_TASK": id, "HERMES_KANBAN_ATTACHMENTS_ROOT": pin,
		"HERMES_KANBAN_DB": filepath.Join(home, "kanban.db")})
	w.ok("kanban_attach", obj{"filename": "w.txt", "content_base64": b64("w")})
	if s := readAttachment(t, filepath.Join(pin, id, "w.txt")); s != "w" {
		t.Errorf("worker's file = %q", s)
	}
}

// TestAttachAuthority: a worker attaches to its own task only; it lists
// the files of the tasks kanban_show lets it read.
func TestAttachAuthority(t *testing.T) {
	f := newAuthFixture(t)
	f.worker.ok("kanban_attach", obj{"filename": "own.txt", "content_base64": b64("mine")})
	f.orch.ok("kanban_attach", obj{"task_id": f.foreign, "filename": "theirs.txt", "content_base64": b64("theirs")})
	for _, args := range []obj{
		{"task_id": f.foreign, "filename": "x.txt", "content_base64": b64("x")},
		{"task_id": f.created, "filename": "x.txt", "content_base64": b64("x")},
	} {
		if msg := f.worker.fail("kanban_attach", args); !contains(msg, "worker is scoped to task "+f.own+"; refusing to mutate "+args["task_id"].(string)+" (task_id)") {
			t.Errorf("attach to %s: %s", args["task_id"], msg)
		}
	}
	if msg := f.worker.fail("kanban_attach_url", obj{"task_id": f.foreign, "url": "http://127.0.0.1:1/x"}); !contains(msg, "refusing to mutate "+f.foreign) {
		t.Errorf("attach_url to a foreign task: %s", msg)
	}
	if got := f.worker.ok("kanban_attachments", obj{}); len(got["attachments"].([]any)) != 1 {
		t.Errorf("own attachments = %v", got)
	}
	f.worker.ok("kanban_attachments", obj{"task_id": f.created})
	if msg := f.worker.fail("kanban_attachments", obj{"task_id": f.foreign}); !contains(msg, "refusing to read "+f.foreign+" (task_id)") {
		t.Errorf("attachments of a foreign task: %s", msg)
	}
	foreignDir := filepath.Join(f.home, "kanban", "attachments", f.foreign)
	if files := filesIn(t, foreignDir); !slices.Equal(files, []string{"theirs.txt"}) {
		t.Errorf("foreign task's files = %v", files)
	}
	// A delegate of the worker may list but not attach.
	d := newHarness(t, f.home, map[string]string{"HERMES_KANBAN_TASK": f.own, "HERMES_DELEGATED_CHILD_CONTEXT": "1"})
	if msg := d.fail("kanban_attach", obj{"task_id": f.own, "filename": "d.txt", "content_base64": b64("d")}); !strings.HasPrefix(msg, "kanban_attach refused: delegate_task child agents are not Kanban run owners.") {
		t.Errorf("delegate attach: %s", msg)
	}
	d.ok("kanban_attachments", obj{"task_id": f.own})
}

// TestAttachConfinement: links planted where the tool writes are refused
// or stepped around, never followed; nothing outside is touched, nothing
// half-written stays.
func TestAttachConfinement(t *testing.T) {
	setup := func(t *testing.T) (string, *harness, string, string) {
		home := t.TempDir()
		orch := newHarness(t, home, nil)
		id := orch.ok("kanban_create", obj{"title": "t", "assignee": "w"})["task_id"].(string)
		outside := t.TempDir()
		return home, orch, id, outside
	}
	attach := func(h *harness, id, name, content string) (map[string]any, bool) {
		return h.call("kanban_attach", obj{"task_id": id, "filename": name, "content_base64": b64(content)})
	}

	t.Run("link at the task directory", func(t *testing.T) {
		home, orch, id, outside := setup(t)
		os.MkdirAll(filepath.Join(home, "kanban", "attachments"), 0o755)
		symlink(t, outside, filepath.Join(home, "kanban", "attachments", id))
		m, isErr := attach(orch, id, "x.txt", "x")
		if !isErr || !contains(m["error"].(string), "is a symbolic link, not a directory; refusing to store attachments through it") {
			t.Errorf("result = %v", m)
		}
		if files := filesIn(t, outside); len(files) != 0 {
			t.Errorf("written through the link: %v", files)
		}
	})
	t.Run("link at the task directory to another task's", func(t *testing.T) {
		home, orch, id, _ := setup(t)
		other := orch.ok("kanban_create", obj{"title": "other", "assignee": "w"})["task_id"].(string)
		orch.ok("kanban_attach", obj{"task_id": other, "filename": "o.txt", "content_base64": b64("o")})
		symlink(t, other, filepath.Join(home, "kanban", "attachments", id))
		if m, isErr := attach(orch, id, "x.txt", "x"); !isErr || !contains(m["error"].(string), "is a symbolic link") {
			t.Errorf("result = %v", m)
		}
		if files := filesIn(t, filepath.Join(home, "kanban", "attachments", other)); !slices.Equal(files, []string{"o.txt"}) {
			t.Errorf("written into the other task's directory: %v", files)
		}
	})
	t.Run("link at the attachments directory", func(t *testing.T) {
		home, orch, id, outside := setup(t)
		os.MkdirAll(filepath.Join(home, "kanban"), 0o755)
		symlink(t, outside, filepath.Join(home, "kanban", "attachments"))
		if m, isErr := attach(orch, id, "x.txt", "x"); !isErr || !contains(m["error"].(string), "is a symbolic link") {
			t.Errorf("result = %v", m)
		}
		if files := filesIn(t, outside); len(files) != 0 {
			t.Errorf("written through the link: %v", files)
		}
	})
	t.Run("file at the task directory", func(t *testing.T) {
		home, orch, id, _ := setup(t)
		writeFile(t, filepath.Join(home, "kanban", "attachments", id), "not a dir")
		if m, isErr := attach(orch, id, "x.txt", "x"); !isErr || !contains(m["error"].(string), "is a file, not a directory") {
			t.Errorf("result = %v", m)
		}
	})
	t.Run("links and a FIFO at the destination name", func(t *testing.T) {
		home, orch, id, outside := setup(t)
		dir := filepath.Join(home, "kanban", "attachments", id)
		os.MkdirAll(dir, 0o755)
		victim := filepath.Join(outside, "victim.txt")
		writeFile(t, victim, "precious")
		symlink(t, victim, filepath.Join(dir, "report.txt"))                                // to an existing file
		symlink(t, filepath.Join(outside, "new.txt"), filepath.Join(dir, "report (1).txt")) // dangling
		mkfifo(t, filepath.Join(dir, "report (2).txt"))
		got, isErr := attach(orch, id, "report.txt", "payload")
		if isErr {
			t.Fatalf("attach: %v", got)
		}
		if s := readAttachment(t, victim); s != "precious" {
			t.Errorf("the linked file was overwritten: %q", s)
		}
		if _, err := os.Lstat(filepath.Join(outside, "new.txt")); !os.IsNotExist(err) {
			t.Errorf("a file was created through the dangling link: %v", err)
		}
		if s := readAttachment(t, filepath.Join(dir, "report (3).txt")); s != "payload" {
			t.Errorf("report (3).txt = %q", s)
		}
	})
	t.Run("names cannot leave the task directory", func(t *testing.T) {
		home, orch, id, _ := setup(t)
		for _, name := range []string{"../../../../escape.txt", `..\..\escape2.txt`, "/etc/escape3.txt", " . ..", " . ."} {
			if m, isErr := attach(orch, id, name, "x"); isErr {
				t.Errorf("%s: %v", name, m)
			}
		}
		// Hermes' names for the last two, which its rule turns into ".."
		// and ".": " (1).." and " (1).".
		if files := filesIn(t, filepath.Join(home, "kanban", "attachments", id)); !slices.Equal(files, []string{" (1).", " (1)..", "escape.txt", "escape2.txt", "escape3.txt"}) {
			t.Errorf("files = %v", files)
		}
		if files := filesIn(t, filepath.Join(home, "kanban", "attachments")); !slices.Equal(files, []string{id}) {
			t.Errorf("attachments dir = %v", files)
		}
	})
	t.Run("a failed record leaves no file", func(t *testing.T) {
		home, orch, id, _ := setup(t)
		attach(orch, id, "ok.txt", "ok")
		exec1(t, rawDB(t, filepath.Join(home, "kanban.db")), "DROP TABLE task_attachments")
		if _, _, err := orch.callErr("kanban_attach", obj{"task_id": id, "filename": "lost.txt", "content_base64": b64("x")}); err == nil {
			t.Error("attach succeeded without a task_attachments table")
		}
		if files := filesIn(t, filepath.Join(home, "kanban", "attachments", id)); !slices.Equal(files, []string{"ok.txt"}) {
			t.Errorf("files after the failure = %v", files)
		}
	})
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// FuzzSafeAttachmentName: whatever the name, what is kept is one path
// component without a control character. (It can be "." or "..", as in
// Hermes: the storage steps around them.)
func FuzzSafeAttachmentName(f *testing.F) {
	for _, s := range []string{"report.pdf", "../../etc/passwd", `..\x`, ".bashrc", "a\x00b", " . x ", "日本.txt"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, err := kanban.SafeAttachmentName(s)
		if err != nil {
			return
		}
		if name == "" || strings.ContainsAny(name, `/\`) || len([]rune(name)) > 200 {
			t.Fatalf("%q -> %q", s, name)
		}
		for _, r := range name {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("%q -> %q keeps a control character", s, name)
			}
		}
	})
}
