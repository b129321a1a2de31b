package chatcli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/agent"
	"github.com/hermes-go/hermes/bridge"
)

// The chat commands of the codex runtime: /steer, /undo, /branch, /review
// and, on codex, /compress.

const codexHelpText = `Codex runtime only:
  /steer <text>           add text to the running turn (typed during an answer); with none running it is sent as a message
  /undo                   also makes codex forget the last turn (files it changed stay changed)
  /branch                 fork the codex thread and continue in the fork (the original stays as it was)
  /review [instructions]  have codex review the uncommitted changes (or follow the instructions)
  /compress               have codex compact the conversation's context
`

// steerTimeout bounds turn/steer, which codex answers at once.
const steerTimeout = 10 * time.Second

// codexCommand runs name if it is a codex command, and reports whether it
// was one. /compress is left to the native runtime's command when the
// conversation is not on codex.
func (c *cli) codexCommand(conv *agent.Conversation, name, arg string) bool {
	switch name {
	case "/steer":
		if arg == "" {
			c.errw.write("usage: /steer <text>\n")
			return true
		}
		err := conv.CodexSteerRunning(c.ctx, arg)
		switch {
		case errors.Is(err, bridge.ErrNoTurn):
			// Never left waiting: with no turn to join, it is one.
			c.errw.write("(no turn is running: sending it as a message)\n")
			c.turn(conv, arg)
		case err != nil:
			fmt.Fprintf(c.errw, "hermes: /steer: %v\n", err)
		default:
			c.errw.write("↪ steered into the running turn\n")
		}
	case "/undo":
		c.undo(conv)
	case "/branch", "/fork":
		id, err := conv.CodexBranch(c.ctx)
		if err != nil {
			fmt.Fprintf(c.errw, "hermes: /branch: %v\n", err)
			return true
		}
		c.out.write(fmt.Sprintf("continuing in codex thread %s, a branch of the conversation so far.\n", id))
	case "/review":
		c.runCodex(func(ctx context.Context) (agentcore.Result, error) { return conv.CodexReview(ctx, arg) })
	case "/compress", "/compact":
		if !conv.OnCodex() {
			return false
		}
		res, err := c.codexTurn(func(ctx context.Context) (agentcore.Result, error) { return conv.CodexCompress(ctx) })
		if err == nil && res.Error == "" {
			c.out.write("codex compacted the conversation's context.\n")
		}
	default:
		return false
	}
	return true
}

// runCodex runs a command that is a turn and prints its answer.
func (c *cli) runCodex(run func(context.Context) (agentcore.Result, error)) {
	if res, err := c.codexTurn(run); err == nil {
		c.printResult(res)
	}
}

// codexTurn runs a command that is a turn, letting Ctrl+C interrupt it,
// and reports a failure.
func (c *cli) codexTurn(run func(context.Context) (agentcore.Result, error)) (agentcore.Result, error) {
	c.mu.Lock()
	c.streamed = false
	c.mu.Unlock()
	res, err := c.interruptible(run)
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: %v\n", err)
		return res, err
	}
	if res.Error != "" {
		fmt.Fprintf(c.errw, "hermes: failed: %s\n", res.Error)
	}
	return res, nil
}

// printResult prints an answer that was not streamed.
func (c *cli) printResult(res agentcore.Result) {
	c.mu.Lock()
	streamed := c.streamed
	c.mu.Unlock()
	if !streamed && res.FinalResponse != "" && res.Error == "" {
		c.out.write(res.FinalResponse)
		streamed = true
	}
	if streamed {
		c.out.write("\n")
	}
}

// steerDuringTurn makes "/steer <text>" typed while conv's codex turn runs
// go into that turn at once; other lines wait for the prompt as before. It
// returns the function that ends this.
func (c *cli) steerDuringTurn(conv *agent.Conversation) (stop func()) {
	if !conv.OnCodex() {
		return func() {}
	}
	c.lines.intercept(func(line string) bool {
		name, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		if name != "/steer" || strings.TrimSpace(arg) == "" {
			return false
		}
		ctx, cancel := context.WithTimeout(c.ctx, steerTimeout)
		defer cancel()
		err := conv.CodexSteerRunning(ctx, strings.TrimSpace(arg))
		switch {
		case errors.Is(err, bridge.ErrNoTurn):
			// The turn is over (or not yet started): the prompt
			// gets the line and sends it as a message.
			return false
		case err != nil:
			fmt.Fprintf(c.errw, "\nhermes: /steer: %v\n", err)
		default:
			c.errw.write("\n↪ steered into the running turn\n")
		}
		return true
	})
	return func() { c.lines.intercept(nil) }
}
