package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("this is not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	// A real header followed by garbage: SQLite recognises the file and
	// then finds its pages damaged.
	damaged := filepath.Join(dir, "damaged.db")
	makeDB(t, damaged)
	raw, err := os.ReadFile(damaged)
	if err != nil {
		t.Fatal(err)
	}
	for i := 100; i < len(raw); i++ {
		raw[i] = 0xA5
	}
	if err := os.WriteFile(damaged, raw, 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		path     string
		opts     Options
		kind     Kind
		notExist bool
		contains string
	}{
		{name: "missing read-only", path: filepath.Join(dir, "none.db"), opts: Options{ReadOnly: true}, notExist: true},
		{name: "missing without create", path: filepath.Join(dir, "none.db"), notExist: true},
		{name: "directory", path: dir, contains: "is a directory"},
		{name: "not a database", path: notDB, kind: Corrupt, contains: "not a SQLite database"},
		{name: "not a database read-only", path: notDB, opts: Options{ReadOnly: true}, kind: Corrupt},
		{name: "damaged", path: damaged, opts: Options{ReadOnly: true}, kind: Corrupt, contains: "damaged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(ctx, tt.path, tt.opts)
			if err == nil {
				// Some damage only shows on a real read.
				_, err = db.ExecContext(ctx, "SELECT * FROM t")
				err = db.Explain("read t", err)
				db.Close()
			}
			if err == nil {
				t.Fatal("opened without error")
			}
			if tt.notExist && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("err = %v, want fs.ErrNotExist", err)
			}
			if tt.kind != 0 && !IsKind(err, tt.kind) {
				t.Errorf("err = %v, want kind %v", err, tt.kind)
			}
			if !strings.Contains(err.Error(), tt.contains) || (tt.path != dir && !strings.Contains(err.Error(), tt.path)) {
				t.Errorf("err = %q, want it to name the file and contain %q", err, tt.contains)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed open created the file: %v", err)
	}
}

func TestCreateWALAndReadOnlyLeavesNoFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "x.db")
	db, err := Open(ctx, p, Options{Create: true, WAL: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "CREATE TABLE t (a INTEGER NOT NULL, b TEXT DEFAULT 'x')"); err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q, %v", mode, err)
	}
	cols, err := Columns(ctx, db, "t")
	if err != nil {
		t.Fatal(err)
	}
	if !cols["a"].NotNull || cols["a"].HasDefault || !cols["b"].HasDefault {
		t.Errorf("columns = %+v", cols)
	}
	tables, err := Tables(ctx, db)
	if err != nil || !tables["t"] {
		t.Errorf("tables = %v, %v", tables, err)
	}
	db.Close()

	// A rollback-journal database opened read-only gains no side files.
	plain := filepath.Join(dir, "plain.db")
	makeDB(t, plain)
	before, _ := os.ReadDir(dir)
	ro, err := Open(ctx, plain, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.ExecContext(ctx, "INSERT INTO t VALUES (1)"); err == nil {
		t.Error("read-only handle accepted a write")
	}
	ro.Close()
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Errorf("read-only open changed the directory: %v -> %v", names(before), names(after))
	}
}

func TestLockedIsClassified(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "x.db")
	holder, err := Open(ctx, p, Options{Create: true, WAL: true})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, "CREATE TABLE t (a)"); err != nil {
		t.Fatal(err)
	}
	tx, err := holder.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}

	other, err := Open(ctx, p, Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	start := time.Now()
	err = other.Tx(ctx, "insert a row", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO t VALUES (2)")
		return err
	})
	if !IsKind(err, Locked) || !strings.Contains(err.Error(), "locked") || !strings.Contains(err.Error(), p) {
		t.Fatalf("err = %v, want a locked error naming %s", err, p)
	}
	if waited := time.Since(start); waited < 90*time.Millisecond {
		t.Errorf("gave up after %v, before the busy timeout", waited)
	}
	// Readers are not blocked by the writer under WAL.
	var n int
	if err := other.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 0 {
		t.Errorf("read during a write: n=%d err=%v", n, err)
	}
}

func TestSchemaErrorMessage(t *testing.T) {
	err := SchemaError("/x/kanban.db", "tasks lacks column current_run_id", "open it once with Hermes")
	if !IsKind(err, Schema) {
		t.Fatal("not a schema error")
	}
	for _, want := range []string{"/x/kanban.db", "current_run_id", "open it once with Hermes"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}

func makeDB(t *testing.T, p string) {
	t.Helper()
	db, err := Open(context.Background(), p, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := 0; i < 3; i++ {
		if _, err := db.Exec("CREATE TABLE IF NOT EXISTS t (a); INSERT INTO t VALUES (randomblob(3000))"); err != nil {
			t.Fatal(err)
		}
	}
}

func names(es []os.DirEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}
