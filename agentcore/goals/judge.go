package goals

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Verdicts of the judge.
const (
	VerdictDone     = "done"
	VerdictBlocked  = "blocked"
	VerdictContinue = "continue"
	VerdictWait     = "wait"
	VerdictSkipped  = "skipped"
)

// judgeSystem asks for the verdict shapes the original's judge answers in,
// so one judge model configuration serves both programs.
const judgeSystem = `You judge whether an autonomous agent has reached the goal its user set. You are given the goal and the agent's latest response.

Answer "done" only when the response shows the goal fully met: the deliverable exists or the agent explicitly confirms completion with evidence.
Answer "blocked" when the goal cannot be met as stated, or the agent has stopped and needs the user's input or permission to go on (including because the user asked it to stop). Quote any error the agent hit verbatim in the reason. Never answer "blocked" for an achieved goal.
Answer "continue" when the goal is not met and the agent has a concrete next step. When unsure, answer "continue".

Reply with one JSON object on one line and nothing else, one of:
{"verdict": "done", "reason": "<one sentence>"}
{"verdict": "blocked", "reason": "<one sentence>"}
{"verdict": "continue", "reason": "<one sentence>"}`

// Limits on what the judge is sent, as the original's.
const (
	goalChars     = 2000
	responseChars = 4000
	criteriaChars = 2500
)

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "… [truncated]"
	}
	return s
}

// judgeUser is the question put to the judge for st and the response.
func judgeUser(st *State, response string, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Goal:\n%s\n\n", truncate(st.Goal, goalChars))
	subs := cleanSubgoals(st.Subgoals)
	switch {
	case !st.Contract.Empty():
		block := st.Contract.block()
		if len(subs) > 0 {
			block += "\n" + extraCriteria(subs)
		}
		fmt.Fprintf(&b, "Completion contract (what done means; it decides):\n%s\n\n", truncate(block, criteriaChars))
	case len(subs) > 0:
		fmt.Fprintf(&b, "Criteria the user added, all of which must also be met for done:\n%s\n\n", truncate(numbered(subs), goalChars))
	}
	fmt.Fprintf(&b, "Agent's latest response:\n%s\n\n", truncate(response, responseChars))
	fmt.Fprintf(&b, "Current time: %s\n\n", now.Format("2006-01-02 15:04:05 MST"))
	if len(subs) > 0 || !st.Contract.Empty() {
		b.WriteString("Require concrete evidence in the response (output, file contents, a test result) for every criterion; a bare claim of completion is not done.\n\n")
	}
	b.WriteString("Is the goal met: done, blocked or continue?")
	return b.String()
}

func cleanSubgoals(subs []string) []string {
	var out []string
	for _, s := range subs {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func numbered(subs []string) string {
	lines := make([]string, len(subs))
	for i, s := range subs {
		lines[i] = fmt.Sprintf("- %d. %s", i+1, s)
	}
	return strings.Join(lines, "\n")
}

func extraCriteria(subs []string) string {
	lines := make([]string, len(subs))
	for i, s := range subs {
		lines[i] = fmt.Sprintf("- Extra criterion %d: %s", i+1, s)
	}
	return strings.Join(lines, "\n")
}

var firstObject = regexp.MustCompile(`(?s)\{.*?\}`)

// parseVerdict reads the judge's reply. It fails open: anything unusable
// is "continue", with parseFailed set so repeated failures can pause the
// goal. The legacy {"done": bool} shape is accepted. A "wait" verdict is
// read as "continue": this program has no background processes to park
// on.
func parseVerdict(raw string) (verdict, reason string, parseFailed bool) {
	text := strings.TrimSpace(raw)
	if text == "" {
		return VerdictContinue, "judge returned empty response", true
	}
	if strings.HasPrefix(text, "```") {
		text = strings.Trim(text, "`")
		if _, rest, ok := strings.Cut(text, "\n"); ok {
			text = rest
		}
	}
	var data map[string]any
	if err := json.Unmarshal([]byte(text), &data); err != nil {
		m := firstObject.FindString(text)
		if m == "" || json.Unmarshal([]byte(m), &data) != nil {
			return VerdictContinue, fmt.Sprintf("judge reply was not JSON: %q", truncate(raw, 200)), true
		}
	}
	reason = strings.TrimSpace(fmt.Sprint(data["reason"]))
	if data["reason"] == nil || reason == "" {
		reason = "no reason provided"
	}
	if v, ok := data["verdict"].(string); ok {
		verdict = strings.ToLower(strings.TrimSpace(v))
	} else {
		done := false
		switch d := data["done"].(type) {
		case bool:
			done = d
		case string:
			switch strings.ToLower(strings.TrimSpace(d)) {
			case "true", "yes", "1", "done":
				done = true
			}
		case float64:
			done = d != 0
		}
		verdict = VerdictContinue
		if done {
			verdict = VerdictDone
		}
	}
	switch verdict {
	case VerdictDone, VerdictBlocked, VerdictContinue:
	case VerdictWait:
		return VerdictContinue, reason + " (wait verdict: continuing)", false
	default:
		verdict = VerdictContinue
	}
	return verdict, reason, false
}
