package tlsutil

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// PEM holds a certificate and its private key, PEM-encoded.
type PEM struct {
	Cert []byte
	Key  []byte
}

// CAOptions describe a new CA.
type CAOptions struct {
	CommonName string
	// Days is how long the CA is valid from now.
	Days int
}

// CertOptions describe a new certificate.
type CertOptions struct {
	CommonName  string
	DNSNames    []string
	IPAddresses []net.IP
	// Days is how long the certificate is valid from now.
	Days int
	// ClientOnly leaves out the server usage: the certificate of a CLI,
	// which only ever dials.
	ClientOnly bool
}

// backdate starts a certificate's validity a little in the past, so that a
// peer whose clock lags a little accepts it at once.
const backdate = time.Minute

// GenerateCA makes a self-signed CA with an ECDSA P-256 key.
func GenerateCA(opts CAOptions) (PEM, error) {
	if opts.Days <= 0 {
		return PEM{}, fmt.Errorf("CA validity must be at least one day, not %d", opts.Days)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return PEM{}, fmt.Errorf("generate CA key: %w", err)
	}
	serial, err := newSerial()
	if err != nil {
		return PEM{}, err
	}
	skid, err := keyID(key.Public())
	if err != nil {
		return PEM{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: fmt.Sprintf("%s %s", opts.CommonName, serial)},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.AddDate(0, 0, opts.Days),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		SubjectKeyId:          skid,
		AuthorityKeyId:        skid,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return PEM{}, fmt.Errorf("sign CA certificate: %w", err)
	}
	return encode(der, key)
}

// GenerateCert makes a certificate for opts with an ECDSA P-256 key,
// signed by the CA in ca.
func GenerateCert(ca PEM, opts CertOptions) (PEM, error) {
	if opts.Days <= 0 {
		return PEM{}, fmt.Errorf("certificate validity must be at least one day, not %d", opts.Days)
	}
	caCert, caKey, err := parseCA(ca)
	if err != nil {
		return PEM{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return PEM{}, fmt.Errorf("generate key: %w", err)
	}
	serial, err := newSerial()
	if err != nil {
		return PEM{}, err
	}
	usage := []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	if !opts.ClientOnly {
		usage = append(usage, x509.ExtKeyUsageServerAuth)
	}
	now := time.Now()
	notAfter := now.AddDate(0, 0, opts.Days)
	if notAfter.After(caCert.NotAfter) {
		return PEM{}, fmt.Errorf("the certificate would outlive its CA, which expires %s: ask for fewer than %d days",
			caCert.NotAfter.Format(time.DateOnly), opts.Days)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: opts.CommonName},
		NotBefore:             now.Add(-backdate),
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           usage,
		BasicConstraintsValid: true,
		DNSNames:              opts.DNSNames,
		IPAddresses:           opts.IPAddresses,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, key.Public(), caKey)
	if err != nil {
		return PEM{}, fmt.Errorf("sign certificate: %w", err)
	}
	return encode(der, key)
}

// parseCA reads a CA certificate and its key.
func parseCA(ca PEM) (*x509.Certificate, crypto.Signer, error) {
	block, _ := pem.Decode(ca.Cert)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, nil, errors.New("the CA file holds no PEM certificate")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("parse CA certificate: %w", err)
	}
	if !cert.IsCA {
		return nil, nil, errors.New("the CA file's certificate is not a CA")
	}
	block, _ = pem.Decode(ca.Key)
	if block == nil {
		return nil, nil, errors.New("the CA key file holds no PEM key")
	}
	key, err := parsePrivateKey(block)
	if err != nil {
		return nil, nil, fmt.Errorf("parse CA key: %w", err)
	}
	pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(cert.PublicKey) {
		return nil, nil, errors.New("the CA key does not belong to the CA certificate")
	}
	return cert, key, nil
}

func parsePrivateKey(block *pem.Block) (crypto.Signer, error) {
	switch block.Type {
	case "EC PRIVATE KEY":
		return x509.ParseECPrivateKey(block.Bytes)
	case "PRIVATE KEY":
		key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, err
		}
		signer, ok := key.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("a %T cannot sign", key)
		}
		return signer, nil
	case "RSA PRIVATE KEY":
		return x509.ParsePKCS1PrivateKey(block.Bytes)
	}
	return nil, fmt.Errorf("a %q block is not a private key", block.Type)
}

func encode(der []byte, key *ecdsa.PrivateKey) (PEM, error) {
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return PEM{}, fmt.Errorf("encode key: %w", err)
	}
	return PEM{
		Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// newSerial is a random 128-bit serial number.
func newSerial() (*big.Int, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("generate serial number: %w", err)
	}
	return serial, nil
}

// keyID is the subject key identifier of pub: a hash of its encoding.
func keyID(pub crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("encode public key: %w", err)
	}
	sum := sha256.Sum256(der)
	return sum[:20], nil
}
