package bridge

import (
	"testing"
	"time"
)

func TestUsageLimitMessage(t *testing.T) {
	now := time.Date(2026, 11, 24, 13, 0, 0, 0, time.Local)
	for _, tt := range []struct{ text, want string }{
		{"You’ve hit your usage limit. Try again at 2:05 PM.", "usage limit reached; resets at 14:05"},
		{"You’ve hit your usage limit. Try again at Nov 25th, 2026 12:30 AM.", "usage limit reached; resets at 00:30 on Nov 25"},
		{"You’ve hit your usage limit. Try again at Nov 24th, 2026 9:15 PM.", "usage limit reached; resets at 21:15"},
		{"You’ve hit your usage limit. Upgrade to Pro.", "usage limit reached (You’ve hit your usage limit. Upgrade to Pro.)"},
		{"Try again at sometime soon.", "usage limit reached; resets at sometime soon"},
	} {
		if got := usageLimitMessage(tt.text, now); got != tt.want {
			t.Errorf("usageLimitMessage(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
