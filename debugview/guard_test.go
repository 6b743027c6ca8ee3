package debugview

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/blackboard"
)

// TestHostHeader: a request addressed to a foreign host name (a DNS
// rebinding page) is answered 421 and gets no CORS header; localhost, IP
// addresses, the listen host and listed names are served.
func TestHostHeader(t *testing.T) {
	h, err := New(blackboard.New(), nil, Options{Listen: "nao12.local:10101", AllowHosts: []string{"robot-5"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host   string
		served bool
	}{
		{"localhost:10101", true},
		{"LOCALHOST", true},
		{"127.0.0.1:10101", true},
		{"[::1]:10101", true},
		{"10.0.0.5:10101", true},
		{"nao12.local:10101", true},
		{"robot-5:10101", true},
		{"evil.example:10101", false},
		{"localhost.evil.example", false},
		{"127.0.0.1.nip.io:10101", false},
	} {
		for _, target := range []string{"/api/state", "/", "/api/events"} {
			req := httptest.NewRequest(http.MethodGet, target, nil)
			req.Host = tc.host
			req.Header.Set("Origin", "http://"+tc.host)
			ctx, cancel := context.WithCancel(context.Background())
			req = req.WithContext(ctx)
			rec := httptest.NewRecorder()
			if target == "/api/events" {
				cancel() // the stream ends at once
			}
			h.ServeHTTP(rec, req)
			cancel()
			if got := rec.Code == http.StatusMisdirectedRequest; got == tc.served {
				t.Errorf("Host %s %s: status %d, served %v", tc.host, target, rec.Code, tc.served)
			}
			if !tc.served && rec.Header().Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("Host %s: CORS allows the rebinding page's origin", tc.host)
			}
		}
	}
	// CheckHost guards any handler the same way.
	g := CheckHost(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }), "127.0.0.1:10101", nil)
	for host, code := range map[string]int{"127.0.0.1:10101": 200, "attacker.example:10101": 421} {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, req)
		if rec.Code != code {
			t.Errorf("CheckHost %s: %d, want %d", host, rec.Code, code)
		}
	}
}

// TestStreamLimit: beyond MaxStreams live streams, a client gets a 503
// that says why; when one stream ends, a new one is served.
func TestStreamLimit(t *testing.T) {
	h, err := New(blackboard.New(), nil, Options{MaxStreams: 2})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	srvDone := make(chan error, 1)
	go func() { srvDone <- srv.Serve(ln) }()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-srvDone
	}()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	url := "http://" + ln.Addr().String() + "/api/events?hz=50"
	open := func() (*http.Response, context.CancelFunc) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK {
			// The handler counted it once the first bytes arrive.
			if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
				t.Fatal(err)
			}
		}
		return resp, cancel
	}
	r1, c1 := open()
	defer c1()
	r2, c2 := open()
	defer c2()
	if r1.StatusCode != 200 || r2.StatusCode != 200 {
		t.Fatalf("first two streams: %d, %d", r1.StatusCode, r2.StatusCode)
	}
	r3, c3 := open()
	body, _ := io.ReadAll(r3.Body)
	c3()
	if r3.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "too many live streams") || r3.Header.Get("Retry-After") == "" {
		t.Fatalf("third stream: %d %q, Retry-After %q; want 503 saying why", r3.StatusCode, body, r3.Header.Get("Retry-After"))
	}
	// End one: a new stream is served once the server has seen it go.
	c1()
	r1.Body.Close()
	deadline := time.Now().Add(20 * time.Second)
	for h.streams.Load() > 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d streams still counted after one ended", h.streams.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	r4, c4 := open()
	defer c4()
	if r4.StatusCode != 200 {
		t.Fatalf("a stream after one ended: %d", r4.StatusCode)
	}
	r2.Body.Close()
	r4.Body.Close()
}
