package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
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

// compress does the work with turnMu held.
func (c *Conversation) compress(ctx context.Context, set compress.Settings, focus string) (Compressed, error) {
	head, middle, tail := compress.Plan(c.history, set)
	if len(middle) == 0 {
		return Compressed{}, ErrNothingToCompress
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
			return Compressed{}, err
		}
		if !ok {
			return Compressed{}, fmt.Errorf("session %s is being compressed by another process; try again shortly", parent)
		}
		defer func() { _ = store.ReleaseCompressionLock(context.WithoutCancel(ctx), parent, holder) }()
	}
	sctx, cancel := context.WithTimeout(ctx, set.SummaryTimeout)
	defer cancel()
	summary, err := c.SideTask(sctx, native.AuxCompression, native.SideRequest{
		System: compress.SummarySystem, User: compress.SummaryInput(middle, focus),
	})
	if err != nil {
		return Compressed{}, fmt.Errorf("summary on auxiliary.compression: %w", err)
	}
	if strings.TrimSpace(summary) == "" {
		return Compressed{}, errors.New("the summary model answered with nothing")
	}
	next := make([]agentcore.Message, 0, len(head)+1+len(tail))
	next = append(append(append(next, head...), compress.SummaryMessage(summary)), tail...)
	out := Compressed{Summarised: len(middle), Before: compress.EstimateTokens(c.history...), After: compress.EstimateTokens(next...), SessionID: parent}
	if store != nil {
		child := c.meta
		child.ID = NewSessionID(time.Now())
		for child.ID == parent {
			child.ID = NewSessionID(time.Now())
		}
		if err := store.PublishCompressionChild(context.WithoutCancel(ctx), parent, holder, child, next); err != nil {
			return Compressed{}, err
		}
		c.meta.ID = child.ID
		out.SessionID = child.ID
	}
	c.history = next
	return out, nil
}

func lockHolder() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return fmt.Sprintf("hermes-go:%d:%s", os.Getpid(), hex.EncodeToString(b))
}
