// Package fakes3 runs an in-process S3 server for tests: github.com/johannesboyne/gofakes3
// with its in-memory backend behind net/http/httptest, listening on 127.0.0.1 only, so a test
// reads s3:// URLs with no network beyond the loopback. Only tests import it (internal/lint
// checks that), so the fake server never reaches the simulate binary.
package fakes3

import (
	"bytes"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Server is a running fake S3 server.
type Server struct {
	srv     *httptest.Server
	backend *s3mem.Backend
	t       testing.TB
}

// Start starts a server for the test (stopped by t.Cleanup) and sets the AWS environment of
// the test (t.Setenv) to fake static credentials, with the shared config and credentials files
// pointed at nothing and the EC2 instance metadata service disabled, so the AWS SDK neither
// reads the machine's ~/.aws nor looks for an instance role on the network.
func Start(t testing.TB) *Server {
	t.Helper()
	Isolate(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "fake-access-key")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "fake-secret-key")
	// The fake server sends no response checksums: validate them only when asked, or the SDK
	// warns on stderr for every object read.
	t.Setenv("AWS_RESPONSE_CHECKSUM_VALIDATION", "when_required")
	backend := s3mem.New()
	srv := httptest.NewServer(gofakes3.New(backend).Server()) // 127.0.0.1:0
	t.Cleanup(srv.Close)
	return &Server{srv: srv, backend: backend, t: t}
}

// Isolate sets the AWS environment of the test to no credentials at all: every AWS_ variable
// the SDK reads for credentials is empty, the shared files point at nothing and the EC2
// instance metadata service is disabled (so a missing credential fails at once, offline).
func Isolate(t testing.TB) {
	t.Helper()
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "",
		"AWS_PROFILE": "", "AWS_DEFAULT_PROFILE": "", "AWS_REGION": "", "AWS_DEFAULT_REGION": "",
		"AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_ROLE_ARN": "", "AWS_WEB_IDENTITY_TOKEN_FILE": "",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "", "AWS_CONTAINER_CREDENTIALS_FULL_URI": "",
		"AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_S3": "",
	} {
		t.Setenv(k, v)
	}
}

// URL is the s3:// URL of key in bucket on this server: the query points the s3blob driver
// at it (endpoint, path-style addressing, a region).
func (s *Server) URL(bucket, key string) string {
	u := "s3://" + bucket
	if key != "" {
		u += "/" + key
	}
	return u + "?" + s.Query()
}

// Query is the URL query that points the s3blob driver at this server.
func (s *Server) Query() string {
	return "endpoint=" + url.QueryEscape(s.srv.URL) + "&use_path_style=true&region=us-east-1"
}

// CreateBucket creates a bucket.
func (s *Server) CreateBucket(name string) {
	s.t.Helper()
	if err := s.backend.CreateBucket(name); err != nil {
		s.t.Fatal(err)
	}
}

// Put stores b at key in bucket.
func (s *Server) Put(bucket, key string, b []byte) {
	s.t.Helper()
	if _, err := s.backend.PutObject(bucket, key, map[string]string{}, bytes.NewReader(b), int64(len(b)), nil); err != nil {
		s.t.Fatal(err)
	}
}
