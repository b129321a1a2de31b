package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/compress"
	"github.com/hermes-go/hermes/agentcore/native"
)

// compressionStore is a Store that can hand a compressed conversation on
// to a continuation session the way Hermes does (statedb.Store).
type compressionStore interface {
	AcquireCompressionLock(ctx context.Context, sessionID, holder string, ttl time.Duration) (bool, error)
	ReleaseCompressionLock(ctx context.Context, sessionID, holder string) error
	PublishCompressionChild(ctx context.Context, parentID, holder string, child agentcore.SessionMeta, msgs []agentcore.Message) error
}

// compressionLease is how long the compression lock is held at most: the
// original's lease time.
const compressionLease = 300 * time.Second

// Compressed says what a compression did.
type Compressed struct {
	// Summarised is how many messages the summary replaced.
	Summarised int
	// Before and After are the estimated tokens of the transcript.
	Before, After int
	// SessionID is the session the conversation goes on in; it differs
	// from the old one when the store handed the conversation on.
	SessionID string
}

// ErrNothingToCompress is returned when the transcript is all head and
// tail.
var ErrNothingToCompress = errors.New("nothing to compress yet: the conversation is within the messages compression keeps")

// Compress summarises the middle of the conversation now (/compress),
// with an optional focus for the summary.
func (c *Conversation) Compress(ctx context.Context, focus string) (Compressed, error) {
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	if c.codex != nil {
		return Compressed{}, errors.New("/compress works on the native runtime; codex compacts its own thread")
	}
	set, err := compress.LoadSettings(c.opts.HermesHome)
	if err != nil {
		return Compressed{}, err
	}
	return c.compress(ctx, set, focus)
}

// autoCompress compresses before a turn whose request would pass the
// threshold, as the original does when the context fills up. Failures
// are notices: the turn goes on with the whole transcript.
func (c *Conversation) autoCompress(ctx context.Context, next string) {
	set, err := compress.LoadSettings(c.opts.HermesHome)
	if err != nil {
		c.notice(fmt.Sprintf("compression settings ignored: %v", err))
		return
	}
	if !set.Enabled {
		return
	}
	size := compress.EstimateTokens(c.history...) + compress.EstimateTokens(agentcore.Message{Role: "user", Content: next}) +
		len(c.nativeOpts.SystemPrompt)/4
	if size < set.ThresholdTokens() {
		return
	}
	done, err := c.compress(ctx, set, "")
	switch {
	case errors.Is(err, ErrNothingToCompress):
	case err != nil:
		c.notice(fmt.Sprintf("context compression failed, the conversation goes on uncompressed: %v", err))
	default:
		c.notice(fmt.Sprintf("context compressed: %d messages summarised (~%d → ~%d tokens); the conversation goes on in session %s",
			done.Summarised, done.Before, done.After, done.SessionID))
	}
}

// turnMarks are positions in a native turn's transcript: where the
// messages not yet in the store begin, and the turn's request; spent says
// a compression in this turn could not bring it under the threshold.
type turnMarks struct {
	recorded, request int
	spent             bool
	// stored is what a compression stored of this turn before its end.
	stored []agentcore.Message
}

// midTurnCompress compresses between the model calls of one turn when a
// tool round has grown the transcript past the threshold, as the original
// does: a long run of tool calls must not outgrow the context window. What
// the turn said so far is stored in the session it was said in first, and
// the turn's request survives verbatim after the summary, so the model
// still knows its task. It runs inside Turn, with turnMu held; nil means
// go on as is.
func (c *Conversation) midTurnCompress(ctx context.Context, msgs []agentcore.Message) []agentcore.Message {
	set, err := compress.LoadSettings(c.opts.HermesHome)
	if err != nil || !set.Enabled {
		return nil
	}
	prompt := len(c.nativeOpts.SystemPrompt) / 4
	if c.turn.spent || compress.EstimateTokens(msgs...)+prompt < set.ThresholdTokens() {
		return nil
	}
	// Whatever happens next, one try a turn: a summary that failed or
	// that cannot bring the turn under the threshold would otherwise be
	// attempted again before every call.
	c.turn.spent = true
	if c.store != nil && len(msgs) > c.turn.recorded {
		if err := c.store.AppendMessages(context.WithoutCancel(ctx), c.meta.ID, msgs[c.turn.recorded:]); err != nil {
			c.notice(fmt.Sprintf("could not save this turn so far, so it is not compressed: %v", err))
			return nil
		}
	}
	// The stored part's tool calls still count for the turn (the memory
	// and skill nudges read them).
	c.turn.stored = append(c.turn.stored, msgs[c.turn.recorded:]...)
	c.turn.recorded = len(msgs)
	next, done, request, err := c.compactInto(ctx, set, msgs, "", c.turn.request)
	switch {
	case errors.Is(err, ErrNothingToCompress):
		return nil
	case err != nil:
		c.notice(fmt.Sprintf("context compression during the turn failed, the turn goes on uncompressed: %v", err))
		return nil
	}
	c.history = next
	// Another compression in this turn only while one can bring it under
	// the threshold.
	c.turn.recorded, c.turn.request = len(next), request
	c.turn.spent = done.After+prompt >= set.ThresholdTokens()
	c.notice(fmt.Sprintf("context compressed during the turn: %d messages summarised (~%d → ~%d tokens); the conversation goes on in session %s",
		done.Summarised, done.Before, done.After, done.SessionID))
	return next
}

// compress does the work with turnMu held.
func (c *Conversation) compress(ctx context.Context, set compress.Settings, focus string) (Compressed, error) {
	next, out, _, err := c.compactInto(ctx, set, c.history, focus, -1)
	if err != nil {
		return out, err
	}
	c.history = next
	return out, nil
}

// inProgressNote ends a summary written in the middle of a turn.
const inProgressNote = "Note: the request after this summary is still in progress; " +
	"the summary records the work already done on it in this turn. Continue it from there."

// compactInto summarises the middle of msgs and hands the conversation on
// to a continuation session holding the result. keep, when not -1, is a
// message that must stay verbatim (a turn's request): one the plan would
// summarise is put back right after the summary. It returns the new
// transcript and where keep now is.
func (c *Conversation) compactInto(ctx context.Context, set compress.Settings, msgs []agentcore.Message, focus string, keep int) (
	[]agentcore.Message, Compressed, int, error) {
	head, middle, tail := compress.Plan(msgs, set)
	if len(middle) == 0 {
		return nil, Compressed{}, keep, ErrNothingToCompress
	}
	var kept []agentcore.Message
	newKeep := keep
	switch t := len(head) + len(middle); {
	case keep < len(head):
	case keep < t:
		kept = []agentcore.Message{msgs[keep]}
		middle = slices.Delete(slices.Clone(middle), keep-len(head), keep-len(head)+1)
		if len(middle) == 0 {
			return nil, Compressed{}, keep, ErrNothingToCompress
		}
		newKeep = len(head) + 1
	default:
		newKeep = len(head) + 1 + (keep - t)
	}
	parent := c.meta.ID
	store, _ := c.store.(compressionStore)
	if c.store == nil {
		store = nil
	}
	holder := lockHolder()
	if store != nil {
		ok, err := store.AcquireCompressionLock(ctx, parent, holder, compressionLease)
		if err != nil {
			return nil, Compressed{}, keep, err
		}
		if !ok {
			return nil, Compressed{}, keep, fmt.Errorf("session %s is being compressed by another process; try again shortly", parent)
		}
		defer func() { _ = store.ReleaseCompressionLock(context.WithoutCancel(ctx), parent, holder) }()
	}
	sctx, cancel := context.WithTimeout(ctx, set.SummaryTimeout)
	defer cancel()
	summary, err := c.SideTask(sctx, native.AuxCompression, native.SideRequest{
		System: compress.SummarySystem, User: compress.SummaryInput(middle, focus),
	})
	if err != nil {
		return nil, Compressed{}, keep, fmt.Errorf("summary on auxiliary.compression: %w", err)
	}
	if strings.TrimSpace(summary) == "" {
		return nil, Compressed{}, keep, errors.New("the summary model answered with nothing")
	}
	if len(kept) > 0 {
		// The summary covers work on the request that follows it, which
		// the summary's own preamble would call already addressed.
		summary += "\n\n" + inProgressNote
	}
	next := make([]agentcore.Message, 0, len(head)+2+len(tail))
	next = append(append(append(append(next, head...), compress.SummaryMessage(summary)), kept...), tail...)
	out := Compressed{Summarised: len(middle), Before: compress.EstimateTokens(msgs...), After: compress.EstimateTokens(next...), SessionID: parent}
	if store != nil {
		child := c.meta
		child.ID = NewSessionID(time.Now())
		for child.ID == parent {
			child.ID = NewSessionID(time.Now())
		}
		if err := store.PublishCompressionChild(context.WithoutCancel(ctx), parent, holder, child, next); err != nil {
			return nil, Compressed{}, keep, err
		}
		c.meta.ID = child.ID
		out.SessionID = child.ID
	}
	return next, out, newKeep, nil
}

func lockHolder() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("hermes-go:%d:%s", os.Getpid(), hex.EncodeToString(b))
}
