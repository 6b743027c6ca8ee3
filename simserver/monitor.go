package simserver

import (
	"context"
	"errors"
	"io"
	"math"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/proto/simspark"
)

// The trainer/monitor port: monitors receive the game state and the scene
// in the SimSpark monitor format (a full message with the field's
// parameters and the scene graph first, then an update every
// MonitorInterval of simulation time), and send trainer commands.

// monConn is one monitor/trainer connection.
type monConn struct {
	id   int
	c    net.Conn
	tm   simspark.TrainerMessage // owned by the reader goroutine
	full bool                    // the next message must be a full one (owned by the main loop)
	dead bool                    // a write failed (owned by the main loop)
}

func (s *Server) acceptMonitors(ctx context.Context, wg *sync.WaitGroup) {
	for id := 0; ; id++ {
		c, err := s.monLn.Accept()
		if err != nil {
			if ctx.Err() == nil {
				s.log.Error("monitor port: accept failed; no more monitors", "err", err)
			}
			return
		}
		mc := &monConn{id: id, c: c, full: true}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.mons = append(s.mons, mc)
		s.mu.Unlock()
		s.log.Info("monitor connected", "conn", id, "remote", c.RemoteAddr().String())
		wg.Go(func() { s.readMonitor(ctx, mc) })
	}
}

// readMonitor parses trainer commands and queues them for the main loop.
func (s *Server) readMonitor(ctx context.Context, mc *monConn) {
	defer func() {
		mc.c.Close()
		s.mu.Lock()
		for i, m := range s.mons {
			if m == mc {
				s.mons = append(s.mons[:i], s.mons[i+1:]...)
				break
			}
		}
		s.mu.Unlock()
	}()
	fr := simspark.NewFrameReader(mc.c, s.cfg.MaxFrame)
	for {
		msg, err := fr.Next()
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, io.EOF) {
				s.log.Warn("monitor connection failed", "conn", mc.id, "err", err)
			}
			return
		}
		if err := mc.tm.Parse(msg); err != nil {
			s.log.Warn("trainer command ignored", "conn", mc.id, "err", err, "msg", clip(msg))
			continue
		}
		cmds := make([]trainerCmd, 0, len(mc.tm.Commands))
		for i := range mc.tm.Commands {
			c := &mc.tm.Commands[i]
			cmds = append(cmds, trainerCmd{TrainerCommand: *c, team: mc.tm.Str(c.Team), word: mc.tm.Str(c.Word)})
		}
		s.mu.Lock()
		s.trainer = append(s.trainer, trainerMsg{mc: mc, cmds: cmds})
		s.mu.Unlock()
		s.signal()
	}
}

// trainerCmd is a trainer command with its strings (trainer traffic is
// rare: it may allocate).
type trainerCmd struct {
	simspark.TrainerCommand
	team, word string
}

// applyTrainer carries out trainer commands (in the main loop).
func (s *Server) applyTrainer(m trainerMsg) {
	w := s.world
	for _, c := range m.cmds {
		s.statsMu.Lock()
		s.stats.TrainerCommands++
		s.statsMu.Unlock()
		switch c.Kind {
		case simspark.TrainBall:
			p := w.ball.p
			if c.HasPos {
				p = geom.V3(c.Pos)
			}
			var vel *geom.Vec3
			if c.HasVel {
				v := geom.V3(c.Vel)
				vel = &v
			}
			if pa := p.Array(); !finite(pa[:]) || c.HasVel && !finite(c.Vel[:]) {
				s.log.Warn("trainer: ball command with a non-finite value ignored")
				continue
			}
			w.ball.set(p, vel)
			if w.phys != nil {
				var v [3]float64
				if vel != nil {
					v = vel.Array()
				}
				w.phys.scene.SetBall(w.ball.p.Array(), v)
			}
		case simspark.TrainAgent:
			a := w.agentBy(sideOf(c.team), c.Unum)
			if a == nil {
				s.log.Warn("trainer: no such agent", "team", c.team, "unum", c.Unum)
				continue
			}
			w.moveAgent(a, &c.TrainerCommand)
		case simspark.TrainKill:
			a := w.agentBy(sideOf(c.team), c.Unum)
			if a == nil {
				s.log.Warn("trainer: no such agent to kill", "team", c.team, "unum", c.Unum)
				continue
			}
			for _, ac := range s.conns {
				if ac.agent == a {
					s.log.Info("trainer: agent killed", "conn", ac.id, "team", c.team, "unum", c.Unum)
					ac.c.Close()
				}
			}
		case simspark.TrainPlayMode:
			if i := playModeIndex(c.word); i >= 0 {
				w.game.setMode(i)
			} else {
				s.log.Warn("trainer: unknown play mode", "mode", c.word)
			}
		case simspark.TrainKickOff:
			switch sideOf(c.word) {
			case teamLeft:
				w.game.setMode(pmKickOffLeft)
			case teamRight:
				w.game.setMode(pmKickOffRight)
			default:
				s.log.Warn("trainer: kickOff needs Left or Right", "team", c.word)
			}
		case simspark.TrainDropBall:
			w.game.setMode(pmPlayOn)
		case simspark.TrainReqFullState:
			m.mc.full = true
		case simspark.TrainTime:
			if c.Time >= 0 && !math.IsInf(c.Time, 0) {
				w.game.t = c.Time
				w.game.changed |= changedTime
			}
		case simspark.TrainScore:
			w.game.scoreL, w.game.scoreR = c.Left, c.Right
			w.game.changed |= changedScore
		case simspark.TrainGetAck:
			// Accepted; the fork answers nothing either.
		default:
			s.log.Warn("trainer: command not supported; ignored", "command", c.Kind.String())
		}
	}
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e6 {
			return false
		}
	}
	return true
}

func sideOf(team string) int {
	switch team {
	case "Left", "left", "L":
		return teamLeft
	case "Right", "right", "R":
		return teamRight
	}
	return teamNone
}

// moveAgent places an agent for the trainer: (pos x y z) keeps its heading,
// (move x y z ang) turns it to ang + 90° (the fork's convention: move 0
// gives myorien 90). Coordinates are absolute.
func (w *World) moveAgent(a *Agent, c *simspark.TrainerCommand) {
	heading := a.r.heading()
	x, y := c.Pos[0], c.Pos[1]
	if c.HasMove {
		x, y = c.Move[0], c.Move[1]
		heading = (c.Move[3] + 90) * rad
	}
	if !finite([]float64{x, y, heading}) {
		return
	}
	if c.HasRot && finite(c.Rot[:]) {
		// The torso's rotation about the field's axes, for a robot
		// facing +x: a torso tilted past 45° is laid down, on its front
		// if it leans the way it faces, else on its back.
		rx, ry, rz := c.Rot[0]*rad, c.Rot[1]*rad, c.Rot[2]*rad
		mz, my, mx := geom.RotZ(rz), geom.RotY(ry), geom.RotX(rx)
		mzy := mz.Mul(my)
		R := mzy.Mul(mx)
		up := R.Apply(geom.Vec3{X: 0, Y: 0, Z: 1})
		heading = rz
		a.r.place(x, y, heading, false)
		if w.phys != nil {
			// The body keeps its joint angles, turned as asked.
			up := uprightFrame(0)
			Rb := R.Mul(up)
			w.physPlace(a, x, y, heading, &Rb, trainerClear)
			return
		}
		if up.Z < math.Cos(math.Pi/4) {
			a.r.layDown(geom.Vec3{X: up.X, Y: up.Y, Z: 0}.Unit())
		}
		return
	}
	a.r.place(x, y, heading, false)
	if w.phys != nil {
		w.physPlace(a, x, y, heading, nil, trainerClear)
	}
}

// monitor sends the monitor stream: a full message to new monitors (and
// after reqfullstate or when robots come or go), an update every
// MonitorInterval of simulation time.
func (s *Server) monitor() {
	s.mu.Lock()
	mons := append(s.monsTmp[:0], s.mons...) // readers remove entries in place
	s.mu.Unlock()
	s.monsTmp = mons
	w := s.world
	due := w.Time() >= s.nextMon-1e-9
	if due {
		s.nextMon = w.Time() + s.cfg.MonitorInterval.Seconds()
	}
	sceneChanged := len(w.agents) != s.sceneN
	if len(mons) == 0 {
		s.sceneN = len(w.agents)
		return
	}
	var full, upd []byte
	sent := false
	for _, m := range mons {
		if m.dead {
			continue
		}
		var b []byte
		switch {
		case m.full || sceneChanged:
			if full == nil {
				off := 0
				full, off = simspark.BeginFrame(s.monBuf[:0])
				full = simspark.EndFrame(w.appendMonitor(full, true), off)
				s.monBuf = full
			}
			b = full
			m.full = false
		case due:
			if upd == nil {
				off := 0
				upd, off = simspark.BeginFrame(s.monBuf[:0])
				upd = simspark.EndFrame(w.appendMonitor(upd, false), off)
				s.monBuf = upd
			}
			b = upd
		default:
			continue
		}
		sent = true
		if s.cfg.WriteTimeout > 0 {
			m.c.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
		}
		if _, err := m.c.Write(b); err != nil {
			s.log.Warn("monitor: sending failed; disconnecting", "conn", m.id, "err", err)
			m.dead = true
			m.c.Close()
		}
	}
	if sent || sceneChanged {
		s.sceneN = len(w.agents)
		w.game.changed = 0
	}
}

// appendMonitor encodes the monitor message: the header with the field's
// parameters and the whole scene (full), or the game state changes and the
// moved nodes.
func (w *World) appendMonitor(dst []byte, full bool) []byte {
	g := &w.game
	if full {
		dst = append(dst, "((FieldLength 9)(FieldWidth 6)(FieldHeight 40)(GoalWidth 1.6)(GoalDepth 0.5)(GoalHeight 0.8)"+
			"(BorderSize 0)(FreeKickDistance 0.75)(WaitBeforeKickOff 30)(AgentRadius 0.4)(BallRadius 0.05)(BallMass 0.042)"+
			"(RuleGoalPauseTime 3)(RuleKickInPauseTime 1)(RuleHalfTime 300)(play_modes"...)
		for _, m := range playModes {
			dst = append(dst, ' ')
			dst = append(dst, m...)
		}
		dst = append(dst, ")(time "...)
		dst = appendShort(dst, g.t)
		dst = append(dst, ')')
		dst = w.appendTeams(dst)
		dst = append(dst, "(half 1)(score_left "...)
		dst = strconv.AppendInt(dst, int64(g.scoreL), 10)
		dst = append(dst, ")(score_right "...)
		dst = strconv.AppendInt(dst, int64(g.scoreR), 10)
		dst = append(dst, ")(play_mode "...)
		dst = strconv.AppendInt(dst, int64(g.mode), 10)
		dst = append(dst, "))(RSG 0 1)("...)
	} else {
		dst = append(dst, "((time "...)
		dst = appendShort(dst, g.t)
		dst = append(dst, ')')
		if g.changed&changedMode != 0 {
			dst = append(dst, "(play_mode "...)
			dst = strconv.AppendInt(dst, int64(g.mode), 10)
			dst = append(dst, ')')
		}
		if g.changed&changedScore != 0 {
			dst = append(dst, "(score_left "...)
			dst = strconv.AppendInt(dst, int64(g.scoreL), 10)
			dst = append(dst, ")(score_right "...)
			dst = strconv.AppendInt(dst, int64(g.scoreR), 10)
			dst = append(dst, ')')
		}
		if g.changed&changedTeams != 0 {
			dst = w.appendTeams(dst)
		}
		dst = append(dst, ")(RDS 0 1)("...)
	}
	// The scene: the ball, then per robot its torso, head and feet.
	dst = appendNode(dst, full, geom.Identity, w.ball.p, "StdUnitSphere", geom.Vec3{X: BallRadius, Y: BallRadius, Z: BallRadius}, "matOrange")
	for _, a := range w.agents {
		r := a.r
		mat := [...]string{"matGrey", "matLeft", "matRight"}[a.team]
		dst = appendNode(dst, full, r.R, r.world(geom.Vec3{X: 0, Y: 0, Z: 0.05}), "StdUnitBox", geom.Vec3{X: 0.1, Y: 0.1, Z: 0.18}, mat)
		cp, cr := r.camPose()
		dst = appendNode(dst, full, cr, cp, "StdUnitSphere", geom.Vec3{X: 0.065, Y: 0.065, Z: 0.065}, mat)
		for i := 0; i < 2; i++ {
			fr := r.R.Mul(r.kin.footR[i])
			dst = appendNode(dst, full, fr, r.world(r.kin.sole[i]).Add(geom.Vec3{X: 0, Y: 0, Z: 0.01}), "StdUnitBox",
				geom.Vec3{X: 2 * soleHalfW, Y: 2 * soleHalfL, Z: 0.02}, mat)
		}
	}
	// Close the scene list; the message is balanced, as the fork's is.
	return append(dst, ')')
}

func (w *World) appendTeams(dst []byte) []byte {
	if w.teams[teamLeft] != "" {
		dst = append(dst, "(team_left "...)
		dst = append(dst, w.teams[teamLeft]...)
		dst = append(dst, ')')
	}
	if w.teams[teamRight] != "" {
		dst = append(dst, "(team_right "...)
		dst = append(dst, w.teams[teamRight]...)
		dst = append(dst, ')')
	}
	return dst
}

// appendNode appends a transform node with a mesh: in full messages with
// its type and mesh, in updates with only its matrix (SLT: 4×4, column
// major, translation last).
func appendNode(dst []byte, full bool, r geom.Mat3, p geom.Vec3, mesh string, scale geom.Vec3, mat string) []byte {
	if full {
		dst = append(dst, "(nd TRF (SLT "...)
	} else {
		dst = append(dst, "(nd (SLT "...)
	}
	for c := 0; c < 3; c++ {
		for i := 0; i < 3; i++ {
			dst = appendShort(dst, r[3*i+c])
			dst = append(dst, ' ')
		}
		dst = append(dst, "0 "...)
	}
	for _, x := range p.Array() {
		dst = appendShort(dst, x)
		dst = append(dst, ' ')
	}
	dst = append(dst, "1)"...)
	if full {
		dst = append(dst, "(nd SMN (setVisible 1) (load "...)
		dst = append(dst, mesh...)
		dst = append(dst, ") (sSc "...)
		dst = appendShort(dst, scale.X)
		dst = append(dst, ' ')
		dst = appendShort(dst, scale.Y)
		dst = append(dst, ' ')
		dst = appendShort(dst, scale.Z)
		dst = append(dst, ") (sMat "...)
		dst = append(dst, mat...)
		return append(dst, ")))"...)
	}
	return append(dst, "(nd SMN))"...)
}

// appendShort writes a number the way the monitor does (up to 6
// significant digits, no trailing zeros).
func appendShort(dst []byte, v float64) []byte {
	if v == 0 {
		return append(dst, '0')
	}
	return strconv.AppendFloat(dst, v, 'g', 6, 64)
}
