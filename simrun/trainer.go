package simrun

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/robotd/robotd/proto/simspark"
)

// Trainer is a client of a SimSpark server's trainer/monitor port (3200):
// it sends trainer commands and reads the monitor stream, keeping the
// latest game time, play mode and scene node positions. It reads the
// stream continuously, as the server drops monitors that stop reading.
type Trainer struct {
	conn net.Conn
	wmu  sync.Mutex
	out  []byte

	done chan struct{}

	mu       sync.Mutex
	state    MonitorState
	err      error
	updates  uint64
	bad      uint64
	lastBad  error
	updateCh chan struct{}
}

// MonitorState is what the monitor stream last said.
type MonitorState struct {
	// Time is the game time (s).
	Time float64
	// PlayMode is the play mode's index in the server's play_modes list,
	// and PlayModeName its name when the list was sent.
	PlayMode     int
	PlayModeName string
	// Nodes are the scene's transform nodes' positions (m, world frame)
	// in the order the server sends them. For robotd's embedded simulator:
	// the ball, then per robot its torso, head, left and right foot.
	Nodes [][3]float64
}

// DialTrainer connects to a trainer/monitor port.
func DialTrainer(ctx context.Context, addr string) (*Trainer, error) {
	var d net.Dialer
	var conn net.Conn
	var err error
	// A server that was just started may not accept yet.
	for i := 0; i < 50; i++ {
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		conn, err = d.DialContext(dctx, "tcp", addr)
		cancel()
		if err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return nil, fmt.Errorf("simrun: connecting to the trainer port %s: %w", addr, err)
	}
	t := &Trainer{conn: conn, done: make(chan struct{}), updateCh: make(chan struct{})}
	t.state.PlayMode = -1
	go t.read()
	return t, nil
}

// Close closes the connection and waits for the reader.
func (t *Trainer) Close() error {
	err := t.conn.Close()
	<-t.done
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// State returns the latest monitor state (Nodes is a copy).
func (t *Trainer) State() MonitorState {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.state
	s.Nodes = append([][3]float64(nil), t.state.Nodes...)
	return s
}

// Malformed returns how many monitor messages did not parse, and the last
// such error.
func (t *Trainer) Malformed() (uint64, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bad, t.lastBad
}

// WaitUpdate waits for the next monitor message after the call, at most
// timeout (wall time).
func (t *Trainer) WaitUpdate(ctx context.Context, timeout time.Duration) error {
	t.mu.Lock()
	ch := t.updateCh
	err := t.err
	t.mu.Unlock()
	if err != nil {
		return err
	}
	tm := time.NewTimer(timeout)
	defer tm.Stop()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return fmt.Errorf("simrun: no monitor message within %v", timeout)
	}
}

// WaitPlayMode waits until the monitor reports the play mode name, at
// most timeout (wall time).
func (t *Trainer) WaitPlayMode(ctx context.Context, name string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		have := t.State().PlayModeName
		if have == name {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("simrun: play mode still %q after %v, want %q", have, timeout, name)
		}
		if err := t.WaitUpdate(ctx, left); err != nil {
			t.mu.Lock()
			broken := t.err != nil
			t.mu.Unlock()
			if broken || ctx.Err() != nil {
				return fmt.Errorf("simrun: waiting for play mode %q: %w", name, err)
			}
		}
	}
}

func (t *Trainer) read() {
	defer close(t.done)
	fr := simspark.NewFrameReader(t.conn, 4<<20)
	var modes []string
	var s simspark.Scanner
	var nodes [][3]float64
	for {
		m, err := fr.Next()
		if err != nil {
			t.mu.Lock()
			t.err = fmt.Errorf("simrun: monitor stream: %w", err)
			close(t.updateCh)
			t.updateCh = make(chan struct{})
			t.mu.Unlock()
			return
		}
		st, nd, full, perr := parseMonitor(&s, m, &modes, nodes[:0])
		nodes = nd
		t.mu.Lock()
		if perr != nil {
			t.bad++
			t.lastBad = perr
		} else {
			if st.hasTime {
				t.state.Time = st.time
			}
			if st.playMode >= 0 {
				t.state.PlayMode = st.playMode
				t.state.PlayModeName = ""
				if st.playMode < len(modes) {
					t.state.PlayModeName = modes[st.playMode]
				}
			}
			if full || len(nodes) == len(t.state.Nodes) {
				t.state.Nodes = append(t.state.Nodes[:0], nodes...)
			}
		}
		t.updates++
		close(t.updateCh)
		t.updateCh = make(chan struct{})
		t.mu.Unlock()
	}
}

type monHeader struct {
	time     float64
	hasTime  bool
	playMode int
}

// parseMonitor reads a monitor message: the header's time, play mode and
// play-mode list, and every SLT transform's translation.
func parseMonitor(s *simspark.Scanner, m []byte, modes *[]string, nodes [][3]float64) (monHeader, [][3]float64, bool, error) {
	h := monHeader{playMode: -1}
	s.Reset(m, 0)
	full := false
	prevOpen := false
	for {
		tok, err := s.Next()
		if err != nil {
			return h, nodes, full, err
		}
		if tok == simspark.TokenEOF {
			return h, nodes, full, nil
		}
		if tok != simspark.TokenAtom || !prevOpen {
			prevOpen = tok == simspark.TokenOpen
			continue
		}
		prevOpen = false
		switch string(s.Atom()) {
		case "time":
			if v, ok := nextNumber(s); ok {
				h.time, h.hasTime = v, true
			}
		case "play_mode":
			if v, ok := nextNumber(s); ok {
				h.playMode = int(v)
			}
		case "play_modes":
			full = true
			*modes = (*modes)[:0]
			for {
				tok, err := s.Next()
				if err != nil || tok != simspark.TokenAtom {
					break
				}
				*modes = append(*modes, string(s.Atom()))
			}
		case "SLT":
			var v [16]float64
			ok := true
			for i := range v {
				if v[i], ok = nextNumber(s); !ok {
					break
				}
			}
			if ok {
				nodes = append(nodes, [3]float64{v[12], v[13], v[14]})
			}
		}
	}
}

func nextNumber(s *simspark.Scanner) (float64, bool) {
	tok, err := s.Next()
	if err != nil || tok != simspark.TokenAtom {
		return 0, false
	}
	v, err := strconv.ParseFloat(string(s.Atom()), 64)
	return v, err == nil
}

// send writes one framed trainer message.
func (t *Trainer) send(msg string) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	b, off := simspark.BeginFrame(t.out[:0])
	b = append(b, msg...)
	b = simspark.EndFrame(b, off)
	t.out = b
	if err := t.conn.SetWriteDeadline(time.Now().Add(5 * time.Second)); err != nil {
		return fmt.Errorf("simrun: trainer: %w", err)
	}
	if _, err := t.conn.Write(b); err != nil {
		return fmt.Errorf("simrun: trainer: sending %q: %w", msg, err)
	}
	return nil
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }

// MoveBall puts the ball at (x, y, z) (m, world frame) with velocity
// (vx, vy, vz) m/s. A server in BeforeKickOff puts a ball placed then back
// at its kick-off spot; PlaceBall places it for good.
func (t *Trainer) MoveBall(x, y, z, vx, vy, vz float64) error {
	return t.send("(ball (pos " + num(x) + " " + num(y) + " " + num(z) + ")(vel " + num(vx) + " " + num(vy) + " " + num(vz) + "))")
}

// MoveAgent puts player unum of side ("Left" or "Right") at (x, y) (m,
// world frame, z 0.35 as the fork expects), facing heading degrees in the
// world frame (0 = +x). The fork turns a (move … ang) to ang + 90°, so
// ang = heading − 90 is sent.
func (t *Trainer) MoveAgent(side string, unum int, x, y, headingDeg float64) error {
	return t.send("(agent (unum " + strconv.Itoa(unum) + ")(team " + side + ")(move " + num(x) + " " + num(y) + " 0.35 " + num(headingDeg-90) + "))")
}

// PlaceBall switches the play mode to PlayOn and puts the ball at (x, y)
// on the ground with velocity (vx, vy) m/s, in one trainer message, so
// that the server applies both in the same cycle: a ball placed before
// kick-off would be put back at the kick-off spot.
func (t *Trainer) PlaceBall(x, y, vx, vy float64) error {
	return t.send("(playMode PlayOn)(ball (pos " + num(x) + " " + num(y) + " " + num(ballRadius) + ")(vel " + num(vx) + " " + num(vy) + " 0))")
}

// ballRadius is the SPL ball's radius on the UNSW fork's field (m).
const ballRadius = 0.05

// A robot is laid on its front or back by Robot.LayDown (a fall it
// commands itself), as the UNSW fork's agent command cannot turn a robot
// over.

// PlayMode sets the play mode by name (e.g. PlayOn, BeforeKickOff).
func (t *Trainer) PlayMode(mode string) error { return t.send("(playMode " + mode + ")") }

// PlayModeFromZero sets the play mode and the game clock to 0 in one
// message. A server's game clock goes on from earlier runs, and its rules
// end the first half at 300 s of it and the game at 600 s (rcssserver3d's
// RuleHalfTime): every run on a server starts its clock so.
func (t *Trainer) PlayModeFromZero(mode string) error {
	return t.send("(playMode " + mode + ")(time 0)")
}

// KickOff starts the game with side's kick-off.
func (t *Trainer) KickOff(side string) error { return t.send("(kickOff " + side + ")") }

// DropBall drops the ball (play on).
func (t *Trainer) DropBall() error { return t.send("(dropBall)") }

// Kill disconnects an agent.
func (t *Trainer) Kill(side string, unum int) error {
	return t.send("(kill (unum " + strconv.Itoa(unum) + ")(team " + side + "))")
}

// RequestFullState asks for a full monitor message (header and scene).
func (t *Trainer) RequestFullState() error { return t.send("(reqfullstate)") }
