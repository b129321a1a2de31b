package kanban

import (
	"strconv"
	"strings"
	"testing"
)

// TestListLimitsAdvertised keeps the limits kanban_list enforces in step
// with the text that advertises them.
func TestListLimitsAdvertised(t *testing.T) {
	def, max := strconv.Itoa(listDefaultLimit), strconv.Itoa(listMaxLimit)
	tests := []struct {
		name, text, want string
	}{
		{"description", listDescription, def + " by default and at most " + max},
		{"input schema", listInput, "(default " + def + ", at most " + max + ")"},
	}
	for _, tt := range tests {
		if !strings.Contains(tt.text, tt.want) {
			t.Errorf("kanban_list %s does not say %q", tt.name, tt.want)
		}
	}
}
