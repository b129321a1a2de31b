// Package contain keeps a panic on a goroutine a toolset starts from taking
// the whole server down. Tool handlers are already contained by the server
// (a panic becomes an isError result); these helpers cover the goroutines
// a toolset starts itself and the callbacks it hands to a library that
// runs them on goroutines of its own (chromedp's event listeners). A
// recovered panic is logged with its stack: it is still a bug, but one the
// user's other tools and the session survive.
package contain

import (
	"fmt"
	"log/slog"
	"runtime/debug"
)

// Go runs fn on a new goroutine, recovering and logging a panic.
func Go(log *slog.Logger, what string, fn func()) {
	go func() {
		defer recoverTo(log, what)
		fn()
	}()
}

// Call runs fn and returns its error, or the panic as an error: for work
// whose result someone waits for, so that a panic still ends the wait.
func Call(log *slog.Logger, what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			logPanic(log, what, r)
			err = fmt.Errorf("%s: internal error (panic: %v)", what, r)
		}
	}()
	return fn()
}

// Func wraps a callback another goroutine runs, recovering and logging a
// panic in it.
func Func[T any](log *slog.Logger, what string, fn func(T)) func(T) {
	return func(v T) {
		defer recoverTo(log, what)
		fn(v)
	}
}

func recoverTo(log *slog.Logger, what string) {
	if r := recover(); r != nil {
		logPanic(log, what, r)
	}
}

func logPanic(log *slog.Logger, what string, r any) {
	if log == nil {
		log = slog.Default()
	}
	log.Error("recovered from a panic; the server carries on", "in", what, "panic", r, "stack", string(debug.Stack()))
}
