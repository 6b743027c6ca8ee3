package debugview

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/record/codec"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/backends/loopback"
	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/haltest"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/record"
	"github.com/robotd/robotd/runner"
)

// The shapes of behaviour's entries that the page reads (see the package
// doc), as a behaviour module would declare them.
type (
	testRole uint8
	testPath struct {
		N     int
		Nodes [6]string
	}
	testTarget struct {
		Player uint8
		Pos    hal.Vec2
	}
	testSearch struct {
		Cols, Rows    int
		CellSize      float64
		Probabilities [18 * 12]float32
		NTargets      int
		Targets       [4]testTarget
	}
)

func (r testRole) String() string {
	if r == 1 {
		return "searcher"
	}
	return "none"
}

var (
	testRoleKey   = blackboard.NewKey[testRole](RoleEntry)
	testPathKey   = blackboard.NewKey[testPath](PathEntry)
	testSearchKey = blackboard.NewKey[testSearch](SearchEntry)
)

// fakeBehaviour writes behaviour's entries; every value depends on the tick.
type fakeBehaviour struct {
	role   *blackboard.Writer[testRole]
	path   *blackboard.Writer[testPath]
	search *blackboard.Writer[testSearch]
}

func (*fakeBehaviour) Name() string { return "behaviour" }

func (f *fakeBehaviour) Wire(b *blackboard.Board) (err error) {
	if f.role, err = blackboard.Write(b, "behaviour", testRoleKey); err != nil {
		return err
	}
	if f.path, err = blackboard.Write(b, "behaviour", testPathKey); err != nil {
		return err
	}
	f.search, err = blackboard.Write(b, "behaviour", testSearchKey)
	return err
}

func (f *fakeBehaviour) Tick(t hal.Tick) error {
	f.role.Set(testRole(t.Seq % 2))
	p := testPath{N: 2 + int(t.Seq%3)}
	copy(p.Nodes[:], []string{"play", "striker", "search", "walk_to", "spare"})
	f.path.Set(p)
	s := testSearch{Cols: 18, Rows: 12, CellSize: 0.5, NTargets: 1}
	for i := range s.Probabilities {
		s.Probabilities[i] = float32(i) / float32(len(s.Probabilities))
	}
	s.Probabilities[0] = float32(t.Seq)
	s.Targets[0] = testTarget{Player: 0, Pos: hal.Vec2{X: float64(t.Seq) / 100, Y: -1}}
	f.search.Set(s)
	return nil
}

// rig is a runner over a loopback robot with the fake behaviour.
type rig struct {
	board *blackboard.Board
	reg   *prometheus.Registry
	run   *runner.Runner
}

func newRig(t *testing.T, clock hal.Clock) *rig {
	t.Helper()
	dev := loopback.New(clock)
	reg := prometheus.NewRegistry()
	met, err := runner.NewMetrics(reg, dev)
	if err != nil {
		t.Fatal(err)
	}
	board := blackboard.New()
	r := runner.New(runner.DefaultConfig(), dev, board, nil, met)
	r.Add(&fakeBehaviour{})
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	return &rig{board: board, reg: reg, run: r}
}

// ticked runs n ticks at once.
func ticked(t *testing.T, n uint64) *rig {
	t.Helper()
	g := newRig(t, haltest.NewClock(10*time.Millisecond, n))
	if err := g.run.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return g
}

// state is the JSON state as the page reads it.
type state struct {
	Robot   Robot             `json:"robot"`
	Mode    string            `json:"mode"`
	Field   Field             `json:"field"`
	Keys    map[string]string `json:"keys"`
	Tick    uint64            `json:"tick"`
	TimeNS  int64             `json:"time_ns"`
	Entries map[string]struct {
		Type   string          `json:"type"`
		Writer string          `json:"writer"`
		Tick   uint64          `json:"tick"`
		TimeNS int64           `json:"time_ns"`
		Value  json.RawMessage `json:"value"`
		Error  string          `json:"error"`
	} `json:"entries"`
	Timings *struct {
		Tick    struct{ Count uint64 } `json:"tick"`
		Modules []struct {
			Module  string `json:"module"`
			Seconds struct {
				Count   uint64       `json:"count"`
				Buckets [][2]float64 `json:"buckets"`
			} `json:"seconds"`
		} `json:"modules"`
	} `json:"timings"`
	Replay *ReplayInfo `json:"replay"`
}

func getState(t *testing.T, h http.Handler, target string) state {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, localRequest(http.MethodGet, target))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", target, rec.Code, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("GET %s: Content-Type %q", target, ct)
	}
	var s state
	if err := json.Unmarshal(rec.Body.Bytes(), &s); err != nil {
		t.Fatalf("GET %s: %v\n%.500s", target, err, rec.Body)
	}
	return s
}

func TestLiveState(t *testing.T) {
	g := ticked(t, 25)
	h, err := New(g.board, g.reg, Options{Robot: Robot{Team: 1, Player: 2, Build: "sim"}})
	if err != nil {
		t.Fatal(err)
	}
	s := getState(t, h, "/api/state")
	if s.Mode != "live" || s.Tick != 25 || s.TimeNS != int64(250*time.Millisecond) {
		t.Errorf("mode %q tick %d time %d, want live, 25, 250 ms", s.Mode, s.Tick, s.TimeNS)
	}
	if s.Robot != (Robot{Team: 1, Player: 2, Build: "sim"}) {
		t.Errorf("robot %+v", s.Robot)
	}
	if s.Field.Length != 9 || s.Field.Width != 6 {
		t.Errorf("field %+v, want the SPL field 9×6", s.Field)
	}
	if s.Keys["pose"] != msg.RobotPoseKey.Name() || s.Keys["search"] != SearchEntry {
		t.Errorf("keys %v", s.Keys)
	}
	for _, tc := range []struct {
		entry, writer, value string
	}{
		{RoleEntry, "behaviour", `"searcher"`}, // tick 25 is odd; the String method names it
		{PathEntry, "behaviour", `{"N":3,"Nodes":["play","striker","search","walk_to","spare",""]}`},
		{"hal.tick", runner.HALName, `{"Seq":25,"Time":"250ms","Period":"10ms","Step":"0s","Connected":true}`},
	} {
		e, ok := s.Entries[tc.entry]
		if !ok {
			t.Errorf("no entry %s", tc.entry)
			continue
		}
		if e.Writer != tc.writer || e.Tick != 25 || string(e.Value) != tc.value {
			t.Errorf("%s: writer %q tick %d value %s, want %q 25 %s", tc.entry, e.Writer, e.Tick, e.Value, tc.writer, tc.value)
		}
	}
	var grid testSearch
	if err := json.Unmarshal(s.Entries[SearchEntry].Value, &grid); err != nil {
		t.Fatal(err)
	}
	if grid.Cols != 18 || grid.Probabilities[0] != 25 || grid.Targets[0].Pos.X != 0.25 {
		t.Errorf("search grid %+v", grid)
	}
	if s.Timings == nil {
		t.Fatal("no timings")
	}
	var found bool
	for _, m := range s.Timings.Modules {
		if m.Module == "behaviour" {
			found = true
			if m.Seconds.Count != 25 || len(m.Seconds.Buckets) == 0 {
				t.Errorf("behaviour timing: %d samples, %d buckets; want 25 and some", m.Seconds.Count, len(m.Seconds.Buckets))
			}
		}
	}
	if !found || s.Timings.Tick.Count != 25 {
		t.Errorf("timings %+v: want the behaviour module and 25 ticks", s.Timings)
	}
	if s.Replay != nil {
		t.Errorf("a live state has replay info %+v", s.Replay)
	}
}

func TestPageAndAssets(t *testing.T) {
	h, err := New(blackboard.New(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		method, target string
		code           int
		ctype, body    string
	}{
		{"GET", "/", 200, "text/html", `<canvas id="field"`},
		{"HEAD", "/", 200, "text/html", ""},
		{"GET", "/static/app.js", 200, "text/javascript", "window.robotdDebug"},
		{"GET", "/static/style.css", 200, "text/css", "#field"},
		{"GET", "/static/nope.js", 404, "", ""},
		{"GET", "/nope", 404, "", ""},
		{"POST", "/api/state", 405, "", ""},
		{"GET", "/api/state?tick=x", 400, "", "tick"},
		{"GET", "/api/events?hz=0", 400, "", "hz"},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, localRequest(tc.method, tc.target))
		if rec.Code != tc.code {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.target, rec.Code, tc.code)
			continue
		}
		if ct := rec.Header().Get("Content-Type"); tc.ctype != "" && !strings.HasPrefix(ct, tc.ctype) {
			t.Errorf("%s %s: Content-Type %q, want %s", tc.method, tc.target, ct, tc.ctype)
		}
		if !strings.Contains(rec.Body.String(), tc.body) {
			t.Errorf("%s %s: body lacks %q", tc.method, tc.target, tc.body)
		}
	}
}

func TestCORS(t *testing.T) {
	h, err := New(blackboard.New(), nil, Options{AllowOrigins: []string{"http://team-laptop:8080"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, origin, host string
		allowed            bool
	}{
		{"another robotd on this machine", "http://127.0.0.1:10101", "127.0.0.1:10102", true},
		{"localhost", "http://localhost:10101", "127.0.0.1:10102", true},
		{"IPv6 loopback", "http://[::1]:10101", "[::1]:10102", true},
		{"a robot's page on the same host", "http://10.0.0.5:10101", "10.0.0.5:10102", true},
		{"listed origin", "http://team-laptop:8080", "10.0.0.5:10102", true},
		{"another host", "http://10.0.0.6:10101", "10.0.0.5:10102", false},
		{"a web site", "https://example.com", "127.0.0.1:10102", false},
		{"a file", "null", "127.0.0.1:10102", false},
		{"no origin: same-origin or not a browser", "", "127.0.0.1:10102", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range []string{http.MethodGet, http.MethodOptions} {
				req := httptest.NewRequest(m, "/api/state", nil)
				req.Host = tc.host
				if tc.origin != "" {
					req.Header.Set("Origin", tc.origin)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				got := rec.Header().Get("Access-Control-Allow-Origin")
				if tc.allowed && got != tc.origin || !tc.allowed && got != "" {
					t.Errorf("%s: Access-Control-Allow-Origin %q (allowed %v)", m, got, tc.allowed)
				}
				if m == http.MethodOptions {
					want := http.StatusForbidden
					if tc.allowed {
						want = http.StatusNoContent
					}
					if rec.Code != want {
						t.Errorf("preflight: %d, want %d", rec.Code, want)
					}
				}
			}
		})
	}
}

// TestEventsStreamAndShutdown follows the event stream of a ticking robot,
// then shuts the server down while the stream is open: Shutdown must not
// wait for the stream, and nothing may be left running.
func TestEventsStreamAndShutdown(t *testing.T) {
	defer leaktest.Check(t)()
	g := newRig(t, loopback.NewWallClock(10*time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	runDone := make(chan error, 1)
	go func() { runDone <- g.run.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-runDone; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	h, err := New(g.board, g.reg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: time.Second}
	srvDone := make(chan error, 1)
	go func() { srvDone <- srv.Serve(ln) }()

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+ln.Addr().String()+"/api/events?hz=50", nil)
	req.Header.Set("Origin", "http://127.0.0.1:1")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	if resp.Header.Get("Access-Control-Allow-Origin") != "http://127.0.0.1:1" {
		t.Errorf("event stream not readable cross-origin from loopback")
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<22)
	var ticks []uint64
	for len(ticks) < 3 && sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var s state
		if err := json.Unmarshal([]byte(data), &s); err != nil {
			t.Fatal(err)
		}
		if s.Mode != "live" || s.Entries[SearchEntry].Tick == 0 {
			t.Fatalf("event: mode %q, search grid written at tick %d", s.Mode, s.Entries[SearchEntry].Tick)
		}
		ticks = append(ticks, s.Tick)
	}
	if len(ticks) < 3 || !(ticks[0] < ticks[1] && ticks[1] < ticks[2]) {
		t.Fatalf("events at ticks %v (%v), want 3 of increasing ticks", ticks, sc.Err())
	}

	// The stream ends when the server shuts down: Shutdown waits for it
	// (a hang guard of 20 s; it takes milliseconds).
	start := time.Now()
	sctx, scancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer scancel()
	if err := srv.Shutdown(sctx); err != nil {
		t.Fatalf("Shutdown with an open event stream: %v after %v", err, time.Since(start))
	}
	t.Logf("Shutdown with an open event stream took %v", time.Since(start))
	if err := <-srvDone; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
	for sc.Scan() {
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Logf("stream ended with %v", err)
	}
}

// recordRun records n ticks of the rig into a directory and returns it.
func recordRun(t *testing.T, n uint64) string {
	t.Helper()
	g := newRig(t, haltest.NewClock(10*time.Millisecond, n))
	cfg := record.DefaultConfig()
	cfg.Dir = t.TempDir()
	cfg.Queue = int(n)
	rec, err := record.Start(context.Background(), cfg, g.board, record.Info{Build: "test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.run.RunRecorded(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if rec.Dropped() != 0 {
		t.Fatalf("recorder dropped %d records", rec.Dropped())
	}
	return cfg.Dir
}

func loadRecording(t *testing.T, dir string, o RecordingOptions) *Recording {
	t.Helper()
	src, err := record.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rec, err := LoadRecording(context.Background(), src, o)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestReplayStates(t *testing.T) {
	dir := recordRun(t, 300)
	types := newRig(t, haltest.NewClock(10*time.Millisecond, 1)).board
	for _, tc := range []struct {
		name  string
		o     RecordingOptions
		role  string // at an odd tick
		ticks []uint64
	}{
		{"with the Go types", RecordingOptions{Types: types}, `"searcher"`, []uint64{1, 2, 151, 300}},
		{"by the recorded layouts", RecordingOptions{}, `1`, []uint64{1, 2, 151, 300}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := loadRecording(t, dir, tc.o)
			if first, last := rec.Ticks(); first != 1 || last != 300 || rec.Len() != 300 || rec.Stride() != 1 {
				t.Fatalf("ticks %d..%d, %d records, stride %d; want 1..300, 300, 1", first, last, rec.Len(), rec.Stride())
			}
			if d := rec.Duration(); d != 2990*time.Millisecond {
				t.Errorf("duration %v", d)
			}
			h, err := NewReplay(rec, Options{Robot: Robot{Team: 3, Player: 4}})
			if err != nil {
				t.Fatal(err)
			}
			live := ticked(t, 300)
			lh, err := New(live.board, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, tick := range tc.ticks {
				s := getState(t, h, "/api/state?tick="+itoa(tick))
				if s.Mode != "replay" || s.Tick != tick || s.Replay == nil || s.Replay.Index != int(tick-1) || s.Replay.Records != 300 {
					t.Fatalf("tick %d: mode %q tick %d replay %+v", tick, s.Mode, s.Tick, s.Replay)
				}
				if s.Robot.Player != 4 || s.Timings != nil {
					t.Errorf("robot %+v, timings %v", s.Robot, s.Timings)
				}
				var grid testSearch
				if err := json.Unmarshal(s.Entries[SearchEntry].Value, &grid); err != nil {
					t.Fatal(err)
				}
				if grid.Probabilities[0] != float32(tick) || grid.Targets[0].Pos.X != float64(tick)/100 {
					t.Errorf("tick %d: grid[0] %v, target %v", tick, grid.Probabilities[0], grid.Targets[0].Pos)
				}
				if e := s.Entries[RoleEntry]; tick%2 == 1 && string(e.Value) != tc.role || e.Writer != "behaviour" {
					t.Errorf("tick %d: role %s by %q, want %s", tick, e.Value, e.Writer, tc.role)
				}
			}
			// The last record is the live board after the same run: the
			// same JSON, entry by entry, where the Go types are known.
			want := getState(t, lh, "/api/state")
			got := getState(t, h, "/api/state?tick=300")
			for name, w := range want.Entries {
				g, ok := got.Entries[name]
				if !ok {
					t.Errorf("%s: not in the replay", name)
					continue
				}
				if g.Error != "" {
					t.Errorf("%s: %s", name, g.Error)
				}
				if tc.o.Types == nil && strings.Contains(string(w.Value), `"`) && name != PathEntry {
					continue // names of enums and durations need the Go types
				}
				if string(g.Value) != string(w.Value) || g.Tick != w.Tick || g.Type != w.Type || g.Writer != w.Writer {
					t.Errorf("%s: replay %s %s %d %s, live %s %s %d %s", name, g.Type, g.Writer, g.Tick, g.Value, w.Type, w.Writer, w.Tick, w.Value)
				}
			}
			// Before the first and after the last tick: the nearest record.
			if s := getState(t, h, "/api/state?tick=0"); s.Tick != 1 {
				t.Errorf("tick 0 shows tick %d, want 1", s.Tick)
			}
			if s := getState(t, h, "/api/state?tick=99999"); s.Tick != 300 {
				t.Errorf("tick 99999 shows tick %d, want 300", s.Tick)
			}
			rr := httptest.NewRecorder()
			h.ServeHTTP(rr, localRequest(http.MethodGet, "/api/events"))
			if rr.Code != http.StatusNotFound {
				t.Errorf("replay event stream: %d, want 404", rr.Code)
			}
		})
	}
}

func TestRecordingMemoryBound(t *testing.T) {
	dir := recordRun(t, 200)
	full := loadRecording(t, dir, RecordingOptions{})
	size := full.bytes / int64(full.Len())
	for _, tc := range []struct {
		records int64 // fit in the bound
		stride  int
	}{
		{200, 1}, {199, 2}, {100, 2}, {99, 4}, {30, 8},
	} {
		rec := loadRecording(t, dir, RecordingOptions{MaxBytes: tc.records * size})
		if rec.Stride() != tc.stride || int64(rec.Len()) > tc.records || rec.bytes > tc.records*size {
			t.Errorf("room for %d records: stride %d, %d records; want stride %d", tc.records, rec.Stride(), rec.Len(), tc.stride)
			continue
		}
		h, _ := NewReplay(rec, Options{})
		for i, tick := range rec.ticks {
			if tick != uint64(i*tc.stride+1) {
				t.Fatalf("stride %d: record %d is tick %d", tc.stride, i, tick)
			}
		}
		// A tick between kept records shows the one before it.
		if tc.stride > 1 {
			if s := getState(t, h, "/api/state?tick=2"); s.Tick != 1 {
				t.Errorf("stride %d: tick 2 shows %d", tc.stride, s.Tick)
			}
		}
	}
}

type plainValues struct {
	B   bool
	I8  int8
	I   int
	U16 uint16
	U   uint64
	F32 float32
	F   float64
	C   complex128
	S   string
	A   [3]int16
	N   [2]struct {
		X, Y float64
		s    string
	}
	E [0]int
}

func TestValueJSON(t *testing.T) {
	v := plainValues{B: true, I8: -3, I: -1 << 40, U16: 65535, U: math.MaxUint64, F32: 0.1, F: math.NaN(),
		C: complex(1, math.Inf(-1)), S: "a\"b", A: [3]int16{1, -2, 3}}
	v.N[1].s = "hidden"
	v.N[0].X = math.Inf(1)
	want := `{"B":true,"I8":-3,"I":-1099511627776,"U16":65535,"U":18446744073709551615,"F32":0.1,"F":"NaN",` +
		`"C":[1,"-Inf"],"S":"a\"b","A":[1,-2,3],"N":[{"X":"+Inf","Y":0,"s":""},{"X":0,"Y":0,"s":"hidden"}],"E":[]}`
	for _, tc := range []struct {
		name string
		json func() (any, error)
	}{
		{"reflection", func() (any, error) { return toJSON(v), nil }},
		{"layout", func() (any, error) {
			c, err := codec.NewCodec[plainValues]()
			if err != nil {
				return nil, err
			}
			f := c.Layout()
			d := layoutDecoder{src: c.Append(nil, &v)}
			out, err := d.decode(&f)
			if err == nil && len(d.src) != 0 {
				err = errors.New("bytes left over")
			}
			return out, err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := tc.json()
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(tree)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
	// Enums and durations by name, given the Go type.
	got, _ := json.Marshal(toJSON(struct {
		R testRole
		D time.Duration
		K hal.ObjectKind // no String method
	}{1, 1500 * time.Millisecond, hal.ObjBall}))
	if string(got) != `{"R":"searcher","D":"1.5s","K":1}` {
		t.Errorf("named values: %s", got)
	}
}

func TestLayoutDecodeRejectsBadInput(t *testing.T) {
	c, err := codec.NewCodec[plainValues]()
	if err != nil {
		t.Fatal(err)
	}
	f := c.Layout()
	enc := c.Append(nil, &plainValues{S: "hello"})
	for n := range len(enc) {
		d := layoutDecoder{src: enc[:n]}
		if _, err := d.decode(&f); err == nil {
			t.Fatalf("decoded %d of %d bytes without an error", n, len(enc))
		}
	}
	huge := codec.Field{Kind: "array", Len: 1 << 30, Elem: &codec.Field{Kind: "uint8"}}
	d := layoutDecoder{src: make([]byte, 16)}
	if _, err := d.decode(&huge); err == nil {
		t.Error("decoded an array longer than the bound")
	}
	d = layoutDecoder{src: []byte{1}}
	if _, err := d.decode(&codec.Field{Kind: "float128"}); err == nil {
		t.Error("decoded an unknown kind")
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// localRequest is a request addressed to the loopback address, as a
// browser on the robot's machine sends it (httptest's default host,
// example.com, is a foreign name).
func localRequest(method, target string) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	r.Host = "127.0.0.1:10101"
	return r
}
