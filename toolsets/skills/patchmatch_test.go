package skills

import (
	"reflect"
	"strings"
	"testing"
)

func TestFindMatches(t *testing.T) {
	content := "# Deploy\n\n  1. Build the image.  \n  2. Push it.\n\nDone. Push it.\n"
	at := func(s string, nth int) [2]int {
		i := -1
		for range nth + 1 {
			i += 1 + strings.Index(content[i+1:], s)
		}
		return [2]int{i, i + len(s)}
	}
	lines := [2]int{strings.Index(content, "  1."), strings.Index(content, "Push it.") + len("Push it.")}
	for _, tt := range []struct {
		name, old string
		want      [][2]int
	}{
		{"exact, every match in order", "Push it.", [][2]int{at("Push it.", 0), at("Push it.", 1)}},
		{"indentation and trailing blanks ignored, whole lines", "1. Build the image.\n2. Push it.", [][2]int{lines}},
		{"a line-trimmed match needs whole lines", "Build the image.\n2. Push", nil},
		{"blank old_string matches nothing", "\t\n\t", nil},
		{"nothing", "Rollback.", nil},
	} {
		if got := findMatches(content, tt.old); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: findMatches(%q) = %v, want %v", tt.name, tt.old, got, tt.want)
		}
	}
}
