package codexrt

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/bridge"
)

// The kinds the real codex does not readily produce against the fake
// model (TestCodexWorkerProviderFailures drives the ones it does).
func TestClassifyTurnError(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{&bridge.TurnError{Kind: bridge.TurnErrLimit}, agentcore.ErrorTransient},
		{fmt.Errorf("wrapped: %w", &bridge.TurnError{Kind: bridge.TurnErrAuth}), agentcore.ErrorTerminal},
		{&bridge.TurnError{Kind: bridge.TurnErrFailed, Code: "unauthorized"}, agentcore.ErrorTerminal},
		{&bridge.TurnError{Kind: bridge.TurnErrFailed, Code: "serverOverloaded"}, agentcore.ErrorTransient},
		{&bridge.TurnError{Kind: bridge.TurnErrFailed, Code: "responseStreamDisconnected"}, agentcore.ErrorTransient},
		{&bridge.TurnError{Kind: bridge.TurnErrFailed, Code: "httpConnectionFailed"}, agentcore.ErrorTransient},
		{&bridge.TurnError{Kind: bridge.TurnErrFailed, Code: "httpConnectionFailed", HTTPStatus: 403}, agentcore.ErrorTerminal},
		{&bridge.TurnError{Kind: bridge.TurnErrFailed, Code: "httpConnectionFailed", HTTPStatus: 422}, ""},
		{&bridge.TurnError{Kind: bridge.TurnErrFailed, Code: "responseStreamConnectionFailed", HTTPStatus: 403}, agentcore.ErrorTerminal},
		{&bridge.TurnError{Kind: bridge.TurnErrFailed, Code: "responseTooManyFailedAttempts", HTTPStatus: 400}, ""},
		{&bridge.TurnError{Kind: bridge.TurnErrFailed, Code: "responseTooManyFailedAttempts", HTTPStatus: 429}, agentcore.ErrorTransient},
		// A login guess from stderr does not outrank codex's own code.
		{&bridge.TurnError{Kind: bridge.TurnErrAuth, Code: "internalServerError"}, agentcore.ErrorTransient},
		{&bridge.TurnError{Kind: bridge.TurnErrAuth, Code: "badRequest"}, ""},
		{&bridge.TurnError{Kind: bridge.TurnErrFailed, Code: "contextWindowExceeded"}, ""},
		{&bridge.TurnError{Kind: bridge.TurnErrFailed, Code: "other"}, ""},
		{&bridge.TurnError{Kind: bridge.TurnErrTimeout}, ""},
		{&bridge.TurnError{Kind: bridge.TurnErrExited, Code: "internalServerError"}, ""},
		{errors.New("not a turn error"), ""},
	}
	for _, tt := range tests {
		if got := classifyTurnError(tt.err); got != tt.want {
			t.Errorf("%#v: %q, want %q", tt.err, got, tt.want)
		}
	}
}
