package skills

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Tree is Files plus nested skills' files and every directory, empty ones
// included; hidden and excluded entries and links out stay out.
func TestTree(t *testing.T) {
	f := newFixture(t)
	lib := NewLibrary(f.options())
	ctx := context.Background()
	bare := filepath.Join(f.home, "skills", "bare")
	writeFile(t, filepath.Join(bare, "inner", "SKILL.md"), "# Inner\n\nnested\n")
	writeFile(t, filepath.Join(bare, "inner", "refs", "x.md"), "x\n")
	writeFile(t, filepath.Join(bare, ".hidden", "h.md"), "h\n")
	writeFile(t, filepath.Join(bare, "node_modules", "m.js"), "m\n")
	writeFile(t, filepath.Join(bare, ".env"), "S=1\n")
	if err := os.MkdirAll(filepath.Join(bare, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(f.home), "outside.md")
	writeFile(t, outside, "outside\n")
	if err := os.Symlink(outside, filepath.Join(bare, "out.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(bare, "inner", "refs", "x.md"), filepath.Join(bare, "in.md")); err != nil {
		t.Fatal(err)
	}

	s, err := lib.Lookup(ctx, "bare")
	if err != nil {
		t.Fatal(err)
	}
	files, dirs, err := lib.Tree(s)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, fl := range files {
		got[fl.Path] = fl.Size
	}
	want := map[string]int64{"SKILL.md": sizeOf(t, filepath.Join(bare, "SKILL.md")), "in.md": 2, "inner/SKILL.md": int64(len("# Inner\n\nnested\n")), "inner/refs/x.md": 2}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Tree files = %v, want %v", got, want)
	}
	if wantDirs := []string{"empty", "inner", "inner/refs"}; !reflect.DeepEqual(dirs, wantDirs) {
		t.Errorf("Tree dirs = %v, want %v", dirs, wantDirs)
	}
	// Files still leaves the nested skill out.
	plain, err := lib.Files(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != 2 {
		t.Errorf("Files = %v, want SKILL.md and in.md", plain)
	}
}

func sizeOf(t *testing.T, p string) int64 {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestParseFrontmatter(t *testing.T) {
	tests := []struct {
		name, content string
		want          string // the fields as JSON; "" for an error
	}{
		{"fields as written", "---\nname: a\ndescription: b\nlicense: MIT\nmetadata:\n  version: \"1.0\"\n  n: 3\n---\nbody\n",
			`{"description":"b","license":"MIT","metadata":{"n":3,"version":"1.0"},"name":"a"}`},
		{"CRLF", "---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n", `{"description":"b","name":"a"}`},
		{"spaces after the fences", "--- \nname: a\n---  \nbody", `{"name":"a"}`},
		{"empty block", "---\n---\nbody\n", `{}`},
		{"comments only", "---\n# nothing\n---\n", `{}`},
		// YAML 1.2 core schema, as hosts parse: YAML 1.1 forms are strings.
		{"dates stay strings", "---\ncreated: 2024-01-02\n2024-01-03: key\n---\n", `{"2024-01-03":"key","created":"2024-01-02"}`},
		{"1.1 numbers stay strings", "---\nb: 0b101\nu: 1_000\no: 0o17\nx: 0x1F\nf: 1.5e3\ni: -7\n---\n",
			`{"b":"0b101","f":1500,"i":-7,"o":15,"u":"1_000","x":31}`},
		{"leading zeros are decimal", "---\na: 0777\nb: -007\nc: 0\nd: 00\n---\n", `{"a":777,"b":-7,"c":0,"d":0}`},
		{"1.1 booleans stay strings", "---\na: yes\nb: on\nc: True\nd: ~\ne:\n---\n", `{"a":"yes","b":"on","c":true,"d":null,"e":null}`},
		{"explicit tags and quotes are kept", "---\na: !!str 3\nb: \"true\"\nc: !!int \"4\"\n---\n", `{"a":"3","b":"true","c":4}`},
		{"block scalar ending the block keeps its line break", "---\na: >\n  folded\n  text\nb: |\n  literal\n---\n", `{"a":"folded text\n","b":"literal\n"}`},
		{"merge keys are plain keys", "---\nbase: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n---\n", `{"base":{"x":1},"m":{"\u003c\u003c":{"x":1},"y":2}}`},
		{"anchors and aliases", "---\nbase: &b {x: 2024-01-02}\ncopy: *b\n---\n", `{"base":{"x":"2024-01-02"},"copy":{"x":"2024-01-02"}}`},
		{"byte-order mark", "\ufeff---\nname: a\n---\n", ""},
		{"no frontmatter", "# Title\n", ""},
		{"text after the opening fence", "---name: a\n---\n", ""},
		{"unclosed", "---\nname: a\n", ""},
		{"closing fence at end of file", "---\nname: a\n---", ""},
		{"invalid YAML", "---\nname: \"a\n---\n", ""},
		{"not a mapping", "---\n- a\n- b\n---\n", ""},
		{"invalid UTF-8", "---\nname: a\xff\n---\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields, err := ParseFrontmatter([]byte(tt.content))
			if tt.want == "" {
				if err == nil {
					t.Fatalf("fields %v, want an error", fields)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(fields)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("fields = %s, want %s", got, tt.want)
			}
		})
	}
}
