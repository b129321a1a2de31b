package codexrt

import (
	"errors"
	"net/http"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/bridge"
)

// classifyTurnError sorts a failed codex turn the way the native runtime
// sorts a failed model call, so a kanban worker on either runtime exits
// with the status the dispatcher books: an expired login or a model API
// that rejects the credentials is terminal (retrying cannot help); a
// usage limit, an overloaded or failing model API and a broken stream
// are transient. Everything else (a bad request, a context too long,
// codex dying or going silent, the turn deadline) is a plain failure,
// which the dispatcher counts against the task's limit.
func classifyTurnError(err error) string {
	var te *bridge.TurnError
	if !errors.As(err, &te) {
		return ""
	}
	switch te.Kind {
	case bridge.TurnErrAuth:
		// The login guess reads codex's stderr too; codex's own code, when
		// it names another failure, decides.
		if te.Code == "" || te.Code == "unauthorized" {
			return agentcore.ErrorTerminal
		}
	case bridge.TurnErrLimit:
		return agentcore.ErrorTransient
	case bridge.TurnErrFailed:
	default:
		return ""
	}
	switch te.Code {
	case "unauthorized":
		return agentcore.ErrorTerminal
	case "usageLimitExceeded", "serverOverloaded", "internalServerError":
		return agentcore.ErrorTransient
	case "httpConnectionFailed", "responseStreamConnectionFailed", "responseStreamDisconnected", "responseTooManyFailedAttempts":
		switch code := te.HTTPStatus; {
		case code == http.StatusUnauthorized || code == http.StatusForbidden || code == http.StatusNotFound:
			return agentcore.ErrorTerminal
		case code == 0 || code == http.StatusTooManyRequests || code == http.StatusPaymentRequired ||
			code == http.StatusRequestTimeout || code >= 500:
			// No status: the connection or the stream itself failed.
			return agentcore.ErrorTransient
		}
	}
	return ""
}
