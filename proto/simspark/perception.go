package simspark

// Kind is the kind of a top-level perceptor, of an item in a See block, or
// (EffScene …, effectors.go) of an effector.
type Kind uint8

// Top-level perceptor kinds, and the kinds of See items.
const (
	// KindUnknown is a perceptor or See item this package does not know;
	// its text is kept verbatim (Perception.Unknown, See.Unknown).
	KindUnknown Kind = iota
	KindTime         // (time (now t))
	KindGS           // (GS …): game state
	KindGYR          // (GYR (n torso) (rt x y z))
	KindACC          // (ACC (n torso) (a x y z))
	KindHJ           // (HJ (n name) (ax deg))
	KindFRP          // (FRP (n lf) (c x y z) (f x y z))
	KindTCH          // (TCH (n name) (val v))
	KindSee          // (See …)
	KindHear         // (hear [team] time self|direction message)

	SeeObject  // See item (name (pol d h v)): B, G1L…G2R, F1L…F2R
	SeeLine    // See item (L (pol …) (pol …))
	SeePlayer  // See item (P (team X) (id N) (part (pol …))…)
	SeeFeature // See item (name (ffs d h v o)): CNR, TJ, CC
	SeeMyPos   // See item (mypos x y z)
	SeeMyOrien // See item (myorien deg)
	SeeBallPos // See item (ballpos x y z)
)

// String returns the perceptor's name ("GS", "HJ", "See"), "obj", "L",
// "P", "ff", "mypos", "myorien", "ballpos", an effector's kind, or "?".
func (k Kind) String() string {
	switch k {
	case KindTime:
		return "time"
	case KindGS:
		return "GS"
	case KindGYR:
		return "GYR"
	case KindACC:
		return "ACC"
	case KindHJ:
		return "HJ"
	case KindFRP:
		return "FRP"
	case KindTCH:
		return "TCH"
	case KindSee:
		return "See"
	case KindHear:
		return "hear"
	case SeeObject:
		return "obj"
	case SeeLine:
		return "L"
	case SeePlayer:
		return "P"
	case SeeFeature:
		return "ff"
	case SeeMyPos:
		return "mypos"
	case SeeMyOrien:
		return "myorien"
	case SeeBallPos:
		return "ballpos"
	case EffScene:
		return "scene"
	case EffInit:
		return "init"
	case EffBeam:
		return "beam"
	case EffSyn:
		return "syn"
	case EffSay:
		return "say"
	case EffJoint:
		return "joint"
	}
	return "?"
}

// Item places one perceptor (or See item, or effector) in a message: its
// kind and its index in the slice of that kind (0 for those that appear at
// most once).
type Item struct {
	Kind  Kind   // what the item is
	Index uint16 // where it is in the slice of its kind
}

// GameState is the GS perceptor. Every field is optional; the server sends
// unum and team only in the first GS after init.
type GameState struct {
	// Has* say which fields were present (HasScore: sl or sr).
	HasUnum, HasTeam, HasScore, HasTime, HasPlayMode bool
	// Unum is the player's uniform number.
	Unum int
	// Team is the side: "left" or "right" (lower case).
	Team Span
	// ScoreLeft and ScoreRight are the goals of each side.
	ScoreLeft, ScoreRight int
	// Time is the game time in seconds.
	Time float64
	// PlayMode is the play mode's name, e.g. "BeforeKickOff", "PlayOn".
	PlayMode Span
}

// Vector is a named 3-vector perceptor in the simulator's torso frame
// (x = robot's right, y = forward, z = up): GYR rt in deg/s, ACC a in
// m/s² (upright and still it reads (0, 0, +9.81)).
type Vector struct {
	// Name is the sensor's name ("torso").
	Name Span
	// V is x, y, z.
	V [3]float64
}

// JointAngle is one HJ perceptor.
type JointAngle struct {
	// ID is the joint.
	ID JointID
	// Deg is the joint angle in degrees, simulator sign.
	Deg float64
}

// ForceResistance is one FRP perceptor, sent only while the foot touches
// something.
type ForceResistance struct {
	// Name is the sensor: lf, rf (lf1, rf1: toes of the type-4 model).
	Name Span
	// C is the contact point in the foot's frame (m), F the total force (N).
	C, F [3]float64
}

// Touch is one TCH perceptor (not installed on the NAO model).
type Touch struct {
	// Name is the sensor's name.
	Name Span
	// Val is its value (0 or 1).
	Val float64
}

// Hear is a heard message: from our own say (Self) or from direction Dir.
type Hear struct {
	// HasTeam says whether the message was labelled with the speaker's
	// team (the server's LabelMessages, on by default).
	HasTeam bool
	// Team is the speaker's team name.
	Team Span
	// Time is the game time in seconds.
	Time float64
	// Self marks our own message.
	Self bool
	// Dir is the speaker's direction in degrees (in the listener's team
	// frame, not relative to its heading), if not Self.
	Dir float64
	// Msg is the message text.
	Msg Span
}

// Polar is a seen position relative to the camera: distance (m),
// horizontal angle (deg, positive to the left) and vertical angle (deg,
// positive up).
type Polar [3]float64

// Object is a seen ball (B), goal post (G1L, G1R, G2L, G2R) or flag (F1L,
// F1R, F2L, F2R): any See item of the form (name (pol d h v)).
type Object struct {
	// Name is the object's name.
	Name Span
	// Pol is where it is.
	Pol Polar
}

// Line is a seen field line: the ends of its visible part.
type Line struct {
	A, B Polar // the two ends
}

// Player is a seen robot; its body parts are
// See.Parts[PartStart:PartStart+PartCount].
type Player struct {
	// Team is the robot's team name, if HasTeam.
	Team Span
	// HasTeam and HasID say whether team and id were present.
	HasTeam, HasID bool
	// ID is the robot's uniform number, if HasID.
	ID int
	// PartStart and PartCount locate its body parts in See.Parts.
	PartStart, PartCount uint16
}

// BodyPart is a seen body part of a player: head, rlowerarm, llowerarm,
// rfoot, lfoot, or any other name.
type BodyPart struct {
	// Name is the part's name.
	Name Span
	// Pol is where it is.
	Pol Polar
}

// Feature is a seen field feature of the UNSW fork (CNR, TJ, CC): any See
// item of the form (name (ffs d h v o)).
type Feature struct {
	// Name is the feature's name.
	Name Span
	// V is distance (m), horizontal and vertical angle (deg) and an
	// orientation (deg).
	V [4]float64
}

// See is a vision perceptor (RestrictedVisionPerceptor). Order lists its
// items in the order they came; the slices hold them by kind.
type See struct {
	// Objects are the seen balls, goal posts and flags.
	Objects []Object
	// Lines are the seen field lines (off in the UNSW fork).
	Lines []Line
	// Players are the seen robots; Parts holds their body parts.
	Players []Player
	// Parts are the body parts of Players.
	Parts []BodyPart
	// Features are the seen field features.
	Features []Feature
	// MyPos is the camera's position (m) in the team's field frame,
	// ballpos the ball's: cheat values of the UNSW fork. See Order for
	// whether they were present.
	MyPos, BallPos [3]float64
	// MyOrien is the camera's heading (deg) in the team's field frame.
	MyOrien float64
	// Unknown holds the raw text of items of unknown form.
	Unknown []Span
	// Order is the order of the items.
	Order []Item
}

// Perception is one perceptor message from the server. All values are in
// the server's units and frames: degrees, deg/s, m/s², metres, seconds;
// converting them to the NAO's frame and units is the backend's job.
//
// Parse fills it, reusing its memory: in steady state it allocates
// nothing. The strings (Span) live in the embedded arena (read them with
// Bytes, Str or Is) until the next Parse or Reset. To build a message to
// encode, Reset it, set the fields, Intern the strings and Add every
// perceptor in order.
type Perception struct {
	arena
	// Time is the simulation time in seconds (time (now t)).
	Time float64
	// GS is the game state.
	GS GameState
	// GYR is the torso's angular velocity (deg/s).
	GYR Vector
	// ACC is the torso's proper acceleration (m/s²).
	ACC Vector
	// Joints are the HJ readings in the order they came.
	Joints []JointAngle
	// FRP are the foot force readings.
	FRP []ForceResistance
	// Touch are the TCH readings.
	Touch []Touch
	// See is the vision perceptor, if Order has a KindSee item.
	See See
	// Hear are the heard messages.
	Hear []Hear
	// Unknown holds the raw text of unknown perceptors.
	Unknown []Span
	// Order is the order of the top-level perceptors.
	Order []Item
}

// Reset empties p, keeping its memory.
func (p *Perception) Reset() {
	p.buf = p.buf[:0]
	p.Time, p.GS, p.GYR, p.ACC = 0, GameState{}, Vector{}, Vector{}
	p.Joints, p.FRP, p.Touch, p.Hear, p.Unknown, p.Order = p.Joints[:0], p.FRP[:0], p.Touch[:0], p.Hear[:0], p.Unknown[:0], p.Order[:0]
	s := &p.See
	s.Objects, s.Lines, s.Players, s.Parts, s.Features, s.Unknown, s.Order = s.Objects[:0], s.Lines[:0], s.Players[:0], s.Parts[:0], s.Features[:0], s.Unknown[:0], s.Order[:0]
	s.MyPos, s.MyOrien, s.BallPos = [3]float64{}, 0, [3]float64{}
}

// Has reports whether the message has a perceptor of kind k.
func (p *Perception) Has(k Kind) bool {
	for _, it := range p.Order {
		if it.Kind == k {
			return true
		}
	}
	return false
}

// HasSee reports whether the message has a See block.
func (p *Perception) HasSee() bool { return p.Has(KindSee) }

// Add appends an item to the order (for building messages to encode).
func (p *Perception) Add(k Kind, index int) { p.Order = append(p.Order, Item{k, uint16(index)}) }

// Parse parses a perceptor message into p, replacing its content. p keeps
// no reference to msg. Unknown perceptors and See items are kept verbatim;
// unknown fields inside known perceptors are skipped. time, GS, GYR, ACC
// and See, and mypos, myorien and ballpos inside See, may appear once.
// Errors are *SyntaxError; after one, p holds part of the message.
func (p *Perception) Parse(msg []byte) error {
	p.Reset()
	if len(msg) > DefaultMaxFrame {
		return errAt(0, ErrTooLong, "message of %d bytes, longer than %d", len(msg), DefaultMaxFrame)
	}
	s := Scanner{src: msg, maxDepth: DefaultMaxDepth}
	var seen uint32
	for {
		s.skipSpace()
		if s.pos >= len(msg) {
			return nil
		}
		start := s.pos
		if err := topOpen(&s); err != nil {
			return err
		}
		name := s.head()
		k := perceptorKind(name)
		if k != KindUnknown && k <= KindSee && k != KindHJ && k != KindFRP && k != KindTCH {
			if seen&(1<<k) != 0 {
				return errAt(start, ErrRepeated, "more than one %s perceptor", k)
			}
			seen |= 1 << k
		}
		var err error
		switch k {
		case KindTime:
			err = p.parseTime(&s, start)
		case KindGS:
			err = p.parseGS(&s)
		case KindGYR:
			err = p.parseVector(&s, start, &p.GYR, "GYR", "rt")
		case KindACC:
			err = p.parseVector(&s, start, &p.ACC, "ACC", "a")
		case KindHJ:
			err = p.parseHJ(&s, start)
		case KindFRP:
			err = p.parseFRP(&s, start)
		case KindTCH:
			err = p.parseTCH(&s, start)
		case KindSee:
			err = p.parseSee(&s)
		case KindHear:
			err = p.parseHear(&s, start)
		default:
			if err = s.skipRest(); err == nil && len(p.Unknown) >= MaxItems {
				err = errAt(start, ErrTooLong, "more than %d unknown perceptors", MaxItems)
			}
			if err == nil {
				p.Unknown = append(p.Unknown, p.add(msg[start:s.pos]))
				p.Add(KindUnknown, len(p.Unknown)-1)
			}
		}
		if err != nil {
			return err
		}
	}
}

// topOpen enters a top-level list, which must be next.
func topOpen(s *Scanner) error {
	switch s.src[s.pos] {
	case '(':
		return s.open()
	case ')':
		return errAt(s.pos, ErrUnbalanced, "unbalanced ')'")
	}
	return errAt(s.pos, ErrUnexpected, "text %s outside parentheses", s.found())
}

func perceptorKind(name []byte) Kind {
	switch string(name) {
	case "time":
		return KindTime
	case "GS":
		return KindGS
	case "GYR":
		return KindGYR
	case "ACC":
		return KindACC
	case "HJ":
		return KindHJ
	case "FRP":
		return KindFRP
	case "TCH":
		return KindTCH
	case "See":
		return KindSee
	case "hear":
		return KindHear
	}
	return KindUnknown
}

// once marks bit in *have, or reports a repeated field.
func once(have *uint8, bit uint8, off int, what string, key []byte) error {
	if *have&bit != 0 {
		return errAt(off, ErrRepeated, "%s: repeated (%s …)", what, key)
	}
	*have |= bit
	return nil
}

func (p *Perception) parseTime(s *Scanner, start int) error {
	var have uint8
	for {
		key, off, more, err := s.field("time")
		if err != nil {
			return err
		}
		if !more {
			break
		}
		if string(key) != "now" {
			if err = s.skipRest(); err != nil {
				return err
			}
			continue
		}
		if err = once(&have, 1, off, "time", key); err != nil {
			return err
		}
		if p.Time, err = s.number("time now"); err != nil {
			return err
		}
		if err := s.close("time now"); err != nil {
			return err
		}
	}
	if have == 0 {
		return errAt(start, ErrMissing, "time: missing (now t)")
	}
	p.Add(KindTime, 0)
	return nil
}

func (p *Perception) parseGS(s *Scanner) error {
	g := &p.GS
	var have uint8
	var team, pm []byte // interned after the loop, in a fixed order
	for {
		key, off, more, err := s.field("GS")
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
		case "sl":
			bit = 4
		case "sr":
			bit = 8
		case "t":
			bit = 16
		case "pm":
			bit = 32
		default:
			if err = s.skipRest(); err != nil {
				return err
			}
			continue
		}
		if err = once(&have, bit, off, "GS", key); err != nil {
			return err
		}
		switch bit {
		case 1:
			g.Unum, err = s.integer("GS unum")
			g.HasUnum = true
		case 2:
			team, _, err = s.word("GS team")
			g.HasTeam = true
		case 4:
			g.ScoreLeft, err = s.integer("GS sl")
			g.HasScore = true
		case 8:
			g.ScoreRight, err = s.integer("GS sr")
			g.HasScore = true
		case 16:
			g.Time, err = s.number("GS t")
			g.HasTime = true
		case 32:
			pm, _, err = s.word("GS pm")
			g.HasPlayMode = true
		}
		if err == nil {
			err = s.close("GS")
		}
		if err != nil {
			return err
		}
	}
	if g.HasTeam {
		g.Team = p.add(team)
	}
	if g.HasPlayMode {
		g.PlayMode = p.add(pm)
	}
	p.Add(KindGS, 0)
	return nil
}

func (p *Perception) parseVector(s *Scanner, start int, v *Vector, what, vecKey string) error {
	var have uint8
	for {
		key, off, more, err := s.field(what)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		switch string(key) {
		case "n":
			if err = once(&have, 1, off, what, key); err != nil {
				return err
			}
			var name []byte
			if name, _, err = s.word(what); err == nil {
				v.Name = p.add(name)
				err = s.close(what)
			}
		case vecKey:
			if err = once(&have, 2, off, what, key); err != nil {
				return err
			}
			err = s.numbers(v.V[:], what)
		default:
			err = s.skipRest()
		}
		if err != nil {
			return err
		}
	}
	if have != 3 {
		return errAt(start, ErrMissing, "%s: want (n name) and (%s x y z)", what, vecKey)
	}
	if what == "GYR" {
		p.Add(KindGYR, 0)
	} else {
		p.Add(KindACC, 0)
	}
	return nil
}

func (p *Perception) parseHJ(s *Scanner, start int) error {
	var ja JointAngle
	var have uint8
	for {
		key, off, more, err := s.field("HJ")
		if err != nil {
			return err
		}
		if !more {
			break
		}
		switch string(key) {
		case "n":
			if err = once(&have, 1, off, "HJ", key); err != nil {
				return err
			}
			var name []byte
			var noff int
			if name, noff, err = s.word("HJ n"); err != nil {
				return err
			}
			id, ok := JointByPerceptorName(name)
			if !ok {
				return errAt(noff, ErrUnknownJoint, "HJ: unknown joint %q", clip(name))
			}
			ja.ID = id
			err = s.close("HJ n")
		case "ax":
			if err = once(&have, 2, off, "HJ", key); err != nil {
				return err
			}
			if ja.Deg, err = s.number("HJ ax"); err == nil {
				err = s.close("HJ ax")
			}
		default:
			err = s.skipRest()
		}
		if err != nil {
			return err
		}
	}
	if have != 3 {
		return errAt(start, ErrMissing, "HJ: want (n name) and (ax deg)")
	}
	if len(p.Joints) >= MaxItems {
		return errAt(start, ErrTooLong, "more than %d HJ perceptors", MaxItems)
	}
	p.Joints = append(p.Joints, ja)
	p.Add(KindHJ, len(p.Joints)-1)
	return nil
}

func (p *Perception) parseFRP(s *Scanner, start int) error {
	var f ForceResistance
	var have uint8
	for {
		key, off, more, err := s.field("FRP")
		if err != nil {
			return err
		}
		if !more {
			break
		}
		switch string(key) {
		case "n":
			if err = once(&have, 1, off, "FRP", key); err != nil {
				return err
			}
			var name []byte
			if name, _, err = s.word("FRP n"); err == nil {
				f.Name = p.add(name)
				err = s.close("FRP n")
			}
		case "c":
			if err = once(&have, 2, off, "FRP", key); err != nil {
				return err
			}
			err = s.numbers(f.C[:], "FRP c")
		case "f":
			if err = once(&have, 4, off, "FRP", key); err != nil {
				return err
			}
			err = s.numbers(f.F[:], "FRP f")
		default:
			err = s.skipRest()
		}
		if err != nil {
			return err
		}
	}
	if have != 7 {
		return errAt(start, ErrMissing, "FRP: want (n name), (c x y z) and (f x y z)")
	}
	if len(p.FRP) >= MaxItems {
		return errAt(start, ErrTooLong, "more than %d FRP perceptors", MaxItems)
	}
	p.FRP = append(p.FRP, f)
	p.Add(KindFRP, len(p.FRP)-1)
	return nil
}

func (p *Perception) parseTCH(s *Scanner, start int) error {
	var tc Touch
	var have uint8
	for {
		key, off, more, err := s.field("TCH")
		if err != nil {
			return err
		}
		if !more {
			break
		}
		switch string(key) {
		case "n":
			if err = once(&have, 1, off, "TCH", key); err != nil {
				return err
			}
			var name []byte
			if name, _, err = s.word("TCH n"); err == nil {
				tc.Name = p.add(name)
				err = s.close("TCH n")
			}
		case "val":
			if err = once(&have, 2, off, "TCH", key); err != nil {
				return err
			}
			if tc.Val, err = s.number("TCH val"); err == nil {
				err = s.close("TCH val")
			}
		default:
			err = s.skipRest()
		}
		if err != nil {
			return err
		}
	}
	if have != 3 {
		return errAt(start, ErrMissing, "TCH: want (n name) and (val v)")
	}
	if len(p.Touch) >= MaxItems {
		return errAt(start, ErrTooLong, "more than %d TCH perceptors", MaxItems)
	}
	p.Touch = append(p.Touch, tc)
	p.Add(KindTCH, len(p.Touch)-1)
	return nil
}

// parseHear reads (hear [team] time self|direction message).
func (p *Perception) parseHear(s *Scanner, start int) error {
	var args [4][2]int
	n := 0
	for {
		s.skipSpace()
		if s.pos >= len(s.src) {
			return s.eof("hear")
		}
		c := s.src[s.pos]
		if c == ')' {
			s.pos++
			s.depth--
			break
		}
		if c == '(' || n == len(args) {
			return errAt(s.pos, ErrUnexpected, "hear: want [team] time self|direction message, found %s", s.found())
		}
		end := s.atomEnd(s.pos)
		args[n] = [2]int{s.pos, end}
		n++
		s.pos = end
	}
	if n < 3 {
		return errAt(start, ErrMissing, "hear: want [team] time self|direction message, got %d values", n)
	}
	arg := func(i int) []byte { return s.src[args[i][0]:args[i][1]] } // does not escape
	var h Hear
	i := 0
	if n == 4 {
		h.HasTeam = true
		i = 1
	}
	var ok bool
	if h.Time, ok = parseFloat(arg(i)); !ok {
		return errAt(args[i][0], ErrBadNumber, "hear time: bad number %q", clip(arg(i)))
	}
	if d := arg(i + 1); string(d) == "self" {
		h.Self = true
	} else if h.Dir, ok = parseFloat(d); !ok {
		return errAt(args[i+1][0], ErrBadNumber, "hear direction: bad number %q", clip(d))
	}
	if len(p.Hear) >= MaxItems {
		return errAt(start, ErrTooLong, "more than %d hear perceptors", MaxItems)
	}
	if h.HasTeam {
		h.Team = p.add(arg(0))
	}
	h.Msg = p.add(arg(i + 2))
	p.Hear = append(p.Hear, h)
	p.Add(KindHear, len(p.Hear)-1)
	return nil
}

func (p *Perception) parseSee(s *Scanner) error {
	v := &p.See
	var seen uint8
	for {
		s.skipSpace()
		if s.pos >= len(s.src) {
			return s.eof("See")
		}
		start := s.pos
		switch s.src[start] {
		case ')':
			s.pos++
			s.depth--
			p.Add(KindSee, 0)
			return nil
		case '(':
		default: // a bare atom: keep it as an unknown item
			s.pos = s.atomEnd(start)
			if err := p.seeUnknown(s, start); err != nil {
				return err
			}
			continue
		}
		if err := s.open(); err != nil {
			return err
		}
		name := s.head()
		var err error
		switch string(name) {
		case "L":
			err = p.seeLine(s, start)
		case "P":
			err = p.seePlayer(s, start)
		case "mypos", "ballpos", "myorien":
			k, bit := SeeMyPos, uint8(1)
			switch name[1] {
			case 'a':
				k, bit = SeeBallPos, 2
			case 'y':
				if name[2] == 'o' {
					k, bit = SeeMyOrien, 4
				}
			}
			if err = once(&seen, bit, start, "See", name); err != nil {
				return err
			}
			switch k {
			case SeeMyPos:
				err = s.numbers(v.MyPos[:], "mypos")
			case SeeBallPos:
				err = s.numbers(v.BallPos[:], "ballpos")
			default:
				if v.MyOrien, err = s.number("myorien"); err == nil {
					err = s.close("myorien")
				}
			}
			v.Order = append(v.Order, Item{k, 0})
		default:
			if name == nil {
				if err = s.skipRest(); err == nil {
					err = p.seeUnknown(s, start)
				}
			} else {
				err = p.seeObject(s, start, name)
			}
		}
		if err != nil {
			return err
		}
	}
}

// seeUnknown keeps the text from start to the scanner's position.
func (p *Perception) seeUnknown(s *Scanner, start int) error {
	v := &p.See
	if len(v.Unknown) >= MaxItems {
		return errAt(start, ErrTooLong, "more than %d unknown See items", MaxItems)
	}
	v.Unknown = append(v.Unknown, p.add(s.src[start:s.pos]))
	v.Order = append(v.Order, Item{KindUnknown, uint16(len(v.Unknown) - 1)})
	return nil
}

// seeObject reads (name (pol d h v)) or (name (ffs d h v o)); an item of
// any other form is kept verbatim.
func (p *Perception) seeObject(s *Scanner, start int, name []byte) error {
	v := &p.See
	save, depth := s.pos, s.depth
	s.skipSpace()
	if s.pos < len(s.src) && s.src[s.pos] == '(' {
		if err := s.open(); err != nil {
			return err
		}
		switch string(s.head()) {
		case "pol":
			var pol Polar
			if err := s.numbers(pol[:], "pol"); err != nil {
				return err
			}
			if s.atEnd() {
				s.pos++
				s.depth--
				if len(v.Objects) >= MaxItems {
					return errAt(start, ErrTooLong, "more than %d See objects", MaxItems)
				}
				v.Objects = append(v.Objects, Object{Name: p.add(name), Pol: pol})
				v.Order = append(v.Order, Item{SeeObject, uint16(len(v.Objects) - 1)})
				return nil
			}
		case "ffs":
			var f [4]float64
			if err := s.numbers(f[:], "ffs"); err != nil {
				return err
			}
			if s.atEnd() {
				s.pos++
				s.depth--
				if len(v.Features) >= MaxItems {
					return errAt(start, ErrTooLong, "more than %d See features", MaxItems)
				}
				v.Features = append(v.Features, Feature{Name: p.add(name), V: f})
				v.Order = append(v.Order, Item{SeeFeature, uint16(len(v.Features) - 1)})
				return nil
			}
		}
	}
	s.pos, s.depth = save, depth
	if err := s.skipRest(); err != nil {
		return err
	}
	return p.seeUnknown(s, start)
}

func (p *Perception) seeLine(s *Scanner, start int) error {
	var l Line
	for i := range 2 {
		dst := &l.A
		if i == 1 {
			dst = &l.B
		}
		key, off, more, err := s.field("L")
		if err != nil {
			return err
		}
		if !more {
			return errAt(off, ErrMissing, "L: want two (pol d h v), got %d", i)
		}
		if string(key) != "pol" {
			return errAt(off, ErrUnexpected, "L: want (pol d h v), found (%s …)", clip(key))
		}
		if err := s.numbers(dst[:], "L pol"); err != nil {
			return err
		}
	}
	if err := s.close("L"); err != nil {
		return err
	}
	v := &p.See
	if len(v.Lines) >= MaxItems {
		return errAt(start, ErrTooLong, "more than %d See lines", MaxItems)
	}
	v.Lines = append(v.Lines, l)
	v.Order = append(v.Order, Item{SeeLine, uint16(len(v.Lines) - 1)})
	return nil
}

func (p *Perception) seePlayer(s *Scanner, start int) error {
	v := &p.See
	if len(v.Players) >= MaxItems {
		return errAt(start, ErrTooLong, "more than %d See players", MaxItems)
	}
	pl := Player{PartStart: uint16(len(v.Parts))}
	var team []byte // interned after the parts, in a fixed order
	var have uint8
	for {
		key, off, more, err := s.field("P")
		if err != nil {
			return err
		}
		if !more {
			break
		}
		switch string(key) {
		case "team":
			if err = once(&have, 1, off, "P", key); err != nil {
				return err
			}
			if team, _, err = s.word("P team"); err == nil {
				err = s.close("P team")
			}
			pl.HasTeam = true
		case "id":
			if err = once(&have, 2, off, "P", key); err != nil {
				return err
			}
			if pl.ID, err = s.integer("P id"); err == nil {
				err = s.close("P id")
			}
			pl.HasID = true
		default: // a body part: (name (pol d h v))
			var k []byte
			var poff int
			if k, poff, more, err = s.field("P part"); err != nil {
				return err
			}
			if !more {
				return errAt(off, ErrMissing, "P: body part %q without (pol d h v)", clip(key))
			}
			if string(k) != "pol" {
				return errAt(poff, ErrUnexpected, "P: body part %q: want (pol d h v), found (%s …)", clip(key), clip(k))
			}
			var bp BodyPart
			if err = s.numbers(bp.Pol[:], "P pol"); err != nil {
				return err
			}
			if err = s.close("P part"); err != nil {
				return err
			}
			if len(v.Parts) >= MaxItems {
				return errAt(off, ErrTooLong, "more than %d See body parts", MaxItems)
			}
			bp.Name = p.add(key)
			v.Parts = append(v.Parts, bp)
			pl.PartCount++
		}
		if err != nil {
			return err
		}
	}
	if pl.HasTeam {
		pl.Team = p.add(team)
	}
	v.Players = append(v.Players, pl)
	v.Order = append(v.Order, Item{SeePlayer, uint16(len(v.Players) - 1)})
	return nil
}
