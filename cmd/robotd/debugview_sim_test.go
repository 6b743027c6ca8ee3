//go:build sim

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/debugview"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/internal/chromiumtest"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/robot"
	"github.com/robotd/robotd/runner"
	"github.com/robotd/robotd/simrun"
	"github.com/robotd/robotd/simserver"
	"github.com/robotd/robotd/teamcomm"
)

// screenshotPath and replayScreenshotPath are where
// TestDebugPageInChromium keeps its screenshots.
const (
	screenshotPath       = "/tmp/robotd-debugview.png"
	replayScreenshotPath = "/tmp/robotd-debugview-replay.png"
)

// TestDebugPageInChromium opens the debug page of a sim-build robotd
// running in the embedded simulator in headless Chromium (Debian's; the
// test installs it when it is missing and it runs as root), together with a
// second robot (player 2, in the same simulator) that the page reads
// cross-origin. It waits until the field view has drawn both robots (their
// localised poses), their search targets and the ball-search grid, checks
// that the page threw no error, and saves a screenshot to
// /tmp/robotd-debugview.png. Then it
// serves the first robot's recording with `robotd replay -serve`, moves the
// page's time slider and saves /tmp/robotd-debugview-replay.png.
// The grid, the targets, the role and the behaviour path are behaviour's
// own (msg.SearchKey, msg.RoleKey, msg.PathKey).
func TestDebugPageInChromium(t *testing.T) {
	browser := chromium(t)
	defer leaktest.Check(t)()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := DefaultConfig()
	cfg.Robot.Player = 1
	cfg.identify()
	cfg.Metrics.Addr = "127.0.0.1:0"
	cfg.Sim.Mode = "embedded"
	// The kinematic world in sync mode: the page is judged here, with two
	// robots live. A robot that misses cycles in real time on a loaded
	// machine falls, as it would on a real server (measured: both robots
	// lying after 30 s of simulation at load 26 in the physics mode, and
	// after 80 s in the kinematic world beside stress-ng --cpu 2 and the
	// rest of the suite), and a fallen robot shows no search target; in
	// sync mode the simulator waits for both robots every cycle.
	cfg.Sim.Embedded.Physics = simserver.PhysicsKinematic
	cfg.Sim.Embedded.Sync = true
	cfg.Sim.Port, cfg.Sim.Embedded.MonitorPort = freePort(t), freePort(t)
	cfg.Record.Enabled, cfg.Record.Dir = true, t.TempDir()
	for _, e := range []string{debugview.SearchEntry, msg.RoleKey.Name(), msg.PathKey.Name()} {
		if !writes(t, &cfg, e) {
			t.Fatalf("the daemon's modules do not write %q, which the page shows", e)
		}
	}
	// The robots talk through a team hub, as robots on one machine do; the
	// game state is the simulator's.
	hub, err := teamcomm.NewHub(teamcomm.HubConfig{Addr: "127.0.0.1:0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	hubCtx, stopHub := context.WithCancel(ctx)
	var hubWG sync.WaitGroup
	hubWG.Go(func() { _ = hub.Run(hubCtx) })
	defer hubWG.Wait()
	defer stopHub()
	cfg.TeamComm.UDP.Hub, cfg.GameController.Enabled = hub.Addr(), false
	one := startRobot(ctx, t, &cfg, log)
	stopOne := sync.OnceFunc(func() { one.stop(t) })
	defer stopOne()

	cfg2 := DefaultConfig()
	cfg2.Robot.Player = 2
	cfg2.Metrics.Addr = "127.0.0.1:0"
	cfg2.Sim.Mode = "server" // robot 1's embedded simulator
	cfg2.Sim.Port = cfg.Sim.Port
	cfg2.Sim.Sync = true
	cfg2.Sim.Beam.X, cfg2.Sim.Beam.Y, cfg2.Sim.Beam.Deg = -3, 1.5, -30
	cfg2.TeamComm.UDP.Hub, cfg2.GameController.Enabled = hub.Addr(), false
	cfg2.identify()
	two := startRobot(ctx, t, &cfg2, log)
	defer two.stop(t)

	// Play on, with the ball in the far corner, beyond what the robots'
	// vision reports: they search for it, and the page shows their targets.
	playOn(ctx, t, cfg.Sim.Embedded.MonitorPort, 2, [3]float64{4.2, -2.7, 0.05})

	page := fmt.Sprintf("http://%s/?robots=self,%s", one.addr, two.addr)
	cr, err := chromiumtest.Launch(browser, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer cr.Close()
	sess, err := cr.Open(ctx, page)
	if err != nil {
		t.Fatal(err)
	}

	// Wait until the field shows the robot and the grid.
	const ready = `(() => { const d = window.robotdDebug;
		return JSON.stringify(d ? {frames: d.frames, robots: d.robotsDrawn, grid: d.gridDrawn, cells: d.gridCells,
			targets: d.targetsDrawn, ball: d.ballDrawn, mode: d.mode, conns: d.robots,
			attr: document.body.dataset.robotsDrawn + '/' + document.body.dataset.gridDrawn} : null); })()`
	type connInfo struct {
		Endpoint string
		OK       bool
		Player   int
		Tick     uint64
		Error    string
	}
	var seen struct {
		Frames  int
		Robots  int
		Grid    bool
		Cells   int
		Targets int
		Ball    bool
		Mode    string
		Conns   []connInfo
		Attr    string
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		var s string
		if err := sess.Eval(ctx, ready, &s); err != nil {
			t.Fatal(err)
		}
		if s != "null" {
			if err := json.Unmarshal([]byte(s), &seen); err != nil {
				t.Fatalf("robotdDebug %s: %v", s, err)
			}
		}
		bothRead := len(seen.Conns) == 2 && seen.Conns[0].OK && seen.Conns[1].OK
		if seen.Robots >= 2 && seen.Grid && seen.Targets >= 2 && bothRead {
			break
		}
		if time.Now().After(deadline) {
			// What the robots themselves say: fallen, lost, or elsewhere.
			var states []string
			for _, p := range []*robotProc{one, two} {
				var body, pose, gt json.RawMessage
				_ = getEntry(ctx, p.addr, msg.BodyStateKey.Name(), &body)
				_ = getEntry(ctx, p.addr, msg.RobotPoseKey.Name(), &pose)
				_ = getEntry(ctx, p.addr, msg.GroundTruthKey.Name(), &gt)
				states = append(states, fmt.Sprintf("body %s pose %s truth %s", body, pose, gt))
			}
			t.Fatalf("after 90 s the page shows %+v; want both robots (localised) with their search targets, the grid, and both robots' states\nrobots: %v\npage errors: %v", seen, states, cr.Problems())
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("page state: %+v", seen)
	if seen.Mode != "live" || seen.Cells <= 0 || seen.Attr != strconv.Itoa(seen.Robots)+"/1" {
		t.Errorf("page state %+v: want live mode, grid cells and data attributes robotsDrawn/gridDrawn", seen)
	}
	if seen.Conns[0].Player != 1 || seen.Conns[1].Player != 2 {
		t.Errorf("robots %+v: want players 1 (self) and 2 (cross-origin)", seen.Conns)
	}
	// The side panels show the blackboard and the module timings.
	var panels string
	if err := sess.Eval(ctx, `document.querySelectorAll('#board-body tr').length + ' ' +
		document.querySelectorAll('#timings-body tr').length + ' ' + document.getElementById('status').textContent`, &panels); err != nil {
		t.Fatal(err)
	}
	var entries, timings int
	if _, err := fmt.Sscanf(panels, "%d %d", &entries, &timings); err != nil || entries < 20 || timings < 4 {
		t.Errorf("panels: %q; want ≥ 20 blackboard rows and ≥ 4 timing rows (tick, perception, behaviour, motion)", panels)
	}
	// Behaviour's role and path, as the page shows them: a role name, and
	// the tree's active path from its root.
	var rolePath string
	if err := sess.Eval(ctx, `document.getElementById('role').textContent + '|' +
		Array.from(document.querySelectorAll('#path .chip')).map((c) => c.textContent).join('/')`, &rolePath); err != nil {
		t.Fatal(err)
	}
	role, path, _ := strings.Cut(rolePath, "|")
	t.Logf("role %q, path %q", role, path)
	if !slices.Contains([]string{"goalie", "striker", "supporter", "defender", "none"}, role) || path == "" {
		t.Errorf("the page shows role %q and path %q; want behaviour's role and its active path", role, path)
	}
	// The robots hear each other through the hub.
	var mates struct {
		N     int
		Mates []struct{ Msg struct{ Player int } }
	}
	if err := getEntry(ctx, one.addr, msg.TeammatesKey.Name(), &mates); err != nil {
		t.Fatal(err)
	}
	if mates.N != 1 || len(mates.Mates) == 0 || mates.Mates[0].Msg.Player != 2 {
		t.Errorf("robot 1's teammates: %+v; want player 2", mates)
	}
	// The page reads behaviour's entries in any of the shapes package
	// debugview documents.
	for _, tc := range []struct{ expr, want string }{
		{`pathOf(["play", "search", "", "stale"])`, `["play","search"]`},
		{`pathOf({N: 2, Nodes: ["play", "striker", "stale"]})`, `["play","striker"]`},
		{`pathOf({depth: 1, stack: [{Name: "root"}, {Name: "stale"}]})`, `["root"]`},
		{`pathOf("play / striker > search")`, `["play","striker","search"]`},
		{`pathOf(undefined)`, `[]`},
		{`nameOf("keeper")`, `"keeper"`},
		{`nameOf(3)`, `"#3"`},
		{`nameOf({Role: "supporter", Since: 5})`, `"supporter"`},
		{`searchOf({Cols: 2, Rows: 1, CellSize: 0.5, Probabilities: [0.25, 0.75, 9], NTargets: 1,
			Targets: [{Player: 2, Pos: {X: 1, Y: 2}}, {Player: 3, Pos: {X: 0, Y: 0}}]})`,
			`{"grid":{"cols":2,"rows":1,"cell":0.5,"origin":{"x":-0.5,"y":-0.25},"p":[0.25,0.75]},"targets":[{"player":2,"pos":{"x":1,"y":2}}]}`},
		{`searchOf({cols: 2, rows: 2, cell_size: 1, origin: {X: -4, Y: -3}, grid: [[1, 2], [3, "NaN"]], targets: [{robot: 1, target: {X: 3, Y: 1}}]})`,
			`{"grid":{"cols":2,"rows":2,"cell":1,"origin":{"x":-4,"y":-3},"p":[1,2,3,null]},"targets":[{"player":1,"pos":{"x":3,"y":1}}]}`},
		{`searchOf({Cols: 18, Rows: 12, Probabilities: [1]})`, `{"grid":null,"targets":[]}`},
		{`searchOf(undefined)`, `null`},
	} {
		var got string
		if err := sess.Eval(ctx, "JSON.stringify((() => { const {pathOf, nameOf, searchOf} = robotdDebug.readers; return "+tc.expr+"; })())", &got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
	// The search grid's colours: a cell as likely as in a uniform grid is
	// faint grey, so a uniform grid reads as "no information"; more likely
	// cells are warm, less likely ones blue.
	for _, tc := range []struct{ expr, want string }{
		{`gridColour(1/9, 9)`, `"hsla(0, 0%, 85%, 0.10)"`},
		{`gridColour(0.5, 9)`, `"hsla(12, 90%, 55%, 0.482)"`},
		{`gridColour(0.01, 9)`, `"hsla(210, 70%, 55%, 0.350)"`},
		{`gridColour(NaN, 9)`, `"hsla(0, 0%, 60%, 0.08)"`},
	} {
		var got string
		if err := sess.Eval(ctx, "JSON.stringify(robotdDebug.readers."+tc.expr+")", &got); err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
	// A blackboard value longer than its cell is shown whole after a
	// click (pretty-printed JSON), and folded again by another.
	clickSearch := `(() => { const row = Array.from(document.querySelectorAll('#board-body tr')).find((r) => r.children[0].textContent.startsWith('` + debugview.SearchEntry + `'));
		if (!row) return 'no row'; row.children[2].click(); return 'clicked'; })()`
	readSearch := `(() => { const row = Array.from(document.querySelectorAll('#board-body tr')).find((r) => r.children[0].textContent.startsWith('` + debugview.SearchEntry + `'));
		const pre = row && row.children[2].querySelector('pre.whole'); if (!pre) return row && row.children[2].querySelector('.one') ? 'folded' : 'none';
		try { const v = JSON.parse(pre.textContent); return Array.isArray(v.Probabilities) ? 'whole ' + pre.textContent.length : 'whole, no grid'; } catch (e) { return 'not JSON: ' + e; } })()`
	waitShown := func(want string) string {
		var got string
		for range 100 {
			if err := sess.Eval(ctx, readSearch, &got); err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(got, want) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		return got
	}
	for _, want := range []string{"whole", "folded"} {
		var clicked string
		if err := sess.Eval(ctx, clickSearch, &clicked); err != nil || clicked != "clicked" {
			t.Fatalf("clicking the %s value: %q, %v", debugview.SearchEntry, clicked, err)
		}
		if got := waitShown(want); !strings.HasPrefix(got, want) {
			t.Errorf("after a click the %s value is %q; want %s", debugview.SearchEntry, got, want)
		} else {
			t.Logf("after a click: %s", got)
		}
	}

	time.Sleep(500 * time.Millisecond) // one more update of the panels before the picture
	png, err := sess.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(screenshotPath, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot (%d bytes): %s", len(png), screenshotPath)
	if p := cr.Problems(); len(p) > 0 {
		t.Errorf("the page reported errors:\n%s", strings.Join(p, "\n"))
	}

	// The same robot's recording, served by `robotd replay -serve`: the
	// page shows it with a time slider, and the robot and the grid (whose
	// stand-in type the replay build lacks: decoded by its layout).
	if err := sess.Close(ctx); err != nil {
		t.Fatal(err)
	}
	cr.ClearProblems()
	stopOne()
	url, printed, stopReplay := startReplayServe(t, cfg.Record.Dir)
	defer stopReplay()
	t.Logf("%s", strings.TrimSpace(printed))
	rp, err := cr.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	const replayReady = `(() => { const d = window.robotdDebug, s = document.getElementById('rp-slider');
		return JSON.stringify(d ? {robots: d.robotsDrawn, grid: d.gridDrawn, mode: d.mode, tick: d.robots[0] && d.robots[0].tick,
			hidden: document.getElementById('replay').hidden, min: +s.min, max: +s.max} : null); })()`
	var rs struct {
		Robots   int
		Grid     bool
		Mode     string
		Tick     uint64
		Hidden   bool
		Min, Max uint64
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			var s string
			if err := rp.Eval(ctx, replayReady, &s); err != nil {
				t.Fatal(err)
			}
			if s != "null" {
				if err := json.Unmarshal([]byte(s), &rs); err != nil {
					t.Fatal(err)
				}
			}
			if ok() {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("replay page: %s: it shows %+v\npage errors: %v", what, rs, cr.Problems())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("the slider", func() bool { return rs.Mode == "replay" && !rs.Hidden && rs.Max > rs.Min && rs.Tick == rs.Min })
	// Move the slider to three quarters, as a user would: the robot has
	// localised by then.
	mid := rs.Max - (rs.Max-rs.Min)/4
	var ignored any
	if err := rp.Eval(ctx, fmt.Sprintf(`(() => { const s = document.getElementById('rp-slider'); s.value = %d;
		s.dispatchEvent(new Event('input')); return null; })()`, mid), &ignored); err != nil {
		t.Fatal(err)
	}
	waitFor("the slider's tick", func() bool { return rs.Tick == mid && rs.Robots == 1 && rs.Grid })
	png, err = rp.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(replayScreenshotPath, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("replay screenshot at tick %d of %d..%d: %s", mid, rs.Min, rs.Max, replayScreenshotPath)
	if p := cr.Problems(); len(p) > 0 {
		t.Errorf("the replay page reported errors:\n%s", strings.Join(p, "\n"))
	}
}

// writes reports whether the daemon's modules write the entry called name.
func writes(t *testing.T, cfg *Config, name string) bool {
	t.Helper()
	b := blackboard.New()
	for _, m := range newModules(cfg, robot.Legs) {
		if err := m.Wire(b); err != nil {
			t.Fatalf("wiring %s: %v", m.Name(), err)
		}
	}
	for _, e := range b.Entries() {
		if e.Name == name && e.Writer != "" {
			return true
		}
	}
	return false
}

// playOn waits on the embedded simulator's trainer port until robots
// robots are in (and beamed: the server moves them only before the
// kick-off), puts the ball at ball and sets the play mode to PlayOn.
func playOn(ctx context.Context, t *testing.T, monitorPort, robots int, ball [3]float64) {
	t.Helper()
	tr, err := simrun.DialTrainer(ctx, fmt.Sprintf("127.0.0.1:%d", monitorPort))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	// The monitor lists the ball, then four nodes per robot.
	for beamed := 0; beamed < 20; {
		if err := tr.WaitUpdate(ctx, 10*time.Second); err != nil {
			t.Fatalf("waiting for %d robots in the simulator: %v", robots, err)
		}
		if len(tr.State().Nodes) >= 1+4*robots {
			beamed++
		}
	}
	if err := errors.Join(tr.PlayMode("PlayOn"), tr.MoveBall(ball[0], ball[1], ball[2], 0, 0, 0)); err != nil {
		t.Fatal(err)
	}
}

// getEntry decodes one entry of the robot's /debug/blackboard into v.
func getEntry(ctx context.Context, addr, name string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/debug/blackboard", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var snap struct {
		Entries map[string]struct {
			Tick  uint64          `json:"tick"`
			Value json.RawMessage `json:"value"`
		} `json:"entries"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&snap); err != nil {
		return fmt.Errorf("%s/debug/blackboard: %w", addr, err)
	}
	e, ok := snap.Entries[name]
	if !ok || e.Tick == 0 {
		return fmt.Errorf("%s: entry %s missing or never written", addr, name)
	}
	return json.Unmarshal(e.Value, v)
}

// robotProc is one robot, wired as serve wires it (backend, metrics,
// runner, the daemon's modules, debugMux, recording if configured), plus
// extra modules.
type robotProc struct {
	addr   string
	cancel context.CancelFunc
	runErr chan error
	srv    *http.Server
	srvErr chan error
	dev    hal.Device
	nw     *robot.Network
}

func startRobot(ctx context.Context, t *testing.T, cfg *Config, log *slog.Logger, extra ...runner.Module) *robotProc {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	dev, err := newBackend(ctx, cfg, log)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	met, err := runner.NewMetrics(reg, dev)
	if err != nil {
		cancel()
		dev.Close()
		t.Fatal(err)
	}
	board := blackboard.New()
	r := runner.New(cfg.Runner, dev, board, log, met)
	r.Add(newModules(cfg, robot.BodyOf(dev))...)
	nw, err := robot.StartNetwork(ctx, &cfg.Config, reg, log)
	if err != nil {
		cancel()
		dev.Close()
		t.Fatal(err)
	}
	r.Add(nw.Modules()...)
	r.Add(extra...)
	if err := errors.Join(robot.RegisterRoleMetrics(reg, board), r.Start()); err != nil {
		cancel()
		nw.Close()
		dev.Close()
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", cfg.MetricsAddr())
	if err != nil {
		cancel()
		nw.Close()
		dev.Close()
		t.Fatal(err)
	}
	p := &robotProc{addr: ln.Addr().String(), cancel: cancel, runErr: make(chan error, 1), srvErr: make(chan error, 1), dev: dev, nw: nw,
		srv: &http.Server{Handler: debugMux(reg, board, cfg, log), ReadHeaderTimeout: 5 * time.Second}}
	go func() { p.srvErr <- p.srv.Serve(ln) }()
	go func() { p.runErr <- runRecording(ctx, cfg.Record, cfg, r, reg, log) }()
	return p
}

func (p *robotProc) stop(t *testing.T) {
	t.Helper()
	p.cancel()
	if err := <-p.runErr; err != nil {
		t.Errorf("robot %s: run: %v", p.addr, err)
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := p.srv.Shutdown(sctx); err != nil {
		t.Errorf("robot %s: shutting the listener down: %v", p.addr, err)
	}
	if err := <-p.srvErr; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("robot %s: serve: %v", p.addr, err)
	}
	if err := p.nw.Close(); err != nil {
		t.Errorf("robot %s: closing the network: %v", p.addr, err)
	}
	if err := p.dev.Close(); err != nil {
		t.Errorf("robot %s: closing the backend: %v", p.addr, err)
	}
}

// chromium finds Chromium (chromiumtest.Find), installing Debian's
// package when it is missing (as root, with apt-get). ROBOTD_CHROMIUM names
// a browser to use instead. It fails the test, never skips it, when there
// is none.
func chromium(t *testing.T) string {
	t.Helper()
	if p, err := chromiumtest.Find(); err == nil {
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	p, err := chromiumtest.Install(ctx, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
