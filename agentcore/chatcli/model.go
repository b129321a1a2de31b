package chatcli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/agentcore/agent"
	"github.com/hermes-go/hermes/agentcore/runtimecfg"
)

// retry is /retry: the last message is taken back with its answer and
// sent again.
func (c *cli) retry(conv *agent.Conversation) {
	text, err := conv.Retry(c.ctx)
	if errors.Is(err, agent.ErrNothingToRetry) {
		c.out.write("No previous message to retry.\n")
		return
	}
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: /retry: %v\n", err)
		return
	}
	c.out.write("↻ Retrying: " + oneLine(text) + "\n")
	c.converse(conv, text)
}

// undo is /undo: the last message and its answer are taken back, on
// either runtime.
func (c *cli) undo(conv *agent.Conversation) {
	text, err := conv.Undo(c.ctx)
	if errors.Is(err, agent.ErrNothingToRetry) {
		c.out.write("Nothing to undo.\n")
		return
	}
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: /undo: %v\n", err)
		return
	}
	msg := "↩ Took back the last exchange"
	if text != "" {
		msg += ": " + oneLine(text)
	}
	if conv.OnCodex() {
		msg += " (codex forgot the turn; files it changed are unchanged)"
	}
	c.out.write(msg + "\n")
}

// model is /model [name] [--provider name] [--global]: shows the model,
// or moves the rest of this session to another one; --global also makes
// it config.yaml's model.default (and model.provider), for every session.
func (c *cli) model(conv *agent.Conversation, arg string) {
	var name, provider string
	var global bool
	fields := strings.Fields(arg)
	for i := 0; i < len(fields); i++ {
		switch f := fields[i]; {
		case f == "--provider" && i+1 < len(fields):
			provider = fields[i+1]
			i++
		case strings.HasPrefix(f, "--provider="):
			provider = strings.TrimPrefix(f, "--provider=")
		case f == "--global":
			global = true
		case strings.HasPrefix(f, "--"):
			fmt.Fprintf(c.errw, "hermes: /model: unknown option %s (usage: /model [name] [--provider name] [--global])\n", f)
			return
		case name == "":
			name = f
		default:
			fmt.Fprintf(c.errw, "hermes: /model: one model name, not %q (usage: /model [name] [--provider name] [--global])\n", arg)
			return
		}
	}
	if name == "" && provider == "" {
		if global {
			fmt.Fprintln(c.errw, "hermes: /model --global needs a model name (usage: /model NAME [--provider name] --global)")
			return
		}
		m := conv.Meta()
		c.out.write(fmt.Sprintf("Model: %s (provider %s) on the %s runtime\n", m.Model, m.Provider, m.Runtime))
		return
	}
	if global && conv.OnCodex() {
		// Codex takes its model when a thread starts: saved, it applies
		// from the next conversation.
		if name == "" {
			fmt.Fprintln(c.errw, "hermes: /model --global needs a model name (usage: /model NAME [--provider name] --global)")
			return
		}
		if err := runtimecfg.SaveModel(c.ctx, c.home, name, provider, provider != ""); err != nil {
			fmt.Fprintf(c.errw, "hermes: /model: %v\n", err)
			return
		}
		c.out.write(fmt.Sprintf("Saved %s as model.default in config.yaml; the codex runtime uses it from the next conversation (/new).\n", name))
		return
	}
	m, err := conv.SwitchModel(name, provider)
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: /model: %v\n", err)
		return
	}
	if !global {
		c.out.write(fmt.Sprintf("Model switched to %s (provider %s) for this session.\n", m.Model, m.Provider))
		return
	}
	if err := runtimecfg.SaveModel(c.ctx, c.home, m.Model, m.Provider, provider != ""); err != nil {
		fmt.Fprintf(c.errw, "hermes: /model: switched for this session, but not saved: %v\n", err)
		return
	}
	c.out.write(fmt.Sprintf("Model switched to %s (provider %s), and saved in config.yaml for every session.\n", m.Model, m.Provider))
}
