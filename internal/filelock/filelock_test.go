package filelock

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestAcquireSerialises(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "c.toml"+Suffix)
	var inside, maxInside atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := Acquire(context.Background(), path, Options{})
			if err != nil {
				t.Error(err)
				return
			}
			n := inside.Add(1)
			if n > maxInside.Load() {
				maxInside.Store(n)
			}
			time.Sleep(5 * time.Millisecond)
			inside.Add(-1)
			if err := l.Release(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if maxInside.Load() != 1 {
		t.Fatalf("%d holders at once, want 1", maxInside.Load())
	}
}

func TestAcquireWaitHonoursContextAndSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.toml"+Suffix)
	held, err := Acquire(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var told string
	_, err = Acquire(ctx, path, Options{WaitNotice: 10 * time.Millisecond, Waiting: func(p string) { told = p }})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	if told != path {
		t.Errorf("Waiting got %q, want %q", told, path)
	}

	held.Release()
	l, err := Acquire(context.Background(), path, Options{})
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	l.Release()
}

// Remove while others wait: they must not end up holding locks on
// different files at once.
func TestRemoveWhileWaiting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.toml"+Suffix)
	var inside, maxInside atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := Acquire(context.Background(), path, Options{Poll: time.Millisecond})
			if err != nil {
				t.Error(err)
				return
			}
			if n := inside.Add(1); n > maxInside.Load() {
				maxInside.Store(n)
			}
			time.Sleep(3 * time.Millisecond)
			inside.Add(-1)
			if i%2 == 0 {
				err = l.Remove()
			} else {
				err = l.Release()
			}
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if maxInside.Load() != 1 {
		t.Fatalf("%d holders at once, want 1", maxInside.Load())
	}
}
