package bridge

import (
	"regexp"
	"strings"
	"time"
)

// usageLimitCode is codex's codexErrorInfo for an account out of quota.
const usageLimitCode = "usageLimitExceeded"

// tryAgainAt finds the reset time in codex's message ("… Try again at
// 3:05 PM." or "… Try again at Nov 25th, 2026 12:30 AM."), which codex
// writes in the machine's local time.
var tryAgainAt = regexp.MustCompile(`(?i)try again at ([^.]+(?:\.\d+)?[^.]*)\.?`)

var ordinal = regexp.MustCompile(`(\d)(st|nd|rd|th)\b`)

// usageLimitMessage says the limit was reached and when it resets, read
// from codex's message: "usage limit reached; resets at 14:05", with the
// day when it is not today. When codex gave no time it says so plainly.
func usageLimitMessage(text string, now time.Time) string {
	m := tryAgainAt.FindStringSubmatch(text)
	if m == nil {
		return "usage limit reached (" + strings.TrimSpace(text) + ")"
	}
	when := strings.TrimSpace(ordinal.ReplaceAllString(m[1], "$1"))
	now = now.Local()
	for _, layout := range []string{"Jan 2, 2006 3:04 PM", "January 2, 2006 3:04 PM", "Jan 2 3:04 PM", "3:04 PM", "15:04"} {
		t, err := time.ParseInLocation(layout, when, now.Location())
		if err != nil {
			continue
		}
		if t.Year() == 0 {
			t = time.Date(now.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), 0, 0, now.Location())
			if layout == "3:04 PM" || layout == "15:04" {
				t = time.Date(now.Year(), now.Month(), now.Day(), t.Hour(), t.Minute(), 0, 0, now.Location())
			}
		}
		msg := "usage limit reached; resets at " + t.Format("15:04")
		if y, mo, d := t.Date(); y != now.Year() || mo != now.Month() || d != now.Day() {
			msg += " on " + t.Format("Jan 2")
		}
		return msg
	}
	return "usage limit reached; resets at " + when
}
