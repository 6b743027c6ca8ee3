// Package chromiumtest drives headless Chromium for the tests that judge
// the debug page in a real browser (package debugview's and the sim-build
// robotd's): it finds (or, as root on Debian, installs) Chromium, starts
// it, opens pages in 1400×900 tabs, evaluates JavaScript in them, takes
// screenshots, and collects what the pages report as errors (uncaught
// exceptions, console errors, failed loads).
//
// It speaks the Chrome DevTools Protocol
// (https://chromedevtools.github.io/devtools-protocol/) over Chromium's
// debugging pipe (--remote-debugging-pipe: JSON messages ending in a NUL
// byte, commands on Chromium's fd 3, replies and events on its fd 4), with
// one flat session a tab.
//
// Its functions return errors; whether a missing Chromium skips or fails
// a test is the caller's to say.
package chromiumtest

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"
)

// names are the executables Find looks for on PATH, in this order.
var names = []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"}

// ErrNotFound: no Chromium on PATH, and ROBOTD_CHROMIUM is not set.
var ErrNotFound = errors.New("no Chromium on PATH (apt-get install chromium, or set ROBOTD_CHROMIUM to a Chromium binary)")

// Find returns Chromium's path: ROBOTD_CHROMIUM, else the first of
// chromium, chromium-browser, google-chrome-stable and google-chrome on
// PATH; ErrNotFound when there is none.
func Find() (string, error) {
	if p := os.Getenv("ROBOTD_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// Install installs Debian's chromium (and a font) with apt-get, running
// apt-get update when the first attempt fails, and returns Chromium's
// path. It must run as root; logf (nil: silent) hears what it does.
func Install(ctx context.Context, logf func(format string, args ...any)) (string, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if os.Geteuid() != 0 {
		return "", errors.New("Chromium is not installed and this test is not root, so it cannot install it: " +
			"run `apt-get install chromium` (Debian) or set ROBOTD_CHROMIUM to a Chromium binary")
	}
	var out tailBuffer
	apt := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = &out, &out
		return cmd.Run()
	}
	logf("Chromium is missing: installing Debian's chromium with apt-get")
	install := []string{"install", "-y", "--no-install-recommends", "chromium", "fonts-dejavu-core"}
	start := time.Now()
	if err := apt(install...); err != nil {
		if err := apt("update"); err != nil {
			return "", fmt.Errorf("Chromium is not installed and `apt-get update` failed: %w\n%s", err, out.String())
		}
		if err := apt(install...); err != nil {
			return "", fmt.Errorf("Chromium is not installed and `apt-get install chromium` failed: %w\n%s", err, out.String())
		}
	}
	p, err := Find()
	if err != nil {
		return "", fmt.Errorf("apt-get installed chromium but there is no chromium on PATH:\n%s", out.String())
	}
	logf("installed %s in %v", p, time.Since(start).Round(time.Second))
	return p, nil
}

// Browser is a running headless Chromium.
type Browser struct {
	cmd       *exec.Cmd
	toChr     *os.File
	readEnd   chan struct{}
	stderr    *tailBuffer
	closeOnce sync.Once

	mu      sync.Mutex
	nextID  int
	pending map[int]chan message
	errs    []string // the pages' uncaught exceptions, console errors and failed loads
}

// message is a DevTools protocol message from Chromium: a reply (ID set)
// or an event.
type message struct {
	ID        int             `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Launch starts the Chromium at path headless (a 1400×900 window) with
// its profile in userDataDir (an empty directory the caller removes).
// Close stops it.
func Launch(path, userDataDir string) (*Browser, error) {
	// Chromium reads commands from its fd 3 and writes to its fd 4.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, err
	}
	b := &Browser{toChr: cmdW, readEnd: make(chan struct{}), stderr: &tailBuffer{}, pending: map[int]chan message{}}
	b.cmd = exec.Command(path,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio",
		"--hide-scrollbars", "--window-size=1400,900", "--remote-debugging-pipe",
		"--user-data-dir="+userDataDir, "about:blank")
	b.cmd.ExtraFiles = []*os.File{cmdR, outW}
	b.cmd.Stderr = b.stderr
	err = b.cmd.Start()
	cmdR.Close()
	outW.Close()
	if err != nil {
		cmdW.Close()
		outR.Close()
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	go b.read(outR)
	return b, nil
}

// read dispatches Chromium's messages until it closes the pipe.
func (b *Browser) read(r *os.File) {
	defer close(b.readEnd)
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var m message
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				ch <- m
				delete(b.pending, m.ID)
			}
		} else {
			b.event(m)
		}
		b.mu.Unlock()
	}
}

// event records the pages' errors: uncaught exceptions, console errors
// and failed loads (b.mu is held).
func (b *Browser) event(m message) {
	switch m.Method {
	case "Runtime.exceptionThrown":
		var p struct {
			ExceptionDetails struct {
				Text      string
				Exception struct{ Description string }
			}
		}
		_ = json.Unmarshal(m.Params, &p)
		b.errs = append(b.errs, "exception: "+p.ExceptionDetails.Text+" "+p.ExceptionDetails.Exception.Description)
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string
			Args []struct {
				Value       any
				Description string
			}
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.Type == "error" {
			b.errs = append(b.errs, fmt.Sprintf("console.error: %v", p.Args))
		}
	case "Log.entryAdded":
		var p struct {
			Entry struct{ Level, Source, Text, URL string }
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.Entry.Level == "error" {
			b.errs = append(b.errs, fmt.Sprintf("%s: %s %s", p.Entry.Source, p.Entry.Text, p.Entry.URL))
		}
	}
}

// Problems are the errors the pages reported so far.
func (b *Browser) Problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

// ClearProblems forgets the errors reported so far.
func (b *Browser) ClearProblems() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errs = nil
}

// Call sends one command (to the browser for session "", else to that
// tab's session) and decodes its result into result (if not nil).
func (b *Browser) Call(ctx context.Context, session, method string, params, result any) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan message, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	msg, err := json.Marshal(struct {
		ID        int             `json:"id"`
		SessionID string          `json:"sessionId,omitempty"`
		Method    string          `json:"method"`
		Params    json.RawMessage `json:"params"`
	}{id, session, method, p})
	if err != nil {
		return err
	}
	if _, err := b.toChr.Write(append(msg, 0)); err != nil {
		return fmt.Errorf("CDP %s: writing to Chromium: %w\n%s", method, err, b.stderr.String())
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("CDP %s: Chromium closed the pipe\n%s", method, b.stderr.String())
		}
		if m.Error != nil {
			return fmt.Errorf("CDP %s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("CDP %s: %w", method, ctx.Err())
	}
}

// Close asks Chromium to quit, kills it if it does not within 10 s, and
// waits for it and for the reader. Calls after the first do nothing.
func (b *Browser) Close() {
	b.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = b.Call(ctx, "", "Browser.close", nil, nil)
		done := make(chan error, 1)
		go func() { done <- b.cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = b.cmd.Process.Kill()
			<-done
		}
		b.toChr.Close()
		<-b.readEnd
	})
}

// Page is a tab, attached in a flat session.
type Page struct {
	b       *Browser
	target  string
	session string
}

// Open opens url in a new 1400×900 tab.
func (b *Browser) Open(ctx context.Context, url string) (*Page, error) {
	var target struct{ TargetID string }
	if err := b.Call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var att struct{ SessionID string }
	if err := b.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	p := &Page{b: b, target: target.TargetID, session: att.SessionID}
	for _, step := range []struct {
		method string
		params any
	}{
		{"Runtime.enable", nil},
		{"Log.enable", nil},
		{"Page.enable", nil},
		{"Emulation.setDeviceMetricsOverride", map[string]any{"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": false}},
	} {
		if err := b.Call(ctx, p.session, step.method, step.params, nil); err != nil {
			return nil, err
		}
	}
	if err := p.Navigate(ctx, url); err != nil {
		return nil, err
	}
	return p, nil
}

// Navigate loads url in the tab.
func (p *Page) Navigate(ctx context.Context, url string) error {
	return p.b.Call(ctx, p.session, "Page.navigate", map[string]any{"url": url}, nil)
}

// Close closes the tab.
func (p *Page) Close(ctx context.Context) error {
	return p.b.Call(ctx, "", "Target.closeTarget", map[string]any{"targetId": p.target}, nil)
}

// Eval evaluates a JavaScript expression in the tab and decodes its value
// (returned by value: JSON) into out.
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var r struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct {
			Text      string
			Exception struct{ Description string }
		}
	}
	if err := p.b.Call(ctx, p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("evaluating %q: %s %s", expr, r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Screenshot returns a PNG of the tab.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	var r struct{ Data string }
	if err := p.b.Call(ctx, p.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// tailBuffer keeps the last tailSize bytes written to it (Chromium's
// stderr, apt-get's output), for error messages; it may be written from
// several goroutines.
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	cut bool // earlier bytes were dropped
}

const tailSize = 3000

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.b = append(t.b, p...)
	if n := len(t.b); n > 2*tailSize {
		t.b, t.cut = append(t.b[:0], t.b[n-tailSize:]...), true
	}
	t.mu.Unlock()
	return len(p), nil
}

// String is the last tailSize bytes, after "…" when there were more.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.b) > tailSize || t.cut {
		return "…" + string(t.b[max(0, len(t.b)-tailSize):])
	}
	return string(t.b)
}
