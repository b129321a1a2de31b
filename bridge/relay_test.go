package bridge

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
)

// The relay: the test binary re-executed in mode "relay" connects its stdin
// and stdout to a scripted app-server running inside the test (script_test.go)
// over a TCP connection on 127.0.0.1. The script is ordinary Go code in the
// test, so every edge case is easy to stage, while codex's side is still a
// real child process whose exits, kills and stderr are real.
//
// Lines from the script that start with relayCtl are commands for the relay
// rather than protocol: "stderr <text>" writes a line to stderr, "exit <code>"
// exits.
const (
	relayAddrEnv = "BRIDGE_TEST_RELAY_ADDR"
	relayCtl     = "\x00relay "
)

func runRelay() int {
	conn, err := net.Dial("tcp", os.Getenv(relayAddrEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		return 1
	}
	go func() {
		// Like codex: stdin EOF means the client is done. Tell the
		// script, which then hangs up, which ends the relay.
		_, _ = io.Copy(conn, os.Stdin)
		_ = conn.(*net.TCPConn).CloseWrite()
	}()
	out := bufio.NewWriter(os.Stdout)
	sc := bufio.NewScanner(conn)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Bytes()
		if cmd, ok := bytes.CutPrefix(line, []byte(relayCtl)); ok {
			verb, arg, _ := bytes.Cut(cmd, []byte(" "))
			switch string(verb) {
			case "stderr":
				fmt.Fprintf(os.Stderr, "%s\n", arg)
			case "exit":
				code, _ := strconv.Atoi(string(arg))
				out.Flush()
				os.Exit(code)
			}
			continue
		}
		out.Write(line)
		out.WriteByte('\n')
		out.Flush()
	}
	return 0
}
