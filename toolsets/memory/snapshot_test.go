package memory

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestSnapshot(t *testing.T) {
	rule := strings.Repeat("═", 46)
	tests := []struct {
		name    string
		config  string
		memory  string // MEMORY.md; "FIFO" makes it a named pipe
		user    string
		want    []string // substrings, in order
		absent  []string
		wantErr string
	}{
		{
			name:   "both stores, Hermes' framing",
			memory: "Project uses tabs.\n§\nCI runs make test.\n",
			user:   "Prefers short answers.\n",
			want: []string{rule + "\nMEMORY (your personal notes) [", "/2,200 chars]\n" + rule + "\nProject uses tabs.\n§\nCI runs make test.",
				"\n\n" + rule + "\nUSER PROFILE (who the user is) [", "Prefers short answers."},
		},
		{name: "empty and missing stores give nothing", memory: "\n§\n", want: nil, absent: []string{"MEMORY", "USER"}},
		{
			name:   "a store switched off is left out",
			config: "memory:\n  user_profile_enabled: false\n",
			memory: "a note\n", user: "a secret preference\n",
			want: []string{"a note"}, absent: []string{"USER PROFILE", "a secret preference"},
		},
		{
			name:   "entries past the limit are counted, not shown",
			config: "memory:\n  memory_char_limit: 20\n",
			memory: "first entry\n§\nsecond entry, which does not fit\n",
			want:   []string{"first entry", "[1 more entry not shown: the store is over its 20-character limit]"},
			absent: []string{"second entry"},
		},
		{
			name:   "a link out of the memories directory is refused; the other store still shows",
			memory: "LINK", user: "Prefers short answers.\n",
			want: []string{"USER PROFILE", "Prefers short answers."}, absent: []string{"OUTSIDE-SECRET"}, wantErr: "outside",
		},
		{
			name:   "a FIFO is refused without blocking; the other store still shows",
			memory: "FIFO", user: "Prefers short answers.\n",
			want: []string{"USER PROFILE", "Prefers short answers."}, wantErr: "not a regular file",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, "memories")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(tt.config), 0o600); err != nil {
				t.Fatal(err)
			}
			for file, body := range map[string]string{"MEMORY.md": tt.memory, "USER.md": tt.user} {
				switch body {
				case "":
				case "LINK":
					outside := filepath.Join(t.TempDir(), "notes.md")
					if err := os.WriteFile(outside, []byte("OUTSIDE-SECRET\n"), 0o600); err != nil {
						t.Fatal(err)
					}
					if err := os.Symlink(outside, filepath.Join(dir, file)); err != nil {
						t.Fatal(err)
					}
				case "FIFO":
					if err := syscall.Mkfifo(filepath.Join(dir, file), 0o600); err != nil {
						t.Fatal(err)
					}
				default:
					if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			got, err := Snapshot(home, "")
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("snapshot lacks %q (in order):\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			if len(tt.want) == 0 && got != "" {
				t.Errorf("snapshot = %q, want none", got)
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("snapshot carries %q:\n%s", a, got)
				}
			}
		})
	}
}
