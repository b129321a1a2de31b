package browser

// BrowserPID is the pid of the Chromium the session launched (the leader of
// its process group), 0 while none runs or when attached: the tests kill it
// to stand for a browser that crashed or was OOM-killed.
func BrowserPID(s *Session) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.br == nil {
		return 0
	}
	return s.br.pid
}
