package debugview

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// chromiumPath finds headless Chromium: ROBOTD_CHROMIUM, else chromium
// (or chromium-browser, google-chrome) on PATH. Without one the test is
// skipped, or fails under CI=true.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("ROBOTD_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const why = "no Chromium on PATH (apt-get install chromium, or set ROBOTD_CHROMIUM)"
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}

// cdp is headless Chromium driven through the DevTools protocol over its
// debugging pipe (--remote-debugging-pipe: JSON messages ending in a NUL
// byte, commands on its fd 3, replies and events on its fd 4), with one
// tab.
type cdp struct {
	cmd     *exec.Cmd
	toChr   *os.File
	readEnd chan struct{}
	session string

	mu      sync.Mutex
	nextID  int
	pending map[int]chan cdpReply
	errs    []string // the page's uncaught exceptions and console errors
}

type cdpReply struct {
	ID        int             `json:"id"`
	SessionID string          `json:"sessionId"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	Result    json.RawMessage `json:"result"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// startChromium starts Chromium and opens url in a 1400×900 tab; the
// test's cleanup closes it.
func startChromium(ctx context.Context, t *testing.T, path, url string) *cdp {
	t.Helper()
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &cdp{toChr: cmdW, readEnd: make(chan struct{}), pending: map[int]chan cdpReply{}}
	stderr := &lockedBuffer{}
	c.cmd = exec.Command(path,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio",
		"--hide-scrollbars", "--window-size=1400,900", "--remote-debugging-pipe",
		"--user-data-dir="+t.TempDir(), "about:blank")
	c.cmd.ExtraFiles = []*os.File{cmdR, outW}
	c.cmd.Stderr = stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	cmdR.Close()
	outW.Close()
	go c.read(outR)
	t.Cleanup(func() { c.close() })

	var target struct{ TargetID string }
	if err := c.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		t.Fatal(err)
	}
	var att struct{ SessionID string }
	if err := c.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		t.Fatal(err)
	}
	c.session = att.SessionID
	for _, step := range []struct {
		method string
		params any
	}{
		{"Runtime.enable", struct{}{}},
		{"Log.enable", struct{}{}},
		{"Emulation.setDeviceMetricsOverride", map[string]any{"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": false}},
		{"Page.navigate", map[string]any{"url": url}},
	} {
		if err := c.call(ctx, c.session, step.method, step.params, nil); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
	}
	return c
}

func (c *cdp) read(r *os.File) {
	defer close(c.readEnd)
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			c.mu.Lock()
			for id, ch := range c.pending {
				close(ch)
				delete(c.pending, id)
			}
			c.mu.Unlock()
			return
		}
		var m cdpReply
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		c.mu.Lock()
		if ch, ok := c.pending[m.ID]; ok && m.ID != 0 {
			ch <- m
			delete(c.pending, m.ID)
		} else if m.ID == 0 {
			c.event(m)
		}
		c.mu.Unlock()
	}
}

// event records the page's errors (c.mu is held).
func (c *cdp) event(m cdpReply) {
	switch m.Method {
	case "Runtime.exceptionThrown":
		var p struct {
			ExceptionDetails struct {
				Text      string
				Exception struct{ Description string }
			}
		}
		_ = json.Unmarshal(m.Params, &p)
		c.errs = append(c.errs, "exception: "+p.ExceptionDetails.Text+" "+p.ExceptionDetails.Exception.Description)
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string
			Args []struct{ Value any }
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.Type == "error" {
			c.errs = append(c.errs, fmt.Sprintf("console.error: %v", p.Args))
		}
	case "Log.entryAdded":
		var p struct {
			Entry struct{ Level, Source, Text, URL string }
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.Entry.Level == "error" {
			c.errs = append(c.errs, fmt.Sprintf("%s: %s %s", p.Entry.Source, p.Entry.Text, p.Entry.URL))
		}
	}
}

func (c *cdp) problems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.errs...)
}

func (c *cdp) call(ctx context.Context, session, method string, params, result any) error {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan cdpReply, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	b, err := json.Marshal(struct {
		ID        int    `json:"id"`
		SessionID string `json:"sessionId,omitempty"`
		Method    string `json:"method"`
		Params    any    `json:"params"`
	}{id, session, method, params})
	if err != nil {
		return err
	}
	if _, err := c.toChr.Write(append(b, 0)); err != nil {
		return fmt.Errorf("CDP %s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("CDP %s: Chromium closed the pipe", method)
		}
		if m.Error != nil {
			return fmt.Errorf("CDP %s: %s", method, m.Error.Message)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("CDP %s: %w", method, ctx.Err())
	}
}

// eval evaluates a JavaScript expression in the tab and decodes its value.
func (c *cdp) eval(ctx context.Context, expr string, out any) error {
	var r struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct {
			Text      string
			Exception struct{ Description string }
		}
	}
	if err := c.call(ctx, c.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("evaluating %q: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	return json.Unmarshal(r.Result.Value, out)
}

// lockedBuffer collects Chromium's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// close asks Chromium to quit, kills it if it does not, and waits for it
// and for the reader.
func (c *cdp) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.call(ctx, "", "Browser.close", nil, nil)
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
	c.toChr.Close()
	<-c.readEnd
}
