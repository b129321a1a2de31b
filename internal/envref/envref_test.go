package envref

import (
	"reflect"
	"testing"
)

func TestWhole(t *testing.T) {
	tests := []struct {
		in   string
		want Ref
		ok   bool
	}{
		{"${A}", Ref{Name: "A"}, true},
		{"$A_1", Ref{Name: "A_1"}, true},
		{"${A:-x y}", Ref{Name: "A", Default: "x y", HasDefault: true}, true},
		{"${A:-}", Ref{Name: "A", HasDefault: true}, true},
		{"${_a}", Ref{Name: "_a"}, true},
		{"${1A}", Ref{}, false},
		{"$A$B", Ref{}, false},
		{"${A}x", Ref{}, false},
		{"x${A}", Ref{}, false},
		{"${A:-}}", Ref{}, false},
		{"$", Ref{}, false},
		{"${A-x}", Ref{}, false},
		{"", Ref{}, false},
	}
	for _, tt := range tests {
		got, ok := Whole(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("Whole(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestFindBraced(t *testing.T) {
	tests := []struct {
		in   string
		want []Found
	}{
		{"plain $A text", nil},
		{"a-${X}-${Y:-d}", []Found{{Ref{Name: "X"}, 2, 6}, {Ref{Name: "Y", Default: "d", HasDefault: true}, 7, 14}}},
		{"${A:-${B}}", []Found{{Ref{Name: "A", Default: "${B", HasDefault: true}, 0, 9}}},
	}
	for _, tt := range tests {
		if got := FindBraced(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("FindBraced(%q) = %+v; want %+v", tt.in, got, tt.want)
		}
		if HasBraced(tt.in) != (len(tt.want) > 0) {
			t.Errorf("HasBraced(%q) disagrees with FindBraced", tt.in)
		}
	}
	if got := ReplaceBraced("k-${A}-${B:-$1}", "_"); got != "k-_-_" {
		t.Errorf("ReplaceBraced = %q", got)
	}
}
