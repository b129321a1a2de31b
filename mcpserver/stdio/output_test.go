package stdio

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"
)

// Lines written before a held place that is filled with nothing (a
// notification that did not encode, or never came) are flushed, not left
// in the buffer until some later output.
func TestEmptySlotDoesNotHoldBackEarlierLines(t *testing.T) {
	pr, pw := io.Pipe()
	o := newOutput(pw)
	go o.run()
	defer func() { o.close(); pw.Close() }()
	first := o.reserve()
	o.send([]byte(`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"the response"}}` + "\n"))
	second := o.reserve()
	first([]byte(`{"jsonrpc":"2.0","method":"notifications/message"}` + "\n"))
	second(nil)
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, "the response") {
				return
			}
		case <-deadline:
			t.Fatal("the response stayed in the buffer")
		}
	}
}

// A held place keeps its position: what fills it later is written before
// the lines queued after it.
func TestReserveKeepsOrder(t *testing.T) {
	pr, pw := io.Pipe()
	o := newOutput(pw)
	go o.run()
	fill := o.reserve()
	o.send([]byte("second\n"))
	go func() {
		time.Sleep(20 * time.Millisecond)
		fill([]byte("first\n"))
		o.close()
		// The pipe ends only when the writer is closed: after the
		// output has written all it holds.
		<-o.done
		pw.Close()
	}()
	got, err := io.ReadAll(pr)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "first\nsecond\n" {
		t.Errorf("output %q, want the held line first", got)
	}
}
