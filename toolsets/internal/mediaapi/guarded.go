package mediaapi

import (
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/hermes-go/hermes/internal/urlguard"
)

// GuardedClient fetches URLs a model supplies: the dialer enforces the URL
// policy on every connection, redirects are re-checked, and there is no
// proxy (it would be what the dialer checks).
func GuardedClient(p urlguard.Policy, r urlguard.Resolver) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&urlguard.Dialer{Policy: p, Resolver: r, Net: &net.Dialer{Timeout: 10 * time.Second}}).DialContext,
			TLSHandshakeTimeout: 10 * time.Second,
			DisableKeepAlives:   true,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			_, err := urlguard.CheckURL(req.Context(), req.URL.String(), p, nil)
			return err
		},
	}
}
