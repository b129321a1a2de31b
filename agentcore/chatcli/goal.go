package chatcli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/agentcore/agent"
	"github.com/hermes-go/hermes/agentcore/goals"
	"github.com/hermes-go/hermes/agentcore/native"
)

// loadGoal reads the conversation's standing goal from state.db, where
// the Python Hermes keeps it too, so a goal either program set goes on
// here.
func (c *cli) loadGoal(conv *agent.Conversation) {
	set, err := goals.LoadSettings(c.home)
	if err != nil {
		fmt.Fprintf(c.errw, "⚠ goal settings ignored: %v\n", err)
	}
	c.goalSettings = set
	store, _ := c.store.(goals.Store)
	m, err := goals.Load(c.ctx, goals.Options{Store: store, SessionID: conv.Meta().ID, MaxTurns: set.MaxTurns})
	if err != nil {
		fmt.Fprintf(c.errw, "⚠ %v\n", err)
	}
	c.goal = m
}

// judge asks auxiliary.goal_judge (or the main model) for a verdict.
func (c *cli) judge(conv *agent.Conversation) goals.Judge {
	return func(ctx context.Context, system, user string) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, c.goalSettings.JudgeTimeout)
		defer cancel()
		zero := 0.0
		return conv.SideTask(ctx, native.AuxGoalJudge, native.SideRequest{
			System: system, User: user, MaxTokens: c.goalSettings.JudgeMaxTokens, Temperature: &zero,
		})
	}
}

// converse runs a user turn and, while a goal is active, the judge after
// it and the continuation turns it asks for.
func (c *cli) converse(conv *agent.Conversation, text string) {
	turn := func(_ context.Context, text string) goals.TurnResult {
		res, ok := c.turn(conv, text)
		c.followSession(conv)
		return goals.TurnResult{Response: res.FinalResponse, OK: ok, Interrupted: res.Interrupted}
	}
	first := turn(c.ctx, text)
	report := func(d goals.Decision) {
		if d.Message != "" {
			c.out.write(d.Message + "\n")
		}
	}
	if err := goals.Drive(c.ctx, c.goal, c.judge(conv), first, turn, report, func() { c.followSession(conv) }); err != nil {
		fmt.Fprintf(c.errw, "⚠ the goal's progress was not saved: %v\n", err)
	}
}

// goalCommand is /goal [text | status | pause | resume | clear].
func (c *cli) goalCommand(conv *agent.Conversation, arg string) {
	var err error
	switch strings.ToLower(arg) {
	case "", "status":
		c.out.write(c.goal.StatusLine() + "\n")
		return
	case "pause":
		if err = c.goal.Pause(c.ctx, "user-paused"); err == nil {
			c.out.write("⏸ Goal paused. /goal resume continues it.\n")
		}
	case "resume":
		if err = c.goal.Resume(c.ctx); err == nil {
			c.out.write(c.goal.StatusLine() + "\n")
			// The original resumes by carrying on from where the agent
			// stopped: the next turn is the continuation.
			c.converse(conv, c.goal.ContinuationPrompt())
		}
	case "clear", "stop", "off", "cancel":
		if err = c.goal.Clear(c.ctx); err == nil {
			c.out.write("Goal cleared.\n")
		}
	default:
		var st *goals.State
		if st, err = c.goal.Set(c.ctx, arg); st != nil {
			c.out.write(fmt.Sprintf("⊙ Goal set (%d-turn budget): %s\n", st.MaxTurns, st.Goal))
			if err != nil {
				fmt.Fprintf(c.errw, "⚠ the goal was not saved to state.db (it lasts for this chat): %v\n", err)
			}
			c.converse(conv, arg)
			return
		}
	}
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: /goal: %v\n", err)
	}
}

// subgoalCommand is /subgoal [text | remove N | clear].
func (c *cli) subgoalCommand(arg string) {
	verb, rest, _ := strings.Cut(arg, " ")
	switch strings.ToLower(verb) {
	case "":
		c.out.write(c.goal.Subgoals() + "\n")
	case "remove", "rm", "del":
		removed, err := c.goal.RemoveSubgoal(c.ctx, rest)
		if err != nil {
			fmt.Fprintf(c.errw, "hermes: /subgoal: %v\n", err)
			return
		}
		c.out.write("Removed subgoal: " + removed + "\n")
	case "clear":
		n, err := c.goal.ClearSubgoals(c.ctx)
		if err != nil {
			fmt.Fprintf(c.errw, "hermes: /subgoal: %v\n", err)
			return
		}
		c.out.write(fmt.Sprintf("Cleared %d subgoal(s).\n", n))
	default:
		if err := c.goal.AddSubgoal(c.ctx, arg); err != nil {
			fmt.Fprintf(c.errw, "hermes: /subgoal: %v\n", err)
			return
		}
		c.out.write(c.goal.Subgoals() + "\n")
	}
}

// followSession moves the goal along when context compression handed the
// conversation on to a new session.
func (c *cli) followSession(conv *agent.Conversation) {
	if c.goal == nil {
		return
	}
	if id := conv.Meta().ID; id != c.goal.SessionID() {
		if err := c.goal.MoveTo(c.ctx, id); err != nil {
			fmt.Fprintf(c.errw, "⚠ the goal could not follow the conversation to session %s: %v\n", id, err)
		}
	}
}

// compress is /compress [focus]: summarise the conversation's middle now.
func (c *cli) compress(conv *agent.Conversation, focus string) {
	done, err := conv.Compress(c.ctx, focus)
	if errors.Is(err, agent.ErrNothingToCompress) {
		c.out.write("Nothing to compress yet.\n")
		return
	}
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: /compress: %v\n", err)
		return
	}
	c.followSession(conv)
	c.out.write(fmt.Sprintf("Compressed: %d messages summarised (~%d → ~%d tokens); session %s.\n", done.Summarised, done.Before, done.After, done.SessionID))
}
