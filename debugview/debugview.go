// Package debugview is robotd's debug page: what the robot thinks, in a
// browser, live or from a recording.
//
// A Handler serves one HTML page and its script (embedded in the binary: no
// build step) and the robot's state as JSON:
//
//	GET /               the page
//	GET /static/...     its script and style
//	GET /api/state      one State: ?tick=N picks a recording's tick
//	GET /api/events     Server-Sent Events, one State per event whenever the
//	                    board has ticked, at most ?hz=N (1..50, default 10)
//	                    times a second (live only)
//
// The page draws the field (package field) with the robot's pose and its
// uncertainty, the ball, the team ball, the simulator's ground truth,
// teammates and their search targets as arrows, and the ball-search
// probability grid coloured green (unlikely) to red (likely); the
// behaviour's active path and role; each module's time per tick (from the
// runner's Prometheus histograms, see package runner); and every blackboard
// entry with its value and age.
//
// One page shows several robots: ?robots=HOST:PORT,HOST:PORT lists their
// debug endpoints (the page's own robot is "self"; HOST:PORT-PORT is a
// range of ports), and ?discover=TEAM,... probes robotd's default ports
// 10000+100·team+player for players 1..7 on the page's host. The page
// fetches every robot's state itself, so the API answers cross-origin
// requests from loopback origins and from the same host
// (Options.AllowOrigins adds others).
//
// # A whole game
//
// ?game=ITEM,... shows a game's robots, of both teams: an item is
// HOST:PORT, HOST:PORT-PORT, or a team number, whose players 1..7 are
// probed at their default ports on the page's host (the page's own port
// included); ?game=1,2 is the game of teams 1 and 2 run on one machine.
// A robot's team is its State's Robot.Team. With robots of more than one
// team on the page, each robot is drawn in its team's colour and with its
// player number (a penalised one with a dashed red ring and "P"), and
// each team's frame (its own goal at -x) is turned into the view's: the
// first team whose "hal.game_state" says its side (LeftSide, a
// simulator's) is on that side, else the first team listed is on the
// left, and every other team is on the other side, turned by 180°. Poses,
// ball estimates, team balls, search targets and grids, and the
// simulator's ground truth (the true ball) are turned with their robot's
// team. A team's colour is the GameController's colour code (0 blue, 1
// red, 2 yellow, 3 black, 4 white, 5 green, 6 orange, 7 purple, 8 brown,
// 9 grey) in its robots' "gamecontroller.state" (a field FieldPlayerColour
// or TeamColour; the opponent's in OppFieldPlayerColour or OppColour)
// when the entry carries one, else blue, red, yellow, … by team number,
// lowest first.
//
// A bar above the field shows the game from the newest
// "gamecontroller.state" (msg.GameControl) of all the robots: the
// GameController's before the simulator's, then the one whose last packet
// (Packets, LastPacket) arrived last. It shows both teams (the left one
// first; the opponent's team number is OppTeam when the entry carries
// it, else the other team on the page) with their scores (ScoreOwn,
// ScoreOpp), the state (INITIAL … FINISHED, STANDBY), Stopped, the half
// (FirstHalf), Remaining, the set play (SetPlay) and which team takes it
// or kicks off (OurKickOff), GamePhase when not normal, and Secondary
// while it runs.
//
// # Entries the page reads
//
// By name, from the JSON state, every one optional (the page draws what
// there is): "perception.pose", "perception.ball", "perception.team_ball",
// "hal.ground_truth", "hal.vision", "hal.game_state",
// "gamecontroller.state" and "perception.body" (see package msg), and
// behaviour's:
//
//   - "behaviour.role": the role, as a string, an enum (a String method
//     gives its name) or a struct with a Role or Name field;
//   - "behaviour.path": the active path, root first: an array of strings
//     (empty strings end it), a struct with such an array (Nodes, Path,
//     Names or Items) and optionally its length (N, Len or Count), or one
//     string with the nodes separated by "/" or ">";
//   - "behaviour.search": the ball-search grid, a struct with Cols and Rows
//     (cells along x and y), CellSize or CellX (metres; CellY too for
//     oblong cells, as msg.SearchState has), Probabilities (an array of
//     at least Cols·Rows numbers, row-major: index row·Cols+col, row 0 at
//     -y, column 0 at -x), optionally Origin (hal.Vec2: the grid's -x,-y
//     corner; default: the grid centred on the field), and the search
//     targets: Targets, an array of {Player, Pos or Target (hal.Vec2) or X,
//     Y} with NTargets (or N) of them valid, drawn as arrows from the robot
//     with that player number (0: this robot) to the target.
//
// Field names are matched without regard to case; see assets/app.js.
//
// # Blocking
//
// Handlers read the board only through Board.Snapshot and Board.Entries,
// which never take a lock that the tick takes: a slow client cannot delay
// a tick. Event streams end when the client goes, when the http.Server
// serving them shuts down (the handler registers with
// http.Server.RegisterOnShutdown) or after MaxStream.
package debugview

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/field"
	"github.com/robotd/robotd/msg"
)

//go:embed assets
var assets embed.FS

// Behaviour's entries that the page reads (see the package doc).
const (
	RoleEntry   = "behaviour.role"
	PathEntry   = "behaviour.path"
	SearchEntry = "behaviour.search"
)

// Robot identifies the robot a Handler shows.
type Robot struct {
	Team     int    `json:"team"`
	TeamName string `json:"team_name,omitempty"`
	Player   int    `json:"player"`
	// Build is the build flavour ("real", "sim").
	Build string `json:"build,omitempty"`
}

// Options configure a Handler. The zero value works.
type Options struct {
	Robot Robot
	// Field is the field's geometry; zero means field.SPL().
	Field field.Dimensions
	// AllowOrigins are origins (scheme://host:port) besides loopback ones
	// and the robot's own host that may read the API from a page of
	// theirs; "*" allows any.
	AllowOrigins []string
	// MaxStream bounds an event stream's duration; the page reconnects.
	// Zero means 10 minutes.
	MaxStream time.Duration
	// MaxStreams bounds the number of live event streams at a time; more
	// are answered 503. Zero means DefaultMaxStreams.
	MaxStreams int
	// Listen is the address the server listens on. A request whose Host
	// names neither it, localhost, nor an IP address, nor one of
	// AllowHosts, is answered 421 (see HostAllowed).
	Listen string
	// AllowHosts are further host names requests may be addressed to.
	AllowHosts []string
	// Log receives the handler's errors; nil discards them.
	Log *slog.Logger
}

// Handler serves the debug page and the robot's state.
type Handler struct {
	o       Options
	src     source
	mux     *http.ServeMux
	streams atomic.Int64 // live event streams

	mu   sync.Mutex
	shut map[*http.Server]chan struct{}
}

// source is where states come from: a live board or a recording.
type source interface {
	// state returns the state at tick (a recording's; ignored live).
	state(tick uint64, haveTick bool) (*State, error)
	live() bool
}

// State is what the page shows of one robot at one moment.
type State struct {
	Robot Robot `json:"robot"`
	// Mode is "live" or "replay".
	Mode  string `json:"mode"`
	Field Field  `json:"field"`
	// Keys names the entries the page reads.
	Keys map[string]string `json:"keys"`
	// Tick and TimeNS are the board's current tick and its time.
	Tick   uint64 `json:"tick"`
	TimeNS int64  `json:"time_ns"`
	// Entries are every blackboard entry, by name.
	Entries map[string]Entry `json:"entries"`
	// Timings are the runner's timing metrics; nil in a replay.
	Timings *Timings `json:"timings"`
	// Replay describes the recording in a replay.
	Replay *ReplayInfo `json:"replay,omitempty"`
}

// Entry is one blackboard entry in a State.
type Entry struct {
	Type   string `json:"type"`
	Writer string `json:"writer"`
	// Tick and TimeNS are when the value was written; Tick 0: never.
	Tick   uint64 `json:"tick"`
	TimeNS int64  `json:"time_ns"`
	Value  any    `json:"value"`
	// Error says why the value could not be decoded (recordings only).
	Error string `json:"error,omitempty"`
}

// Field is the field's geometry for the page, in metres.
type Field struct {
	Length              float64 `json:"length"`
	Width               float64 `json:"width"`
	GoalWidth           float64 `json:"goal_width"`
	PenaltyAreaLength   float64 `json:"penalty_area_length"`
	PenaltyAreaWidth    float64 `json:"penalty_area_width"`
	CentreCircleRadius  float64 `json:"centre_circle_radius"`
	PenaltyMarkDistance float64 `json:"penalty_mark_distance"`
	Border              float64 `json:"border"`
	BallRadius          float64 `json:"ball_radius"`
}

func fieldOf(d field.Dimensions) Field {
	return Field{
		Length: float64(d.Length), Width: float64(d.Width), GoalWidth: float64(d.GoalWidth),
		PenaltyAreaLength: float64(d.PenaltyAreaLength), PenaltyAreaWidth: float64(d.PenaltyAreaWidth),
		CentreCircleRadius: float64(d.CentreCircleRadius), PenaltyMarkDistance: float64(d.PenaltyMarkDistance),
		Border: float64(d.Border), BallRadius: float64(d.BallRadius),
	}
}

// keys are the entry names the page reads, by the page's name for them.
func keys() map[string]string {
	return map[string]string{
		"pose":         msg.RobotPoseKey.Name(),
		"ball":         msg.BallKey.Name(),
		"team_ball":    msg.TeamBallKey.Name(),
		"body":         msg.BodyStateKey.Name(),
		"ground_truth": msg.GroundTruthKey.Name(),
		"vision":       msg.VisionKey.Name(),
		"motion":       msg.MotionStateKey.Name(),
		"game_state":   msg.GameStateKey.Name(),
		"game_control": msg.GameControlKey.Name(),
		"role":         RoleEntry,
		"path":         PathEntry,
		"search":       SearchEntry,
	}
}

// New returns a Handler showing board live, with the module timings that
// gatherer holds (nil: none).
func New(board *blackboard.Board, gatherer prometheus.Gatherer, o Options) (*Handler, error) {
	if board == nil {
		return nil, errors.New("debugview: no board")
	}
	return newHandler(&liveSource{board: board, gatherer: gatherer}, o), nil
}

// NewReplay returns a Handler showing rec, a tick at a time.
func NewReplay(rec *Recording, o Options) (*Handler, error) {
	if rec == nil {
		return nil, errors.New("debugview: no recording")
	}
	return newHandler(rec, o), nil
}

func newHandler(src source, o Options) *Handler {
	if o.Field == (field.Dimensions{}) {
		o.Field = field.SPL()
	}
	if o.MaxStream <= 0 {
		o.MaxStream = 10 * time.Minute
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{o: o, src: src, shut: map[*http.Server]chan struct{}{}}
	static, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded directory exists
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.page)
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /api/state", h.state)
	mux.HandleFunc("GET /api/events", h.events)
	mux.HandleFunc("OPTIONS /api/", h.preflight)
	h.mux = mux
	return h
}

// DefaultMaxStreams is the default bound on live event streams: a few
// debug pages at once. Each stream encodes the whole state up to 50 times a
// second in the server's goroutines, next to the robot's tick.
const DefaultMaxStreams = 8

// ServeHTTP serves the page, its assets and the API, to requests addressed
// to an allowed host (HostAllowed).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !HostAllowed(r.Host, h.o.Listen, h.o.AllowHosts) {
		misdirected(w, r)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// HostAllowed reports whether a request with the Host header host may be
// served by a server listening on listen: host is empty, an IP address,
// localhost, listen's host, or one of allow. A page of a web site whose
// name was rebound to this machine's address (DNS rebinding) sends its
// site's name and is refused; a rebinding needs a name, so an IP address is
// safe.
func HostAllowed(host, listen string, allow []string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.Trim(name, "[]"), ".")
	if name == "" || strings.EqualFold(name, "localhost") {
		return true
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return true
	}
	if lh, _, err := net.SplitHostPort(listen); err == nil && lh != "" && strings.EqualFold(name, strings.Trim(lh, "[]")) {
		return true
	}
	for _, a := range allow {
		if strings.EqualFold(name, a) {
			return true
		}
	}
	return false
}

// CheckHost wraps next: requests addressed to a host HostAllowed refuses
// are answered 421 Misdirected Request.
func CheckHost(next http.Handler, listen string, allow []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !HostAllowed(r.Host, listen, allow) {
			misdirected(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func misdirected(w http.ResponseWriter, r *http.Request) {
	http.Error(w, fmt.Sprintf("misdirected request: this robot does not answer to the host %q (use its IP address or localhost)", r.Host), http.StatusMisdirectedRequest)
}

func (h *Handler) page(w http.ResponseWriter, r *http.Request) {
	b, err := assets.ReadFile("assets/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(b)
}

// stateOf builds the state, filling in what every source shares.
func (h *Handler) stateOf(tick uint64, haveTick bool) (*State, error) {
	s, err := h.src.state(tick, haveTick)
	if err != nil {
		return nil, err
	}
	s.Robot = h.o.Robot
	s.Field = fieldOf(h.o.Field)
	s.Keys = keys()
	return s, nil
}

func (h *Handler) state(w http.ResponseWriter, r *http.Request) {
	h.cors(w, r)
	var tick uint64
	t := r.URL.Query().Get("tick")
	if t != "" {
		n, err := strconv.ParseUint(t, 10, 64)
		if err != nil {
			http.Error(w, fmt.Sprintf("tick %q: want a tick number", t), http.StatusBadRequest)
			return
		}
		tick = n
	}
	s, err := h.stateOf(tick, t != "")
	if err != nil {
		h.o.Log.Warn("debugview: state", "err", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(s); err != nil {
		h.o.Log.Warn("debugview: encoding the state", "err", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(buf.Bytes())
}

// events streams states as Server-Sent Events: one whenever the board has
// ticked since the last, at most hz times a second, and a comment line
// every second while it does not tick, so that a broken connection shows.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	h.cors(w, r)
	if !h.src.live() {
		http.Error(w, "a replay has no event stream: ask /api/state?tick=N", http.StatusNotFound)
		return
	}
	if n := h.streams.Add(1); n > int64(h.o.MaxStreams) {
		h.streams.Add(-1)
		w.Header().Set("Retry-After", "10")
		http.Error(w, fmt.Sprintf("too many live streams: %d are open, the limit is %d (close a debug page, or raise metrics.max_streams)", n-1, h.o.MaxStreams), http.StatusServiceUnavailable)
		return
	}
	defer h.streams.Add(-1)
	hz := 10
	if q := r.URL.Query().Get("hz"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 || n > 50 {
			http.Error(w, fmt.Sprintf("hz %q: want 1..50", q), http.StatusBadRequest)
			return
		}
		hz = n
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	ctx := r.Context()
	shut := h.shutdown(r)
	limit := time.NewTimer(h.o.MaxStream)
	defer limit.Stop()
	tk := time.NewTicker(time.Second / time.Duration(hz))
	defer tk.Stop()

	var buf bytes.Buffer
	buf.WriteString("retry: 1000\n\n")
	lastTick, sent, lastWrite := uint64(0), false, time.Time{}
	for {
		if buf.Len() > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(5 * time.Second))
			if _, err := w.Write(buf.Bytes()); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
			buf.Reset()
			lastWrite = time.Now()
		}
		select {
		case <-ctx.Done():
			return
		case <-shut:
			return
		case <-limit.C:
			return
		case <-tk.C:
		}
		s, err := h.stateOf(0, false)
		if err != nil {
			h.o.Log.Warn("debugview: state", "err", err)
			return
		}
		if sent && s.Tick == lastTick {
			if time.Since(lastWrite) >= time.Second {
				buf.WriteString(": idle\n\n")
			}
			continue
		}
		buf.WriteString("data: ")
		if err := json.NewEncoder(&buf).Encode(s); err != nil { // ends in '\n'
			h.o.Log.Warn("debugview: encoding the state", "err", err)
			return
		}
		buf.WriteString("\n")
		lastTick, sent = s.Tick, true
	}
}

// shutdown returns a channel closed when the http.Server serving r shuts
// down (nil if r does not say which server serves it).
func (h *Handler) shutdown(r *http.Request) <-chan struct{} {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	ch, ok := h.shut[srv]
	if !ok {
		ch = make(chan struct{})
		h.shut[srv] = ch
		srv.RegisterOnShutdown(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			delete(h.shut, srv)
			close(ch)
		})
	}
	return ch
}

func (h *Handler) preflight(w http.ResponseWriter, r *http.Request) {
	if !h.cors(w, r) {
		w.WriteHeader(http.StatusForbidden)
		return
	}
	w.Header().Set("Access-Control-Allow-Methods", "GET, OPTIONS")
	w.Header().Set("Access-Control-Allow-Headers", "Cache-Control, Last-Event-ID")
	w.Header().Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

// cors allows r's origin to read the response if it may (see
// allowedOrigin) and reports whether it did.
func (h *Handler) cors(w http.ResponseWriter, r *http.Request) bool {
	w.Header().Add("Vary", "Origin")
	origin := r.Header.Get("Origin")
	if origin == "" || !h.allowedOrigin(origin, r.Host) {
		return false
	}
	w.Header().Set("Access-Control-Allow-Origin", origin)
	return true
}

// allowedOrigin reports whether a page from origin may read the API of the
// robot reached as host: pages served from this machine's loopback
// addresses, from the robot's own host (another robotd on it), or listed
// in Options.AllowOrigins.
func (h *Handler) allowedOrigin(origin, host string) bool {
	if slices.Contains(h.o.AllowOrigins, "*") || slices.Contains(h.o.AllowOrigins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	oh := u.Hostname()
	if isLoopback(oh) {
		return true
	}
	rh := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		rh = h
	}
	return strings.EqualFold(oh, strings.Trim(rh, "[]"))
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// liveSource is a board being ticked.
type liveSource struct {
	board    *blackboard.Board
	gatherer prometheus.Gatherer
}

func (l *liveSource) live() bool { return true }

func (l *liveSource) state(uint64, bool) (*State, error) {
	snap := l.board.Snapshot()
	infos := l.board.Entries()
	s := &State{Mode: "live", Tick: snap.Tick, TimeNS: snap.TimeNS, Entries: make(map[string]Entry, len(snap.Entries))}
	for _, e := range infos {
		v, ok := snap.Entries[e.Name]
		if !ok {
			continue // registered after the snapshot
		}
		s.Entries[e.Name] = Entry{Type: v.Type, Writer: e.Writer, Tick: v.Tick, TimeNS: v.TimeNS, Value: toJSON(v.Value)}
	}
	if l.gatherer != nil {
		t, err := gatherTimings(l.gatherer)
		if err != nil {
			return nil, err
		}
		s.Timings = t
	}
	return s, nil
}
