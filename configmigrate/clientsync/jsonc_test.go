package clientsync

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/configmigrate"
)

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name string
		src  string
		// want is the same document as plain JSON; empty means the file
		// holds no value.
		want string
	}{
		{"empty", "", ""},
		{"blank", " \n\t\r\n", ""},
		{"only comments", "// a\n/* b */\n", ""},
		{"bom only", "\uFEFF", ""},
		{"bom", "\uFEFF{\"a\": 1}", `{"a":1}`},
		{"line comment in string", `{"u": "http://x//y"}`, `{"u":"http://x//y"}`},
		{"block comment in string", `{"u": "/* not a comment */"}`, `{"u":"/* not a comment */"}`},
		{"escaped quote", `{"q": "say \"hi\" // still string"}`, `{"q":"say \"hi\" // still string"}`},
		{"escaped backslash before quote", `{"p": "C:\\dir\\", "n": 1}`, `{"p":"C:\\dir\\","n":1}`},
		{"unicode escape", `{"\u0068i": "\u00e9\ud83d\ude00"}`, `{"hi":"é😀"}`},
		{"nested", `{"a": {"b": [1, {"c": [true, false, null]}]}}`, `{"a":{"b":[1,{"c":[true,false,null]}]}}`},
		{"numbers", `[0, -0, 1.5, -2e10, 3E+2, 4e-1]`, `[0,-0,1.5,-2e10,3E+2,4e-1]`},
		{"comments everywhere", "/*a*/{/*b*/\"k\"/*c*/:/*d*/1/*e*/,//f\n\"l\"://g\n[/*h*/2/*i*/]/*j*/}/*k*/", `{"k":1,"l":[2]}`},
		{"trailing commas", `{"a": [1, 2,], "b": {"c": 3,},}`, `{"a":[1,2],"b":{"c":3}}`},
		{"crlf", "{\r\n  \"a\": 1, // x\r\n  \"b\": 2\r\n}\r\n", `{"a":1,"b":2}`},
		{"comment at eof without newline", `{"a": 1} // end`, `{"a":1}`},
		{"slash in key", `{"a//b": "/*"}`, `{"a//b":"/*"}`},
		{"duplicate keys", `{"a": 1, "a": 2}`, `{"a":2}`},
		{"top-level scalar", `"x"`, `"x"`},
		{"utf-8 text", `{"名前": "値"}`, `{"名前":"値"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := parse([]byte(tt.src))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if tt.want == "" {
				if doc.root != nil {
					t.Fatalf("root = %+v, want none", doc.root)
				}
				return
			}
			std, err := Standardize([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			if err := json.Unmarshal(std, &got); err != nil {
				t.Fatalf("encoding/json rejects the standardized text %q: %v", std, err)
			}
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

func TestParseMembers(t *testing.T) {
	src := "{\n  \"a\\\"b\": {\"x\": 1, \"y\": [2]}, // c\n  \"c\": \"v\"\n}"
	doc, err := parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	root := doc.root
	if len(root.members) != 2 {
		t.Fatalf("root has %d members, want 2", len(root.members))
	}
	a := root.members[0]
	if a.key != `a"b` || src[a.keyStart] != '"' || a.comma < 0 || src[a.comma] != ',' {
		t.Errorf("member a = %+v", a)
	}
	if got := src[a.value.start:a.value.end]; got != `{"x": 1, "y": [2]}` {
		t.Errorf("value range of a = %q", got)
	}
	if len(a.value.members) != 2 || a.value.members[1].key != "y" {
		t.Errorf("members of a = %+v", a.value.members)
	}
	if c := root.members[1]; c.key != "c" || c.comma != -1 || src[c.value.start:c.value.end] != `"v"` {
		t.Errorf("member c = %+v", c)
	}
	// Deeper objects are not indexed: nothing reads them.
	if deep := a.value.members[0].value; deep.members != nil {
		t.Errorf("depth-2 object has members recorded")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		msg       string
	}{
		{"missing comma", "{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3, `expected ',' or '}'`},
		{"unclosed object", "{\n  \"a\": {\n    \"b\": 1\n  }\n", 1, 1, "object opened here is never closed"},
		{"unclosed array", `{"a": [1, 2}`, 1, 12, "expected ',' or ']'"},
		{"unclosed string", "{\"a\": \"abc\n}", 1, 7, "string is never closed on its line"},
		{"unterminated block comment", "{\"a\": 1 /* oops\n}", 1, 9, "block comment is never closed"},
		{"single slash", `{"a": 1 / 2}`, 1, 9, "unexpected '/'"},
		{"single quotes", `{'a': 1}`, 1, 2, "member name in double quotes"},
		{"unquoted key", `{a: 1}`, 1, 2, "member name in double quotes"},
		{"bare word", `{"a": yes}`, 1, 7, `unexpected "yes"`},
		{"nan", `{"a": NaN}`, 1, 7, "expected a value"},
		{"leading zero", `{"a": 01}`, 1, 7, "invalid number"},
		{"bad fraction", `{"a": 1.}`, 1, 7, "expected a digit after '.'"},
		{"bad exponent", `{"a": 1e}`, 1, 7, "exponent"},
		{"bad escape", `{"a": "\x"}`, 1, 8, `invalid escape \x`},
		{"bad unicode escape", `{"a": "\u12G4"}`, 1, 8, `invalid \u escape`},
		{"control character", "{\"a\": \"x\ty\"}", 1, 9, "control character 0x09"},
		{"lone comma", `{,}`, 1, 2, "member name in double quotes"},
		{"double comma", `[1,,2]`, 1, 4, "expected a value"},
		{"missing colon", `{"a" 1}`, 1, 6, "expected ':'"},
		{"missing value", `{"a": }`, 1, 7, "expected a value"},
		{"two roots", "{}\n{}", 2, 1, "after the end of the top-level value"},
		{"truncated", `{"a": `, 1, 7, "unexpected end of file"},
		{"column counts characters", `{"é": x}`, 1, 7, `unexpected "x"`},
		{"bom is not a column", "\uFEFF{x}", 1, 2, "member name in double quotes"},
		{"crlf lines", "{\r\n\"a\": 1\r\n\"b\": 2}", 3, 1, `expected ',' or '}'`},
		{"too deep", strings.Repeat("[", maxDepth+2), 1, maxDepth + 2, "nested more than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse([]byte(tt.src))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *SyntaxError", err)
			}
			if se.Line != tt.line || se.Column != tt.col || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("got %q, want line %d, column %d containing %q", se, tt.line, tt.col, tt.msg)
			}
		})
	}
}

// TestApplyInvalidInput checks that a broken file produces a located
// error and no output at all.
func TestApplyInvalidInput(t *testing.T) {
	tests := []struct {
		client Client
		src    string
		want   string
	}{
		{Cursor, "{\n  \"mcpServers\": {\n    \"a\": {}\n    \"b\": {}\n  }\n}", "existing Cursor config is not valid JSON at line 4, column 5"},
		{VSCode, "{\n  // c\n  \"servers\": {,}\n}", "existing VS Code config is not valid JSON with comments at line 3, column 15"},
		{ClaudeCode, `[]`, "holds an array at line 1, column 1 where an object"},
		{Gemini, `{"mcpServers": null}`, `"mcpServers" at line 1, column 16 is null, not an object`},
		{VSCode, `{"servers": [], "x": 1}`, `"servers" at line 1, column 13 is an array`},
		{ClaudeDesktop, "{\"mcpServers\": {},\n\"mcpServers\": {}}", `"mcpServers" appears twice in the top level (lines 1 and 2)`},
		{Cursor, "{\"mcpServers\": {\n\"hermes-tools\": {},\n\"hermes-tools\": {}}}", `server "hermes-tools" appears twice in "mcpServers" (lines 2 and 3)`},
	}
	for _, tt := range tests {
		t.Run(string(tt.client), func(t *testing.T) {
			res, err := Apply(tt.client, []byte(tt.src), []configServer{toolsServer}, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if res.Output != nil || res.Changed {
				t.Errorf("output produced despite the error: %+v", res)
			}
			if _, err := Remove(tt.client, []byte(tt.src), []string{configmigrate.HermesToolsName}); err == nil {
				t.Errorf("Remove accepted the broken file")
			}
		})
	}
}
