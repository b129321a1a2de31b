package egress

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"math/big"
	"net"
	"sync"
	"time"
)

// minter makes the certificates the proxy shows the browser for the HTTPS
// hosts it reads. Every certificate carries one key, made when the proxy
// starts and never written anywhere; the browser is told to accept that
// key (Chromium's --ignore-certificate-errors-spki-list) and nothing else
// changes in how it trusts certificates. The key dies with the proxy, so a
// certificate it signed is worthless to anyone else.
type minter struct {
	key  *ecdsa.PrivateKey
	spki string

	mu    sync.Mutex
	certs map[string]*tls.Certificate
}

// maxMinted bounds the cache; a browsing session rarely meets this many
// hosts, and one that does pays one signature per host again.
const maxMinted = 1024

func newMinter() (*minter, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("egress: make the interception key: %w", err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("egress: encode the interception key: %w", err)
	}
	sum := sha256.Sum256(der)
	return &minter{key: key, spki: base64.StdEncoding.EncodeToString(sum[:]), certs: map[string]*tls.Certificate{}}, nil
}

// cert is the certificate for host (a name or an IP literal).
func (m *minter) cert(host string) (*tls.Certificate, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.certs[host]; ok && time.Until(c.Leaf.NotAfter) > 24*time.Hour {
		return c, nil
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host, Organization: []string{"hermes-tools egress proxy"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(7 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &m.key.PublicKey, m.key)
	if err != nil {
		return nil, fmt.Errorf("egress: make a certificate for %s: %w", host, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("egress: read back the certificate for %s: %w", host, err)
	}
	c := &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: m.key, Leaf: leaf}
	if len(m.certs) >= maxMinted {
		clear(m.certs)
	}
	m.certs[host] = c
	return c, nil
}
