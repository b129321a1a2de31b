package sessionstate

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
)

type closer struct {
	name string
	log  *[]string
	mu   *sync.Mutex
}

func (c closer) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.log = append(*c.log, c.name)
	return nil
}

func TestValueIsMadeOncePerSessionAndReleasedOnClose(t *testing.T) {
	var mu sync.Mutex
	var closed []string
	st := New("s1")
	ctx := NewContext(context.Background(), st)
	if FromContext(ctx) != st || FromContext(context.Background()) != nil {
		t.Fatal("FromContext does not return the state put in")
	}
	var wg sync.WaitGroup
	made := 0
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := st.Value("a", func() (any, error) { made++; return closer{"a", &closed, &mu}, nil }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if made != 1 {
		t.Errorf("create ran %d times, want 1", made)
	}
	if _, err := st.Value("b", func() (any, error) { return closer{"b", &closed, &mu}, nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Value("c", func() (any, error) { return nil, errors.New("boom") }); err == nil {
		t.Error("a failed create was not reported")
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(closed, []string{"b", "a"}) {
		t.Errorf("closed %v, want [b a] (last made first, once)", closed)
	}
	if _, err := st.Value("a", func() (any, error) { return 1, nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("Value after Close = %v, want ErrClosed", err)
	}
}
