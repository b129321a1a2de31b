package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// MethodFunc serves one request of a method listed in Options.Methods.
// params is the request's params member as sent (nil when absent). The
// result is encoded as the response's result and must encode as a JSON
// object. An *Error (found with errors.As) chooses the JSON-RPC error;
// any other error is answered as an internal error.
//
// ctx is cancelled when the client cancels the request or the connection
// ends; the loop then writes no response. It carries the request's
// protocol information as mcp-go would: server.IsModernRequest and
// server.RequestProtocolVersion work on it.
type MethodFunc func(ctx context.Context, params json.RawMessage) (any, error)

// Encoded is a MethodFunc result that is already encoded: one compact JSON
// object on one line (no raw line breaks). It is written as it is, which
// spares a large result a second encoding pass; the method vouches for it.
type Encoded []byte

// Error is a JSON-RPC error returned by a MethodFunc.
type Error struct {
	Code    int
	Message string
	// Data is sent as the error's data member unless nil.
	Data any
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidParams is the JSON-RPC code for a request whose params are wrong,
// which MCP also uses for unknown resources from 2026-07-28 on.
const InvalidParams = -32602

// resultBody is a success response's result, already encoded.
type resultBody json.RawMessage

// serveMethod answers a request with fn and returns the response's body.
// It checks the envelope and the protocol metadata the way mcp-go's
// HandleMessage does for its own methods, so a client cannot tell the two
// apart.
func (c *conn) serveMethod(ctx context.Context, fn MethodFunc, m members) any {
	var version string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != mcp.JSONRPC_VERSION {
		return errorBody{Code: codeInvalidRequest, Message: "Invalid JSON-RPC version"}
	}
	params := m["params"]
	if isNull(params) {
		params = nil
	}
	info, rpcErr := protocolInfo(ctx, params)
	if rpcErr != nil {
		return methodError(rpcErr)
	}
	ctx = server.WithRequestProtocolInfo(ctx, info)

	result, err := fn(ctx, params)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return methodError(e)
		}
		c.log.Error("method failed", "err", err)
		return errorBody{Code: codeInternalError, Message: err.Error()}
	}
	var raw json.RawMessage
	if enc, ok := result.(Encoded); ok {
		raw = json.RawMessage(enc)
	} else {
		raw, err = encodeResult(result)
	}
	if err == nil && info.Modern {
		raw, err = c.decorate(raw)
	}
	if err != nil {
		c.log.Error("encode method result", "err", err)
		return errorBody{Code: codeInternalError, Message: fmt.Sprintf("Internal error: encode result: %v", err)}
	}
	return resultBody(raw)
}

// protocolInfo reads the request's era from params._meta, with mcp-go's
// rules: a request is modern when it declares 2026-07-28 or later, and a
// modern request must name a version this server speaks and carry its
// client capabilities.
func protocolInfo(ctx context.Context, params json.RawMessage) (*server.RequestProtocolInfo, *Error) {
	var p struct {
		Meta *mcp.Meta `json:"_meta"`
	}
	if len(params) > 0 && json.Unmarshal(params, &p) != nil {
		// Params that are not an object are the method's to reject.
		return &server.RequestProtocolInfo{}, nil
	}
	version := p.Meta.ProtocolVersion()
	if !mcp.IsModernProtocol(version) {
		return &server.RequestProtocolInfo{ProtocolVersion: version}, nil
	}
	if !mcp.IsValidProtocolVersion(version) {
		e := mcp.UnsupportedProtocolVersionError{Version: version, Supported: server.SupportedProtocolVersionsFromContext(ctx)}
		details := e.JSONRPCError().Error
		return nil, &Error{Code: details.Code, Message: details.Message, Data: details.Data}
	}
	caps := p.Meta.ClientCapabilities()
	if caps == nil {
		return nil, Errorf(InvalidParams, "missing or invalid _meta field %s", mcp.MetaKeyClientCapabilities)
	}
	return &server.RequestProtocolInfo{
		Modern:             true,
		ProtocolVersion:    version,
		ClientInfo:         p.Meta.ClientInfo(),
		ClientCapabilities: caps,
		LogLevel:           p.Meta.LogLevel(),
	}, nil
}

func methodError(e *Error) errorBody {
	return errorBody{Code: e.Code, Message: e.Message, Data: e.Data}
}

// encodeResult encodes a result without HTML escaping, like every other
// line the loop writes.
func encodeResult(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// decorate adds what 2026-07-28 requires of every result and mcp-go adds to
// its own: resultType "complete" and the server's identity in _meta. Values
// the method set itself are kept. Method-specific members (such as the
// caching hints of list and read results) are the method's to set.
func (c *conn) decorate(raw json.RawMessage) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, errors.New("result is not a JSON object")
	}
	if _, ok := obj["resultType"]; !ok {
		obj["resultType"] = json.RawMessage(`"` + mcp.ResultTypeComplete + `"`)
	}
	meta := map[string]json.RawMessage{}
	if m, ok := obj["_meta"]; ok && !isNull(m) {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, fmt.Errorf("result _meta is not an object: %w", err)
		}
	}
	if _, ok := meta[mcp.MetaKeyServerInfo]; !ok {
		info, err := encodeResult(c.info)
		if err != nil {
			return nil, err
		}
		meta[mcp.MetaKeyServerInfo] = info
		if obj["_meta"], err = encodeResult(meta); err != nil {
			return nil, err
		}
	}
	return encodeResult(obj)
}
