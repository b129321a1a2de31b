// Package goals is the Python Hermes' standing goal (/goal, /subgoal): a
// free-form objective kept per session in state.db's state_meta table under
// "goal:<session id>", judged after every turn by a side model
// (auxiliary.goal_judge), and continued with a normal user message until
// the judge says it is done or blocked, or the turn budget runs out.
//
// The record is the original's GoalState JSON, key for key, so a goal set
// by either program is seen, continued and cleared by the other. Keys this
// package does not know (added by a newer original) are kept as they are.
package goals

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// DefaultMaxTurns is the original's goal turn budget (goals.max_turns).
const DefaultMaxTurns = 20

// Statuses of a goal.
const (
	StatusActive  = "active"
	StatusPaused  = "paused"
	StatusDone    = "done"
	StatusCleared = "cleared"
)

// MetaKey is the state_meta key of a session's goal.
func MetaKey(sessionID string) string { return "goal:" + sessionID }

// Contract is the optional completion contract; empty fields are left out
// of every prompt.
type Contract struct {
	Outcome      string `json:"outcome"`
	Verification string `json:"verification"`
	Constraints  string `json:"constraints"`
	Boundaries   string `json:"boundaries"`
	StopWhen     string `json:"stop_when"`
}

var contractLabels = []struct{ key, label string }{
	{"outcome", "Outcome"}, {"verification", "Verification"}, {"constraints", "Constraints"},
	{"boundaries", "Boundaries"}, {"stop_when", "Stop when blocked"},
}

func (c *Contract) field(key string) *string {
	switch key {
	case "outcome":
		return &c.Outcome
	case "verification":
		return &c.Verification
	case "constraints":
		return &c.Constraints
	case "boundaries":
		return &c.Boundaries
	case "stop_when":
		return &c.StopWhen
	}
	return nil
}

// Empty reports whether no field is set.
func (c Contract) Empty() bool {
	for _, l := range contractLabels {
		if strings.TrimSpace(*c.field(l.key)) != "" {
			return false
		}
	}
	return true
}

// block renders the set fields as "- Label: value" lines.
func (c Contract) block() string {
	var lines []string
	for _, l := range contractLabels {
		if v := strings.TrimSpace(*c.field(l.key)); v != "" {
			lines = append(lines, "- "+l.label+": "+v)
		}
	}
	return strings.Join(lines, "\n")
}

// contractAliases are the "field:" prefixes a typed goal may use.
var contractAliases = map[string]string{
	"outcome": "outcome", "goal": "outcome", "done": "outcome", "done when": "outcome",
	"verification": "verification", "verify": "verification", "verified by": "verification",
	"evidence": "verification", "proof": "verification",
	"constraints": "constraints", "constraint": "constraints", "preserve": "constraints",
	"must not": "constraints", "do not change": "constraints",
	"boundaries": "boundaries", "boundary": "boundaries", "scope": "boundaries",
	"allowed": "boundaries", "files": "boundaries",
	"stop when": "stop_when", "stop_when": "stop_when", "blocked": "stop_when",
	"stop if blocked": "stop_when", "give up when": "stop_when",
}

// ParseGoal splits typed goal text into its headline and the contract its
// "field: value" lines give, as the original reads /goal's text.
func ParseGoal(text string) (string, Contract) {
	var head []string
	fields := map[string][]string{}
	for _, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if prefix, value, ok := strings.Cut(line, ":"); ok {
			if key, known := contractAliases[strings.ToLower(strings.TrimSpace(prefix))]; known && strings.TrimSpace(value) != "" {
				fields[key] = append(fields[key], strings.TrimSpace(value))
				continue
			}
		}
		head = append(head, line)
	}
	var c Contract
	for key, vals := range fields {
		*c.field(key) = strings.TrimSpace(strings.Join(vals, " "))
	}
	return strings.TrimSpace(strings.Join(head, " ")), c
}

// State is one session's goal, the original's GoalState. Pointer fields
// are the original's Optional values (null when unset).
type State struct {
	Goal                         string            `json:"goal"`
	Status                       string            `json:"status"`
	TurnsUsed                    int               `json:"turns_used"`
	MaxTurns                     int               `json:"max_turns"`
	CreatedAt                    float64           `json:"created_at"`
	LastTurnAt                   float64           `json:"last_turn_at"`
	LastVerdict                  *string           `json:"last_verdict"`
	LastReason                   *string           `json:"last_reason"`
	PausedReason                 *string           `json:"paused_reason"`
	ConsecutiveParseFailures     int               `json:"consecutive_parse_failures"`
	ConsecutiveTransportFailures int               `json:"consecutive_transport_failures"`
	Subgoals                     []string          `json:"subgoals"`
	WaitingOnPID                 *int64            `json:"waiting_on_pid"`
	WaitingOnSession             *string           `json:"waiting_on_session"`
	WaitingUntil                 float64           `json:"waiting_until"`
	WaitingOnDelegations         int               `json:"waiting_on_delegations"`
	WaitingReason                *string           `json:"waiting_reason"`
	WaitingSince                 float64           `json:"waiting_since"`
	Contract                     Contract          `json:"contract"`
	Gates                        []json.RawMessage `json:"gates"`

	// extra holds keys a newer original wrote, written back unchanged.
	extra map[string]json.RawMessage
}

func strp(s string) *string { return &s }

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

var knownKeys = func() map[string]bool {
	m := map[string]bool{}
	b, _ := json.Marshal(State{})
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(b, &keys)
	for k := range keys {
		m[k] = true
	}
	return m
}()

// Decode reads a stored goal record, filling what an older record lacks
// with the original's defaults.
func Decode(raw string) (*State, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &all); err != nil {
		return nil, fmt.Errorf("not a goal record: %w", err)
	}
	var st State
	// Nulls in the original's int/float fields read as 0, as its
	// from_json's "or 0" does.
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		return nil, fmt.Errorf("not a goal record: %w", err)
	}
	for k, v := range all {
		if !knownKeys[k] {
			if st.extra == nil {
				st.extra = map[string]json.RawMessage{}
			}
			st.extra[k] = v
		}
	}
	if st.Status == "" {
		st.Status = StatusActive
	}
	if st.MaxTurns <= 0 {
		st.MaxTurns = DefaultMaxTurns
	}
	st.Subgoals = slices.DeleteFunc(st.Subgoals, func(s string) bool { return strings.TrimSpace(s) == "" })
	return &st, nil
}

// Encode writes the record as the original's json.dumps does: keys in
// GoalState's order, ", " and ": " separators, non-ASCII text as is.
func (st *State) Encode() (string, error) {
	c := *st
	if c.Subgoals == nil {
		c.Subgoals = []string{}
	}
	if c.Gates == nil {
		c.Gates = []json.RawMessage{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return "", err
	}
	out := bytes.TrimSpace(buf.Bytes())
	if len(c.extra) > 0 {
		keys := make([]string, 0, len(c.extra))
		for k := range c.extra {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out = out[:len(out)-1]
		for _, k := range keys {
			kb, _ := json.Marshal(k)
			var v bytes.Buffer
			if err := json.Compact(&v, c.extra[k]); err != nil {
				return "", fmt.Errorf("goal record key %s: %w", k, err)
			}
			out = append(append(append(append(out, ','), kb...), ':'), v.Bytes()...)
		}
		out = append(out, '}')
	}
	return pythonSpacing(out), nil
}

// pythonSpacing puts a space after every ',' and ':' outside strings,
// which is what Python's json.dumps separators are by default.
func pythonSpacing(compact []byte) string {
	var b strings.Builder
	inStr, esc := false, false
	for _, ch := range compact {
		b.WriteByte(ch)
		switch {
		case esc:
			esc = false
		case inStr && ch == '\\':
			esc = true
		case ch == '"':
			inStr = !inStr
		case !inStr && (ch == ',' || ch == ':'):
			b.WriteByte(' ')
		}
	}
	return b.String()
}
