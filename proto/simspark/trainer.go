package simspark

// TrainerKind is a trainer command, sent to the monitor port (3200).
type TrainerKind uint8

// Trainer commands, as rcssserver3d's TrainerCommandParser knows them.
const (
	// TrainUnknown is a command the server does not know (it ignores
	// it); TrainerCommand.Raw keeps its text.
	TrainUnknown      TrainerKind = iota
	TrainBall                     // (ball (pos x y z)(vel x y z)): both optional
	TrainAgent                    // (agent (unum N)(team Left)(pos x y z)|(move x y z deg)(battery v)(temperature v))
	TrainPlayMode                 // (playMode PlayOn)
	TrainKickOff                  // (kickOff Left|Right|None)
	TrainDropBall                 // (dropBall)
	TrainReqFullState             // (reqfullstate): next monitor message is a full state
	TrainTime                     // (time t): set the game time
	TrainScore                    // (score (left a)(right b))
	TrainKill                     // (kill (unum N)(team Left)): remove an agent
	TrainGetAck                   // (getAck [text]): the server replies "best"
	TrainRepos                    // (repos (unum N)(team Left)): move an agent off the ball
	TrainSelect                   // (select (unum N)(team Left)): select an agent in the monitor
	TrainKillSim                  // (killsim): stop the server
)

// String returns the command's name as the server spells it ("ball",
// "playMode", …), or "?".
func (k TrainerKind) String() string {
	switch k {
	case TrainBall:
		return "ball"
	case TrainAgent:
		return "agent"
	case TrainPlayMode:
		return "playMode"
	case TrainKickOff:
		return "kickOff"
	case TrainDropBall:
		return "dropBall"
	case TrainReqFullState:
		return "reqfullstate"
	case TrainTime:
		return "time"
	case TrainScore:
		return "score"
	case TrainKill:
		return "kill"
	case TrainGetAck:
		return "getAck"
	case TrainRepos:
		return "repos"
	case TrainSelect:
		return "select"
	case TrainKillSim:
		return "killsim"
	}
	return "?"
}

func trainerKind(name []byte) TrainerKind {
	for k := TrainBall; k <= TrainKillSim; k++ {
		if string(name) == k.String() {
			return k
		}
	}
	return TrainUnknown
}

// TrainerCommand is one trainer command. Which fields apply depends on
// Kind; the Has* flags say which optional ones were given.
type TrainerCommand struct {
	// Kind is the command.
	Kind TrainerKind
	// HasUnum and HasTeam say whether Unum and Team were given. They pick
	// an agent (agent, kill, repos, select); without them the server uses
	// the selected agent.
	HasUnum, HasTeam bool
	Unum             int  // the agent's uniform number
	Team             Span // the agent's side: Left, Right or None
	// HasPos, HasVel and HasMove say whether Pos, Vel and Move were given.
	HasPos, HasVel, HasMove bool
	// Pos is a position (m): the ball's or an agent's; Vel is the ball's
	// velocity (m/s).
	Pos, Vel [3]float64
	// Move is an agent's position (m) and rotation (deg; the robot's
	// myorien becomes rotation + 90 on the UNSW fork).
	Move [4]float64
	// HasRot says whether Rot was given: the BerlinUnited fork's rotation
	// triple, (rot <x> <y> <z>), the torso's rotation in degrees about the
	// field's x, y and z axes (applied in that order). The embedded
	// simulator lays a robot whose torso it tilts past 45° down on its
	// front or back.
	HasRot bool
	Rot    [3]float64
	// HasBattery and HasTemperature say whether Battery and Temperature
	// were given.
	HasBattery, HasTemperature bool
	// Battery and Temperature set an agent's state.
	Battery, Temperature float64
	// HasWord says whether Word was given (always for playMode and
	// kickOff, optional for getAck).
	HasWord bool
	// Word is the play mode (playMode), the team (kickOff) or the text
	// (getAck).
	Word Span
	// Time is the game time to set (s).
	Time float64
	// Left and Right are the score to set.
	Left, Right int
	// Raw is the text of an unknown command.
	Raw Span
}

// TrainerMessage is a message of trainer commands. Parse fills it, reusing
// its memory; strings are Spans in the embedded arena. To build one, Reset
// it and append commands (Intern their strings).
type TrainerMessage struct {
	arena
	// Commands are the commands in order.
	Commands []TrainerCommand
}

// Reset empties m, keeping its memory.
func (m *TrainerMessage) Reset() {
	m.buf = m.buf[:0]
	m.Commands = m.Commands[:0]
}

// Parse parses a trainer message into m, replacing its content. m keeps no
// reference to msg. Unknown commands are kept verbatim and unknown fields
// skipped (the server ignores both); a known command of the wrong form is
// an error (*SyntaxError).
func (m *TrainerMessage) Parse(msg []byte) error {
	m.Reset()
	if len(msg) > DefaultMaxFrame {
		return errAt(0, ErrTooLong, "message of %d bytes, longer than %d", len(msg), DefaultMaxFrame)
	}
	s := Scanner{src: msg, maxDepth: DefaultMaxDepth}
	for {
		s.skipSpace()
		if s.pos >= len(msg) {
			return nil
		}
		start := s.pos
		if err := topOpen(&s); err != nil {
			return err
		}
		c := TrainerCommand{Kind: trainerKind(s.head())}
		var err error
		switch c.Kind {
		case TrainBall, TrainAgent, TrainKill, TrainRepos, TrainSelect:
			err = m.parseFields(&s, &c)
		case TrainPlayMode, TrainKickOff:
			var w []byte
			if w, _, err = s.word(c.Kind.String()); err == nil {
				c.Word, c.HasWord = m.add(w), true
				err = s.close(c.Kind.String())
			}
		case TrainGetAck:
			if !s.atEnd() {
				var w []byte
				if w, _, err = s.word("getAck"); err != nil {
					return err
				}
				c.Word, c.HasWord = m.add(w), true
			}
			err = s.close("getAck")
		case TrainTime:
			if c.Time, err = s.number("time"); err == nil {
				err = s.close("time")
			}
		case TrainScore:
			err = m.parseScore(&s, &c, start)
		case TrainDropBall, TrainReqFullState, TrainKillSim:
			err = s.close(c.Kind.String())
		default:
			if err = s.skipRest(); err == nil {
				c.Raw = m.add(msg[start:s.pos])
			}
		}
		if err != nil {
			return err
		}
		m.Commands = append(m.Commands, c)
	}
}

// parseFields reads the (key …) fields of ball, agent, kill, repos and
// select.
func (m *TrainerMessage) parseFields(s *Scanner, c *TrainerCommand) error {
	what := c.Kind.String()
	var have uint8
	var team []byte
	for {
		key, off, more, err := s.field(what)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		var bit uint8
		switch string(key) {
		case "unum":
			bit = 1
		case "team":
			bit = 2
		case "pos":
			bit = 4
		case "vel":
			bit = 8
		case "move":
			bit = 16
		case "battery":
			bit = 32
		case "temperature":
			bit = 64
		case "rot":
			bit = 128
		}
		// Which fields each command takes.
		allowed := uint8(1 | 2)
		switch c.Kind {
		case TrainBall:
			allowed = 4 | 8
		case TrainAgent:
			allowed = 1 | 2 | 4 | 16 | 32 | 64 | 128
		}
		if bit&allowed == 0 {
			if err = s.skipRest(); err != nil {
				return err
			}
			continue
		}
		if err = once(&have, bit, off, what, key); err != nil {
			return err
		}
		switch bit {
		case 1:
			if c.Unum, err = s.integer("unum"); err == nil {
				err = s.close("unum")
			}
			c.HasUnum = true
		case 2:
			if team, _, err = s.word("team"); err == nil {
				err = s.close("team")
			}
			c.HasTeam = true
		case 4:
			err = s.numbers(c.Pos[:], "pos")
			c.HasPos = true
		case 8:
			err = s.numbers(c.Vel[:], "vel")
			c.HasVel = true
		case 16:
			err = s.numbers(c.Move[:], "move")
			c.HasMove = true
		case 32:
			if c.Battery, err = s.number("battery"); err == nil {
				err = s.close("battery")
			}
			c.HasBattery = true
		case 64:
			if c.Temperature, err = s.number("temperature"); err == nil {
				err = s.close("temperature")
			}
			c.HasTemperature = true
		case 128:
			err = s.numbers(c.Rot[:], "rot")
			c.HasRot = true
		}
		if err != nil {
			return err
		}
	}
	if c.HasTeam {
		c.Team = m.add(team)
	}
	return nil
}

func (m *TrainerMessage) parseScore(s *Scanner, c *TrainerCommand, start int) error {
	var have uint8
	for {
		key, off, more, err := s.field("score")
		if err != nil {
			return err
		}
		if !more {
			break
		}
		switch string(key) {
		case "left":
			if err = once(&have, 1, off, "score", key); err == nil {
				if c.Left, err = s.integer("score left"); err == nil {
					err = s.close("score left")
				}
			}
		case "right":
			if err = once(&have, 2, off, "score", key); err == nil {
				if c.Right, err = s.integer("score right"); err == nil {
					err = s.close("score right")
				}
			}
		default:
			err = s.skipRest()
		}
		if err != nil {
			return err
		}
	}
	if have != 3 {
		return errAt(start, ErrMissing, "score: want (left a)(right b)")
	}
	return nil
}

// Append encodes m's commands and appends them to dst, e.g.
// "(ball (pos 1 1 0.05)(vel 2 0 0))", "(agent (unum 1)(team Left)(move -2 1 0.35 90))",
// "(playMode PlayOn)", "(score (left 1)(right 2))". Unknown commands are
// written verbatim.
func (m *TrainerMessage) Append(dst []byte, f Format) []byte {
	for i := range m.Commands {
		c := &m.Commands[i]
		if c.Kind == TrainUnknown {
			dst = append(dst, m.bytes(c.Raw)...)
			continue
		}
		if c.Kind > TrainKillSim {
			continue
		}
		dst = append(append(dst, '('), c.Kind.String()...)
		switch c.Kind {
		case TrainBall, TrainAgent, TrainKill, TrainRepos, TrainSelect:
			first := true
			field := func(name string) {
				if first {
					dst = append(dst, ' ')
					first = false
				}
				dst = append(append(append(dst, '('), name...), ' ')
			}
			if c.HasUnum {
				field("unum")
				dst = append(itoa(dst, c.Unum), ')')
			}
			if c.HasTeam {
				field("team")
				dst = append(append(dst, m.bytes(c.Team)...), ')')
			}
			if c.HasPos {
				field("pos")
				dst = append(appendNums(dst, c.Pos[:], f), ')')
			}
			if c.HasVel {
				field("vel")
				dst = append(appendNums(dst, c.Vel[:], f), ')')
			}
			if c.HasMove {
				field("move")
				dst = append(appendNums(dst, c.Move[:], f), ')')
			}
			if c.HasRot {
				field("rot")
				dst = append(appendNums(dst, c.Rot[:], f), ')')
			}
			if c.HasBattery {
				field("battery")
				dst = append(f.num(dst, c.Battery), ')')
			}
			if c.HasTemperature {
				field("temperature")
				dst = append(f.num(dst, c.Temperature), ')')
			}
		case TrainPlayMode, TrainKickOff, TrainGetAck:
			if c.HasWord {
				dst = append(append(dst, ' '), m.bytes(c.Word)...)
			}
		case TrainTime:
			dst = f.num(append(dst, ' '), c.Time)
		case TrainScore:
			dst = append(itoa(append(dst, " (left "...), c.Left), ')')
			dst = append(itoa(append(dst, "(right "...), c.Right), ')')
		}
		dst = append(dst, ')')
	}
	return dst
}
