package pystr_test

import (
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/pystr"
)

func TestParsePyList(t *testing.T) {
	tests := []struct {
		in   string
		want []string // nil: not a literal
	}{
		{`['kanban']`, []string{"kanban"}},
		{` [ "web" , 'kanban', ] `, []string{"web", "kanban"}},
		{`[]`, []string{}},
		{`['it\'s', "a\"b", 'tab\there', '\x6banban', '\u006banban']`, []string{"it's", `a"b`, "tab\there", "kanban", "kanban"}},
		{`[r'\d', u'x']`, []string{`\d`, "x"}},
		{`[True, None, 3, -2, 1.5, 0x10]`, []string{"True", "None", "3", "-2", "1.5", "16"}},
		{`[['kanban'], 'web']`, []string{"\x00nested", "web"}},
		{`[kanban]`, nil},
		{`['kanban'`, nil},
		{`['kanban'] x`, nil},
		{`'kanban'`, nil},
		{`['a' 'b']`, nil},
	}
	for _, tt := range tests {
		got, err := pystr.ParseList(tt.in)
		if tt.want == nil {
			if err == nil {
				t.Errorf("%s: parsed as %q, want a refusal", tt.in, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("%s = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestParsePyListMatchesPython: on random list-ish text, whenever the
// reader accepts a literal, ast.literal_eval accepts it too and the str()
// of every flat element agrees. Skipped without python3.
func TestParsePyListMatchesPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	pieces := []string{"[", "]", ",", " ", "'kanban'", `"web"`, "'a\\'b'", "True", "None", "12", "kanban", "'", `"`, "\\", "(", ")", "r'\\n'", "'\\x41'"}
	rng := rand.New(rand.NewPCG(3, 4))
	var inputs []string
	for range 4000 {
		var b strings.Builder
		b.WriteString("[")
		for range rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if rng.IntN(4) > 0 {
			b.WriteString("]")
		}
		inputs = append(inputs, b.String())
	}
	in, _ := json.Marshal(inputs)
	const script = `
import ast, json, sys
out = []
for s in json.load(sys.stdin):
    try:
        v = ast.literal_eval(s)
    except Exception:
        v = None
    out.append([str(x) if not isinstance(x, (list, tuple)) else None for x in v] if isinstance(v, list) else False)
json.dump(out, sys.stdout)
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(string(in))
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var want []any
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for i, s := range inputs {
		got, err := pystr.ParseList(s)
		if err != nil {
			// What matters to the gate: a list Python reads as naming
			// kanban is read so here too.
			if list, ok := want[i].([]any); ok && slices.Contains(list, any("kanban")) {
				t.Errorf("%s: refused, Python reads %v", s, list)
			}
			continue
		}
		accepted++
		list, ok := want[i].([]any)
		if !ok {
			t.Errorf("%s: read as %q, Python refuses it", s, got)
			continue
		}
		if len(list) != len(got) {
			t.Errorf("%s: read %q, Python %v", s, got, list)
			continue
		}
		for j, w := range list {
			if w != nil && w != got[j] {
				t.Errorf("%s: element %d = %q, Python %q", s, j, got[j], w)
			}
		}
	}
	if accepted < 100 {
		t.Errorf("only %d of %d inputs were literals: the generator tests too little", accepted, len(inputs))
	}
}
