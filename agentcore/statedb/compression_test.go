package statedb_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/statedb"
)

// The compression lease is Hermes': another holder's live row keeps it,
// an expired one is taken over, publishing needs it, and releasing frees
// it for the next.
func TestCompressionLease(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	home := t.TempDir()
	s := open(t, home, statedb.Options{Now: func() time.Time { return now }})
	if err := s.CreateSession(ctx, agentcore.SessionMeta{ID: "p", Model: "m", Title: "Plans"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessages(ctx, "p", conversation()); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.AcquireCompressionLock(ctx, "p", "other", time.Minute); !ok || err != nil {
		t.Fatalf("first lock: %v %v", ok, err)
	}
	if ok, _ := s.AcquireCompressionLock(ctx, "p", "me", time.Minute); ok {
		t.Fatal("a live lease of another holder was taken")
	}
	err := s.PublishCompressionChild(ctx, "p", "me", agentcore.SessionMeta{ID: "c"}, conversation()[:1])
	if !errors.Is(err, statedb.ErrCompressionBusy) {
		t.Fatalf("publish without the lease: %v", err)
	}
	now = now.Add(2 * time.Minute)
	if ok, err := s.AcquireCompressionLock(ctx, "p", "me", time.Minute); !ok || err != nil {
		t.Fatalf("an expired lease was not taken over: %v %v", ok, err)
	}
	if err := s.PublishCompressionChild(ctx, "p", "me", agentcore.SessionMeta{ID: "c"}, conversation()[:1]); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleaseCompressionLock(ctx, "p", "me"); err != nil {
		t.Fatal(err)
	}
	meta, msgs, err := s.LoadSession(ctx, "p")
	if err != nil || meta.ID != "c" || len(msgs) != 1 || meta.Title != "Plans" {
		t.Errorf("load the compressed session: %+v %d %v", meta, len(msgs), err)
	}
	if err := s.AppendMessages(ctx, "p", conversation()); !errors.Is(err, statedb.ErrCompressed) {
		t.Errorf("append to the compressed parent: %v", err)
	}
}
