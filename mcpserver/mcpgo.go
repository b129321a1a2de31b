package mcpserver

// The methods mcp-go answers (see newRoutes), and the notifications it
// sends a session. mcp-go reads a numeric id into a float64 (losing digits
// past 2^53, so distinct ids would collide in its maps) and would write
// that back; so it is given an internal id, a string holding the client's
// token, and the response's id is written from the client's own.

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/hermes-go/hermes/mcpserver/jsonrpc"
)

// viaMCPGo has mcp-go answer a message.
func (s *Server) viaMCPGo(ctx context.Context, sess *session, msg *jsonrpc.Message, _ func([]byte)) []byte {
	var internal json.RawMessage
	if msg.Kind == jsonrpc.KindRequest {
		internal = internalID(msg.ID)
	}
	resp := s.mcp.HandleMessage(s.mcp.WithContext(ctx, sess), mcpLine(msg, internal))
	if resp == nil || msg.Kind != jsonrpc.KindRequest {
		return nil
	}
	var member string
	var value any
	switch r := resp.(type) {
	case mcp.JSONRPCResponse:
		member, value = "result", withClientSubscriptionID(r.Result)
	case mcp.JSONRPCError:
		member, value = "error", r.Error
	default:
		s.log.Error("unexpected mcp-go response", "method", msg.Method, "type", resp)
		return jsonrpc.AppendError(nil, msg.ID, jsonrpc.CodeInternalError, "Internal error: unexpected response type", nil)
	}
	enc, err := jsonrpc.Encode(value)
	if err != nil {
		s.log.Error("encode mcp-go response", "method", msg.Method, "err", err)
		return jsonrpc.AppendError(nil, msg.ID, jsonrpc.CodeInternalError, "Internal error: encode result: "+err.Error(), nil)
	}
	return jsonrpc.AppendResponse(nil, msg.ID, member, enc)
}

// mcpLine is the message mcp-go is given: the members it reads, by their
// exact names, with the client's id replaced by an internal one (nil for a
// notification).
func mcpLine(msg *jsonrpc.Message, id json.RawMessage) []byte {
	method, _ := json.Marshal(msg.Method) // a string always encodes
	b := make([]byte, 0, len(msg.Version)+len(id)+len(method)+len(msg.Params)+48)
	b = append(b, '{')
	add := func(name string, v []byte) {
		if v == nil {
			return
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		b = append(b, v...)
	}
	add("jsonrpc", msg.Version)
	add("id", id)
	add("method", method)
	add("params", msg.Params)
	return append(b, '}')
}

// internalPrefix marks the id mcp-go is given in place of the client's.
const internalPrefix = "hermes-stdio-id:"

// internalID is the id mcp-go sees in place of the client's. The response's
// id is written from the client's, so this string reaches the wire only
// where mcp-go copies the id into a payload (the subscriptionId of
// subscriptions/listen), and there clientID turns it back into the
// client's token. Two calls in flight never share a token (jsonrpc.Calls),
// so neither do their internal ids.
func internalID(id jsonrpc.ID) json.RawMessage {
	b, _ := json.Marshal(internalPrefix + string(id.Raw())) // a string always encodes
	return b
}

// clientID recovers the client's token from an id mcp-go copied into a
// payload.
func clientID(v any) (json.RawMessage, bool) {
	s, ok := v.(string)
	if !ok {
		return nil, false
	}
	raw, ok := strings.CutPrefix(s, internalPrefix)
	if !ok {
		return nil, false
	}
	return json.RawMessage(raw), true
}

// withClientSubscriptionID puts the client's id back into the
// subscriptionId of a subscriptions/listen result, where mcp-go copies the
// id it was given.
func withClientSubscriptionID(result any) any {
	var sr mcp.SubscriptionsListenResult
	switch v := result.(type) {
	case mcp.SubscriptionsListenResult:
		sr = v
	case *mcp.SubscriptionsListenResult:
		if v == nil {
			return result
		}
		sr = *v
	default:
		return result
	}
	raw, ok := clientID(sr.Meta.GetMetaField(mcp.MetaKeySubscriptionID))
	if !ok {
		return result
	}
	sr.Meta = &mcp.Meta{ProgressToken: sr.Meta.ProgressToken, AdditionalFields: maps.Clone(sr.Meta.AdditionalFields)}
	sr.Meta.AdditionalFields[mcp.MetaKeySubscriptionID] = raw
	return sr
}

// slotTimeout guards the one assumption NotificationChannel rests on: that
// mcp-go sends exactly once on every channel it asks for. Should a future
// mcp-go ask without sending, the place held for it is given up after this
// long instead of stalling the session's output.
const slotTimeout = 2 * time.Second

// NotificationChannel is where mcp-go sends the session a notification
// (resources/list_changed, a subscription's acknowledgement). mcp-go sends
// with a non-blocking send and drops what does not fit, so every call hands
// out a fresh one-slot channel whose place in the session's output is held
// at once: the send always succeeds, nothing is dropped, and a
// notification a call causes is written before that call's response.
func (sess *session) NotificationChannel() chan<- mcp.JSONRPCNotification {
	ch := make(chan mcp.JSONRPCNotification, 1)
	fill := sess.reserve()
	go func() {
		timer := time.NewTimer(slotTimeout)
		defer timer.Stop()
		select {
		case n := <-ch:
			fill(sess.srv.notificationLine(n))
		case <-timer.C:
			sess.srv.log.Warn("notification slot never filled; skipped (mcp-go behaviour changed?)")
			fill(nil)
		}
	}()
	return ch
}

// notificationLine encodes a notification from mcp-go, with the client's
// own id where mcp-go tagged a subscription's messages with its internal
// one; nil when it does not encode.
func (s *Server) notificationLine(n mcp.JSONRPCNotification) []byte {
	if raw, ok := clientID(n.Params.Meta[mcp.MetaKeySubscriptionID]); ok {
		meta := maps.Clone(n.Params.Meta)
		meta[mcp.MetaKeySubscriptionID] = raw
		n.Params.Meta = meta
	}
	line, err := jsonrpc.Encode(n)
	if err != nil {
		s.log.Error("encode notification", "method", n.Method, "err", err)
		return nil
	}
	return jsonrpc.Finish(append(line, '\n'))
}
