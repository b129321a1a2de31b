package agentcore

import (
	"context"
	"time"
)

// SessionMeta describes one conversation.
type SessionMeta struct {
	ID        string
	Source    string // "cli" for the hermes binary
	Model     string
	Provider  string
	Runtime   string // "native" or "codex_app_server"
	Title     string
	StartedAt time.Time
	// CodexThreadID is the codex thread backing the conversation on the
	// codex runtime, resumed with thread/resume.
	CodexThreadID string
}

// Store persists conversations so they can be searched and resumed. The
// agent works without one (nothing is kept).
type Store interface {
	CreateSession(ctx context.Context, s SessionMeta) error
	AppendMessages(ctx context.Context, sessionID string, msgs []Message) error
	SetCodexThread(ctx context.Context, sessionID, threadID string) error
	// LoadSession returns the session to resume; its ID may differ from
	// sessionID when the conversation went on in another session (Hermes'
	// context compression continues it in a child).
	LoadSession(ctx context.Context, sessionID string) (SessionMeta, []Message, error)
	// ReopenSession marks a resumed session live again; EndSession records
	// that a conversation ended (the first reason is kept).
	ReopenSession(ctx context.Context, sessionID string) error
	EndSession(ctx context.Context, sessionID, reason string) error
	Close() error
}
