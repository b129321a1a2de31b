package golden

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

func TestJSON(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"map keys sorted", map[string]any{"b": 1, "a": []int{1, 2}, "c": map[string]bool{}},
			"{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": 1,\n  \"c\": {}\n}\n"},
		{"struct order kept", struct {
			Z string `json:"z"`
			A string `json:"a"`
		}{"<b>&</b>", "x"},
			"{\n  \"z\": \"<b>&</b>\",\n  \"a\": \"x\"\n}\n"},
		{"scalar", "é\u2028", "\"é\\u2028\"\n"},
		{"marshaler escapes undone", escaping(`<a href="x?a=1&b=2">`),
			"\"<a href=\\\"x?a=1&b=2\\\">\"\n"},
		{"escaped backslash before u003c kept", `\u003c \\u0026 \`, "\"\\\\u003c \\\\\\\\u0026 \\\\\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 20 {
				got, err := JSON(tt.in)
				if err != nil || string(got) != tt.want {
					t.Fatalf("JSON = %q, %v; want %q", got, err, tt.want)
				}
			}
		})
	}
	if _, err := JSON(func() {}); err == nil {
		t.Error("JSON of a func: no error")
	}
}

// escaping marshals itself through json.Marshal, which escapes HTML.
type escaping string

func (e escaping) MarshalJSON() ([]byte, error) { return json.Marshal(string(e)) }

func TestCanonical(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{"empty", "", "", false},
		{"blank", " \n\n", "", false},
		{"keys sorted, numbers as written", `{"b":1.0,"a":12345678901234567890}`,
			"{\n  \"a\": 12345678901234567890,\n  \"b\": 1.0\n}\n", false},
		{"whitespace does not matter", "{ \"b\" : [ ], \n \"a\":null}", "{\n  \"a\": null,\n  \"b\": []\n}\n", false},
		{"stream", "{\"x\":\"<\"}\n\"s\"\n", "{\n  \"x\": \"<\"\n}\n\n\"s\"\n", false},
		{"pretty input round-trips", "{\n  \"x\": \"<\"\n}\n\n\"s\"\n", "{\n  \"x\": \"<\"\n}\n\n\"s\"\n", false},
		{"invalid", `{"a":`, "", true},
		{"garbage after a value", `{} nope`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Canonical([]byte(tt.in))
			if (err != nil) != tt.wantErr || string(got) != tt.want {
				t.Fatalf("Canonical(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestCheckFile(t *testing.T) {
	tests := []struct {
		name     string
		existing *string // nil: no file
		got      string
		update   bool
		wantErr  []string // substrings of the error; nil: no error
	}{
		{"equal", ptr("a\nb\n"), "a\nb\n", false, nil},
		{"one line differs", ptr("a\nb\nc\n"), "a\nB\nc\n", false, []string{"run `make docs`", "-b\n+B\n"}},
		{"missing final newline", ptr("a\n"), "a", false, []string{"differs", "No newline"}},
		{"no file", nil, "a\n", false, []string{"does not exist", "make docs"}},
		{"update rewrites", ptr("old\n"), "new\n", true, nil},
		{"update creates", nil, "new\n", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sub", "golden.txt")
			if tt.existing != nil {
				writeFile(t, path, *tt.existing)
			}
			err := checkFile(path, []byte(tt.got), tt.update)
			checkErr(t, err, tt.wantErr)
			if tt.update {
				if b, _ := os.ReadFile(path); string(b) != tt.got {
					t.Errorf("after -update the file holds %q, want %q", b, tt.got)
				}
				if err := checkFile(path, []byte(tt.got), false); err != nil {
					t.Errorf("compare after -update: %v", err)
				}
			}
		})
	}
}

func TestCheckArchive(t *testing.T) {
	const file = "comment\n-- in --\ninput\n-- out --\n{\n  \"n\": 1\n}\n-- err --\nboom\n"
	owned := []string{"out", "err"}
	tests := []struct {
		name    string
		got     map[string][]byte
		update  bool
		wantErr []string
		want    string // the file after the call
	}{
		{"equal", map[string][]byte{"out": []byte("{\n  \"n\": 1\n}\n"), "err": []byte("boom\n")}, false, nil, file},
		{"field differs", map[string][]byte{"out": []byte("{\n  \"n\": 2\n}\n"), "err": []byte("boom\n")}, false,
			[]string{"(-- out --) differs", "-  \"n\": 1\n+  \"n\": 2\n", "make docs"}, file},
		{"section gone", map[string][]byte{"out": []byte("{\n  \"n\": 1\n}\n")}, false,
			[]string{"-- err -- section the test no longer produces"}, file},
		{"section new", map[string][]byte{"out": []byte("{\n  \"n\": 1\n}\n"), "err": []byte("boom\n"), "extra": nil}, false,
			[]string{"not among the owned"}, file},
		{"update replaces and drops", map[string][]byte{"out": []byte("{}\n")}, true, nil,
			"comment\n-- in --\ninput\n-- out --\n{}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "case.txtar")
			writeFile(t, path, file)
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checkErr(t, checkArchive(path, ar, owned, tt.got, tt.update), tt.wantErr)
			if b, _ := os.ReadFile(path); string(b) != tt.want {
				t.Errorf("file is now\n%s\nwant\n%s", b, tt.want)
			}
		})
	}

	// A section the archive lacks is appended, and then compares equal.
	path := filepath.Join(t.TempDir(), "case.txtar")
	writeFile(t, path, "-- in --\nx\n")
	ar, _ := txtar.ParseFile(path)
	got := map[string][]byte{"out": []byte("1\n"), "err": []byte("e\n")}
	checkErr(t, checkArchive(path, ar, owned, got, false), []string{"no -- out -- section", "no -- err -- section"})
	checkErr(t, checkArchive(path, ar, owned, got, true), nil)
	if b, _ := os.ReadFile(path); string(b) != "-- in --\nx\n-- out --\n1\n-- err --\ne\n" {
		t.Errorf("appended in owned order? file is\n%s", b)
	}
	ar, _ = txtar.ParseFile(path)
	checkErr(t, checkArchive(path, ar, owned, got, false), nil)
}

func checkErr(t *testing.T, err error, want []string) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Errorf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error; want one containing %q", want)
	}
	for _, s := range want {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error lacks %q:\n%v", s, err)
		}
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ptr(s string) *string { return &s }
