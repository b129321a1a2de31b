package goals

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Store is where goals live: state.db's state_meta (statedb.Store).
type Store interface {
	Meta(ctx context.Context, key string) (string, bool, error)
	SetMeta(ctx context.Context, key, value string) error
}

// Judge asks the side model (auxiliary.goal_judge) one question and
// returns its reply text; an error is a transport failure.
type Judge func(ctx context.Context, system, user string) (string, error)

// How many failed verdicts in a row pause the goal (the original's).
const (
	maxParseFailures     = 3
	maxTransportFailures = 5
)

// The continuation messages are the original's, word for word: they are
// what the model sees as the next user turn, from either program.
const (
	continuePrompt = "[Continuing toward your standing goal]\n" +
		"Goal: %s\n\n" +
		"Continue working toward this goal. Take the next concrete step. " +
		"If you believe the goal is complete, state so explicitly and stop. " +
		"If you are blocked and need input from the user, say so clearly and stop."
	continueWithContractPrompt = "[Continuing toward your standing goal]\n" +
		"Goal: %s\n\n" +
		"Completion contract:\n" +
		"%s\n\n" +
		"Continue working toward the outcome above. Take the next concrete step. " +
		"Stay within the stated boundaries and do not violate the constraints. " +
		"Before claiming the goal is done, satisfy the Verification criterion and " +
		"show the concrete evidence (command output, file contents, test result). " +
		"If you hit the stated stop condition or are otherwise blocked and need " +
		"user input, say so clearly and stop."
	continueWithSubgoalsPrompt = "[Continuing toward your standing goal]\n" +
		"Goal: %s\n\n" +
		"Additional criteria the user added mid-loop:\n" +
		"%s\n\n" +
		"Continue working toward the goal AND all additional criteria. Take " +
		"the next concrete step. If you believe the goal and every " +
		"additional criterion are complete, state so explicitly and stop. " +
		"If you are blocked and need input from the user, say so clearly " +
		"and stop."
)

// Decision is what happens after a turn.
type Decision struct {
	// Continue says to send Prompt as the next user turn.
	Continue bool
	Prompt   string
	Verdict  string
	Reason   string
	// Message is the line to show the user; empty when there is no goal.
	Message string
}

// Manager holds one session's goal. Not safe for concurrent use: the chat
// loop owns it.
type Manager struct {
	store      Store // nil: the goal lives in memory only
	sessionID  string
	defaultMax int
	now        func() time.Time
	state      *State
}

// Options configure a Manager.
type Options struct {
	// Store may be nil (a chat with no history): the goal then lasts as
	// long as the chat.
	Store     Store
	SessionID string
	// MaxTurns is goals.max_turns; 0 means DefaultMaxTurns.
	MaxTurns int
	Now      func() time.Time
}

// Load reads the session's goal. A damaged record is an error that names
// the key; the Manager then starts with no goal, and a new /goal replaces
// the record.
func Load(ctx context.Context, o Options) (*Manager, error) {
	m := &Manager{store: o.Store, sessionID: o.SessionID, defaultMax: o.MaxTurns, now: o.Now}
	if m.defaultMax <= 0 {
		m.defaultMax = DefaultMaxTurns
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.store == nil || o.SessionID == "" {
		return m, nil
	}
	raw, ok, err := m.store.Meta(ctx, MetaKey(o.SessionID))
	if err != nil || !ok {
		return m, err
	}
	st, err := Decode(raw)
	if err != nil {
		return m, fmt.Errorf("state_meta %s in state.db: %w; /goal <text> replaces it", MetaKey(o.SessionID), err)
	}
	m.state = st
	return m, nil
}

// State is the goal as stored (nil when the session never had one).
func (m *Manager) State() *State { return m.state }

// Active reports whether the goal drives the loop.
func (m *Manager) Active() bool { return m.state != nil && m.state.Status == StatusActive }

func (m *Manager) hasGoal() bool {
	return m.state != nil && (m.state.Status == StatusActive || m.state.Status == StatusPaused)
}

func (m *Manager) save(ctx context.Context) error {
	if m.store == nil || m.state == nil {
		return nil
	}
	raw, err := m.state.Encode()
	if err != nil {
		return err
	}
	return m.store.SetMeta(context.WithoutCancel(ctx), MetaKey(m.sessionID), raw)
}

func epoch(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// Set starts a new goal from typed text (inline "verify: ..." lines make
// its completion contract), replacing any earlier one.
func (m *Manager) Set(ctx context.Context, text string) (*State, error) {
	goal, contract := ParseGoal(text)
	if goal == "" && !contract.Empty() {
		goal = contract.Outcome
	}
	if goal == "" {
		return nil, errors.New("the goal text is empty; use /goal <what you want done>")
	}
	m.state = &State{Goal: goal, Status: StatusActive, MaxTurns: m.defaultMax, CreatedAt: epoch(m.now()),
		Subgoals: []string{}, Contract: contract}
	return m.state, m.save(ctx)
}

// Pause stops the loop until Resume.
func (m *Manager) Pause(ctx context.Context, reason string) error {
	if !m.hasGoal() {
		return errors.New("no goal to pause; set one with /goal <text>")
	}
	m.state.Status = StatusPaused
	m.state.PausedReason = strp(reason)
	m.clearWait()
	return m.save(ctx)
}

// Resume makes a paused goal active again with a fresh turn budget.
func (m *Manager) Resume(ctx context.Context) error {
	if m.state == nil || m.state.Status == StatusCleared {
		return errors.New("no goal to resume; set one with /goal <text>")
	}
	m.state.Status = StatusActive
	m.state.PausedReason = nil
	m.state.TurnsUsed = 0
	m.clearWait()
	return m.save(ctx)
}

// Clear ends the goal; the record stays, marked cleared, as the original
// keeps it.
func (m *Manager) Clear(ctx context.Context) error {
	if m.state == nil || m.state.Status == StatusCleared {
		return errors.New("no goal to clear")
	}
	m.state.Status = StatusCleared
	err := m.save(ctx)
	m.state = nil
	return err
}

func (m *Manager) clearWait() {
	s := m.state
	s.WaitingOnPID, s.WaitingOnSession, s.WaitingReason = nil, nil, nil
	s.WaitingUntil, s.WaitingSince, s.WaitingOnDelegations = 0, 0, 0
}

// AddSubgoal adds a criterion the judge must also see met.
func (m *Manager) AddSubgoal(ctx context.Context, text string) error {
	if !m.hasGoal() {
		return errors.New("no active goal; set one with /goal <text> first")
	}
	if text = strings.TrimSpace(text); text == "" {
		return errors.New("the subgoal text is empty")
	}
	m.state.Subgoals = append(m.state.Subgoals, text)
	return m.save(ctx)
}

// RemoveSubgoal removes the n-th criterion (from 1).
func (m *Manager) RemoveSubgoal(ctx context.Context, n string) (string, error) {
	if !m.hasGoal() {
		return "", errors.New("no active goal")
	}
	i, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil || i < 1 || i > len(m.state.Subgoals) {
		return "", fmt.Errorf("no subgoal %q; give a number from 1 to %d", n, len(m.state.Subgoals))
	}
	removed := m.state.Subgoals[i-1]
	m.state.Subgoals = append(m.state.Subgoals[:i-1:i-1], m.state.Subgoals[i:]...)
	return removed, m.save(ctx)
}

// ClearSubgoals removes every criterion and says how many there were.
func (m *Manager) ClearSubgoals(ctx context.Context) (int, error) {
	if !m.hasGoal() {
		return 0, errors.New("no active goal")
	}
	n := len(m.state.Subgoals)
	m.state.Subgoals = []string{}
	return n, m.save(ctx)
}

// Subgoals lists the criteria, numbered.
func (m *Manager) Subgoals() string {
	if m.state == nil {
		return "(no active goal)"
	}
	if len(m.state.Subgoals) == 0 {
		return "(no subgoals — use /subgoal <text> to add criteria)"
	}
	return numbered(m.state.Subgoals)
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// StatusLine is /goal status.
func (m *Manager) StatusLine() string {
	s := m.state
	if s == nil || s.Status == StatusCleared {
		return "No active goal. Set one with /goal <text>."
	}
	meta := fmt.Sprintf("%d/%d turns", s.TurnsUsed, s.MaxTurns)
	if len(s.Subgoals) > 0 {
		meta += ", " + plural(len(s.Subgoals), "subgoal")
	}
	if !s.Contract.Empty() {
		meta += ", contract"
	}
	if len(s.Gates) > 0 {
		meta += ", " + plural(len(s.Gates), "gate")
	}
	switch s.Status {
	case StatusActive:
		return fmt.Sprintf("⊙ Goal (active, %s): %s", meta, s.Goal)
	case StatusPaused:
		extra := ""
		if r := str(s.PausedReason); r != "" {
			extra = " — " + r
		}
		return fmt.Sprintf("⏸ Goal (paused, %s%s): %s", meta, extra, s.Goal)
	case StatusDone:
		return fmt.Sprintf("✓ Goal done (%s): %s", meta, s.Goal)
	}
	return fmt.Sprintf("Goal (%s, %s): %s", s.Status, meta, s.Goal)
}

// ContinuationPrompt is the user message that carries the loop on.
func (m *Manager) ContinuationPrompt() string {
	s := m.state
	if s == nil || s.Status != StatusActive {
		return ""
	}
	if !s.Contract.Empty() {
		block := s.Contract.block()
		if len(s.Subgoals) > 0 {
			block += "\n" + extraCriteria(s.Subgoals)
		}
		return fmt.Sprintf(continueWithContractPrompt, s.Goal, block)
	}
	if len(s.Subgoals) > 0 {
		return fmt.Sprintf(continueWithSubgoalsPrompt, s.Goal, numbered(s.Subgoals))
	}
	return fmt.Sprintf(continuePrompt, s.Goal)
}

func (m *Manager) pause(ctx context.Context, reason string, d Decision) (Decision, error) {
	m.state.Status = StatusPaused
	m.state.PausedReason = strp(reason)
	return d, m.save(ctx)
}

// AfterTurn counts the turn against the budget, asks the judge about the
// turn's final response and decides whether the loop goes on. Every turn
// counts, the user's own as well as the continuations: both spend the
// model. Judge failures fail open (continue) until too many come in a
// row; the budget is the backstop.
func (m *Manager) AfterTurn(ctx context.Context, judge Judge, response string) (Decision, error) {
	s := m.state
	if s == nil || s.Status != StatusActive {
		return Decision{Verdict: "inactive", Reason: "no active goal"}, nil
	}
	s.TurnsUsed++
	s.LastTurnAt = epoch(m.now())

	verdict, reason, parseFailed, transportFailed := VerdictContinue, "", false, false
	switch {
	case strings.TrimSpace(s.Goal) == "":
		verdict, reason = VerdictSkipped, "empty goal"
	case strings.TrimSpace(response) == "":
		reason = "empty response (nothing to evaluate)"
	default:
		raw, err := judge(ctx, judgeSystem, judgeUser(s, response, m.now()))
		if err != nil {
			reason, transportFailed = "judge error: "+err.Error(), true
		} else {
			verdict, reason, parseFailed = parseVerdict(raw)
		}
	}
	s.LastVerdict, s.LastReason = strp(verdict), strp(reason)
	s.ConsecutiveParseFailures = bump(s.ConsecutiveParseFailures, parseFailed)
	s.ConsecutiveTransportFailures = bump(s.ConsecutiveTransportFailures, transportFailed)

	switch {
	case verdict == VerdictBlocked:
		return m.pause(ctx, "judge blocked: "+reason, Decision{Verdict: verdict, Reason: reason,
			Message: "⏸ Goal paused — blocked: " + reason + " Re-scope with /goal <text>, or resume with /goal resume."})
	case verdict == VerdictDone:
		s.Status = StatusDone
		return Decision{Verdict: verdict, Reason: reason, Message: "✓ Goal achieved: " + reason}, m.save(ctx)
	case s.ConsecutiveTransportFailures >= maxTransportFailures:
		n := s.ConsecutiveTransportFailures
		return m.pause(ctx, fmt.Sprintf("judge API unreachable %d turns in a row (check auxiliary.goal_judge provider/key in config.yaml)", n),
			Decision{Verdict: verdict, Reason: reason, Message: fmt.Sprintf(
				"⏸ Goal paused — the judge model failed %d turns in a row (%s). Check auxiliary.goal_judge (provider, model, key) in config.yaml, then /goal resume.", n, reason)})
	case s.ConsecutiveParseFailures >= maxParseFailures:
		n := s.ConsecutiveParseFailures
		return m.pause(ctx, fmt.Sprintf("judge model returned unparseable output %d turns in a row", n),
			Decision{Verdict: verdict, Reason: reason, Message: fmt.Sprintf(
				"⏸ Goal paused — the judge model gave no JSON verdict %d turns in a row. Route the judge to a stricter model with auxiliary.goal_judge in config.yaml, then /goal resume.", n)})
	case s.TurnsUsed >= s.MaxTurns:
		return m.pause(ctx, fmt.Sprintf("turn budget exhausted (%d/%d)", s.TurnsUsed, s.MaxTurns),
			Decision{Verdict: verdict, Reason: reason, Message: fmt.Sprintf(
				"⏸ Goal paused — %d/%d turns used. Use /goal resume to keep going, or /goal clear to stop.", s.TurnsUsed, s.MaxTurns)})
	}
	return Decision{Continue: true, Prompt: m.ContinuationPrompt(), Verdict: verdict, Reason: reason,
		Message: fmt.Sprintf("↻ Continuing toward goal (%d/%d): %s", s.TurnsUsed, s.MaxTurns, reason)}, m.save(ctx)
}

func bump(n int, failed bool) int {
	if failed {
		return n + 1
	}
	return 0
}

// SessionID is the session the goal belongs to.
func (m *Manager) SessionID() string { return m.sessionID }

// MoveTo carries the goal to the session the conversation goes on in
// after context compression, as the original migrates it: the new
// session gets the record, the old one keeps it marked cleared, so one
// active goal row exists per conversation. A goal already on the new
// session is kept.
func (m *Manager) MoveTo(ctx context.Context, sessionID string) error {
	if sessionID == "" || sessionID == m.sessionID {
		return nil
	}
	old := m.sessionID
	m.sessionID = sessionID
	if m.state == nil || m.state.Status == StatusCleared || m.store == nil {
		return nil
	}
	if _, exists, err := m.store.Meta(ctx, MetaKey(sessionID)); err != nil || exists {
		return err
	}
	if err := m.save(ctx); err != nil {
		return err
	}
	archived := *m.state
	archived.Status = StatusCleared
	raw, err := archived.Encode()
	if err != nil {
		return err
	}
	return m.store.SetMeta(context.WithoutCancel(ctx), MetaKey(old), raw)
}

// TurnResult is what Drive needs to know of a turn.
type TurnResult struct {
	// Response is the turn's final answer, which the judge reads.
	Response string
	// OK says the turn completed; Interrupted that the user stopped it.
	OK, Interrupted bool
}

// Drive runs the loop after a turn while the goal is active: the judge,
// then the continuation turn it asks for, until done, blocked, paused or
// a turn that did not complete. An interrupted turn pauses the goal, as
// the user stopping the agent means. Every continuation is a turn of its
// own through turn, so on any runtime it is a new model turn in the same
// conversation. report is told each decision (and the pause after an
// interrupt); moved is called before judging, to follow the conversation
// to another session (context compression); it may be nil.
func Drive(ctx context.Context, m *Manager, judge Judge, first TurnResult, turn func(ctx context.Context, text string) TurnResult,
	report func(Decision), moved func()) error {
	res := first
	for m != nil && m.Active() {
		if !res.OK {
			if res.Interrupted {
				if err := m.Pause(ctx, "interrupted by the user"); err != nil {
					return err
				}
				report(Decision{Verdict: "interrupted", Message: "⏸ Goal paused (interrupted). /goal resume continues it."})
			}
			return nil
		}
		if moved != nil {
			moved()
		}
		d, err := m.AfterTurn(ctx, judge, res.Response)
		report(d)
		if err != nil {
			return err
		}
		if !d.Continue {
			return nil
		}
		res = turn(ctx, d.Prompt)
	}
	return nil
}
