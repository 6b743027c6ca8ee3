package simspark

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is the kind of a top-level perceptor, or of an item in a See block.
type Kind uint8

// Top-level perceptor kinds, and the kinds of See items.
const (
	KindUnknown Kind = iota
	KindTime
	KindGS
	KindGYR
	KindACC
	KindHJ
	KindFRP
	KindTCH
	KindSee
	KindHear

	SeeObject  // B, G1L…, F1L…: (name (pol d h v))
	SeeLine    // (L (pol …) (pol …))
	SeePlayer  // (P (team X) (id N) (part (pol …))…)
	SeeFeature // CNR, TJ, CC: (name (ffs d h v o))
	SeeMyPos
	SeeMyOrien
	SeeBallPos
)

var kindNames = [...]string{KindUnknown: "?", KindTime: "time", KindGS: "GS", KindGYR: "GYR", KindACC: "ACC",
	KindHJ: "HJ", KindFRP: "FRP", KindTCH: "TCH", KindSee: "See", KindHear: "hear",
	SeeObject: "obj", SeeLine: "L", SeePlayer: "P", SeeFeature: "ff", SeeMyPos: "mypos", SeeMyOrien: "myorien", SeeBallPos: "ballpos"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "?"
}

// Item places one perceptor in a message: its kind and its index in the
// slice of that kind.
type Item struct {
	Kind  Kind
	Index uint16
}

// GameState is the GS perceptor.
type GameState struct {
	// Has* say which fields were present.
	HasUnum, HasTeam, HasScore, HasTime, HasPlayMode bool
	Unum                                             int
	Team                                             Span // "left" / "right"
	ScoreLeft, ScoreRight                            int
	Time                                             float64
	PlayMode                                         Span
}

// Vector is a named 3-vector perceptor (GYR rt in deg/s, ACC a in m/s²).
type Vector struct {
	Name Span
	V    [3]float64
}

// JointAngle is one HJ perceptor: a joint angle in degrees.
type JointAngle struct {
	ID  JointID
	Deg float64
}

// ForceResistance is one FRP perceptor: contact point c (m) and force f (N).
type ForceResistance struct {
	Name Span // lf, rf, lf1, rf1
	C, F [3]float64
}

// Touch is one TCH perceptor.
type Touch struct {
	Name Span
	Val  float64
}

// Hear is a heard message: from our own say (Self) or from direction Dir
// (degrees).
type Hear struct {
	Team Span
	Time float64
	Self bool
	Dir  float64
	Msg  Span
}

// Polar is (distance m, horizontal deg, vertical deg) from the camera.
type Polar [3]float64

// Object is a seen ball, goal post or flag.
type Object struct {
	Name Span
	Pol  Polar
}

// Line is a seen field line.
type Line struct{ A, B Polar }

// Player is a seen robot; its body parts are Parts[PartStart:PartStart+PartCount].
type Player struct {
	Team                 Span
	HasTeam, HasID       bool
	ID                   int
	PartStart, PartCount uint16
}

// BodyPart is a seen body part of a player.
type BodyPart struct {
	Name Span
	Pol  Polar
}

// Feature is a seen field feature (CNR, TJ, CC): distance, horizontal and
// vertical angle, and an orientation (deg).
type Feature struct {
	Name Span
	V    [4]float64
}

// See is a vision perceptor.
type See struct {
	Objects  []Object
	Lines    []Line
	Players  []Player
	Parts    []BodyPart
	Features []Feature
	MyPos    [3]float64
	MyOrien  float64
	BallPos  [3]float64
	Unknown  []Span // raw text of unknown items
	Order    []Item
}

// Perception is one perceptor message.
type Perception struct {
	arena
	Time    float64
	GS      GameState
	GYR     Vector
	ACC     Vector
	Joints  []JointAngle
	FRP     []ForceResistance
	Touch   []Touch
	See     See
	Hear    []Hear
	Unknown []Span // raw text of unknown perceptors
	// Order is the order of the top-level perceptors.
	Order []Item
	t     tree
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

// HasSee reports whether the message has a See block.
func (p *Perception) HasSee() bool {
	for _, it := range p.Order {
		if it.Kind == KindSee {
			return true
		}
	}
	return false
}

// Add appends an item to the order (for building messages to encode).
func (p *Perception) Add(k Kind, index int) { p.Order = append(p.Order, Item{k, uint16(index)}) }

// Parse parses a perceptor message into p, replacing its content. p keeps no
// reference to msg.
func (p *Perception) Parse(msg []byte) error {
	p.Reset()
	if err := p.t.parse(msg, DefaultMaxDepth); err != nil {
		return err
	}
	t := &p.t
	for n := t.tops; n >= 0; n = t.nodes[n].next {
		if err := p.top(n); err != nil {
			return err
		}
	}
	// The singular perceptors may appear once.
	var seen uint16
	for _, it := range p.Order {
		switch it.Kind {
		case KindTime, KindGS, KindGYR, KindACC, KindSee:
			if seen&(1<<it.Kind) != 0 {
				return errAt(0, "more than one %s perceptor", it.Kind)
			}
			seen |= 1 << it.Kind
		}
	}
	return nil
}

func (p *Perception) top(n int32) error {
	t := &p.t
	name, h, ok := t.head(n)
	if !ok {
		return errAt(int(t.nodes[n].start), "perceptor without a name")
	}
	args := t.nodes[h].next
	switch string(name) {
	case "time":
		v, err := p.field1(args, "now", name)
		if err != nil {
			return err
		}
		p.Time = v
		p.Add(KindTime, 0)
	case "GS":
		if err := p.gs(args); err != nil {
			return err
		}
		p.Add(KindGS, 0)
	case "GYR", "ACC":
		var v Vector
		key := "rt"
		if name[0] == 'A' {
			key = "a"
		}
		var haveName, haveVec bool
		for c := args; c >= 0; c = t.nodes[c].next {
			k, kh, ok := t.head(c)
			switch {
			case ok && (string(k) == "n" && haveName || string(k) == key && haveVec):
				return errAt(int(t.nodes[c].start), "%s: repeated (%s …)", name, k)
			case ok && string(k) == "n" && t.next(kh) >= 0 && !t.nodes[t.next(kh)].isList():
				v.Name, haveName = p.add(t.text(t.next(kh))), true
			case ok && string(k) == key:
				if _, err := t.nums(t.next(kh), v.V[:], name); err != nil {
					return err
				}
				haveVec = true
			default:
				return errAt(int(t.nodes[c].start), "%s: unexpected %q", name, clip(t.text(c)))
			}
		}
		if !haveName || !haveVec {
			return errAt(int(t.nodes[n].start), "%s needs (n name) and (%s x y z)", name, key)
		}
		if name[0] == 'A' {
			p.ACC = v
			p.Add(KindACC, 0)
		} else {
			p.GYR = v
			p.Add(KindGYR, 0)
		}
	case "HJ":
		var ja JointAngle
		var haveName, haveAx bool
		for c := args; c >= 0; c = t.nodes[c].next {
			k, kh, ok := t.head(c)
			switch {
			case ok && (string(k) == "n" && haveName || string(k) == "ax" && haveAx):
				return errAt(int(t.nodes[c].start), "HJ: repeated (%s …)", k)
			case ok && string(k) == "n" && t.next(kh) >= 0:
				id, ok := JointByPerceptorName(t.text(t.next(kh)))
				if !ok {
					return errAt(int(t.nodes[kh].start), "HJ: unknown joint %q", clip(t.text(t.next(kh))))
				}
				ja.ID, haveName = id, true
			case ok && string(k) == "ax":
				v, err := t.num(t.next(kh))
				if err != nil {
					return fmt.Errorf("HJ ax: %w", err)
				}
				ja.Deg, haveAx = v, true
			default:
				return errAt(int(t.nodes[c].start), "HJ: unexpected %q", clip(t.text(c)))
			}
		}
		if !haveName || !haveAx {
			return errAt(int(t.nodes[n].start), "HJ needs (n name) and (ax deg)")
		}
		p.Joints = append(p.Joints, ja)
		p.Add(KindHJ, len(p.Joints)-1)
	case "FRP":
		var f ForceResistance
		var have int
		for c := args; c >= 0; c = t.nodes[c].next {
			k, kh, ok := t.head(c)
			var err error
			bit := 0
			switch string(k) {
			case "n":
				bit = 1
			case "c":
				bit = 2
			case "f":
				bit = 4
			}
			switch {
			case ok && have&bit != 0:
				err = errAt(int(t.nodes[c].start), "FRP: repeated (%s …)", k)
			case ok && string(k) == "n" && t.next(kh) >= 0 && !t.nodes[t.next(kh)].isList():
				f.Name = p.add(t.text(t.next(kh)))
				have |= 1
			case ok && string(k) == "c":
				_, err = t.nums(t.next(kh), f.C[:], name)
				have |= 2
			case ok && string(k) == "f":
				_, err = t.nums(t.next(kh), f.F[:], name)
				have |= 4
			default:
				err = errAt(int(t.nodes[c].start), "FRP: unexpected %q", clip(t.text(c)))
			}
			if err != nil {
				return err
			}
		}
		if have != 7 {
			return errAt(int(t.nodes[n].start), "FRP needs (n name), (c x y z) and (f x y z)")
		}
		p.FRP = append(p.FRP, f)
		p.Add(KindFRP, len(p.FRP)-1)
	case "TCH":
		var tc Touch
		var have int
		for c := args; c >= 0; c = t.nodes[c].next {
			k, kh, ok := t.head(c)
			switch {
			case ok && (string(k) == "n" && have&1 != 0 || string(k) == "val" && have&2 != 0):
				return errAt(int(t.nodes[c].start), "TCH: repeated (%s …)", k)
			case ok && string(k) == "n" && t.next(kh) >= 0 && !t.nodes[t.next(kh)].isList():
				tc.Name = p.add(t.text(t.next(kh)))
				have |= 1
			case ok && string(k) == "val":
				v, err := t.num(t.next(kh))
				if err != nil {
					return fmt.Errorf("TCH val: %w", err)
				}
				tc.Val = v
				have |= 2
			default:
				return errAt(int(t.nodes[c].start), "TCH: unexpected %q", clip(t.text(c)))
			}
		}
		if have != 3 {
			return errAt(int(t.nodes[n].start), "TCH needs (n name) and (val v)")
		}
		p.Touch = append(p.Touch, tc)
		p.Add(KindTCH, len(p.Touch)-1)
	case "See":
		for c := args; c >= 0; c = t.nodes[c].next {
			if err := p.seeItem(c); err != nil {
				return err
			}
		}
		p.Add(KindSee, 0)
	case "hear":
		if err := p.hear(n, args); err != nil {
			return err
		}
	default:
		p.Unknown = append(p.Unknown, p.add(t.text(n)))
		p.Add(KindUnknown, len(p.Unknown)-1)
	}
	return nil
}

func (p *Perception) add(b []byte) Span { return p.arena.add(b) }

// field1 reads (key v) from the chain at n.
func (p *Perception) field1(n int32, key string, what []byte) (float64, error) {
	t := &p.t
	if n < 0 {
		return 0, errAt(len(t.src), "%s: missing (%s …)", what, key)
	}
	k, kh, ok := t.head(n)
	if !ok || string(k) != key {
		return 0, errAt(int(t.nodes[n].start), "%s: want (%s …), got %q", what, key, clip(t.text(n)))
	}
	if t.nodes[n].next >= 0 {
		return 0, errAt(int(t.nodes[t.nodes[n].next].start), "%s: unexpected %q", what, clip(t.text(t.nodes[n].next)))
	}
	v, err := t.num(t.next(kh))
	if err != nil {
		return 0, fmt.Errorf("%s %s: %w", what, key, err)
	}
	return v, nil
}

func (p *Perception) gs(args int32) error {
	t := &p.t
	g := &p.GS
	var seen uint8
	for c := args; c >= 0; c = t.nodes[c].next {
		k, kh, ok := t.head(c)
		v := t.next(kh)
		if !ok || v < 0 || t.nodes[v].isList() || t.nodes[v].next >= 0 {
			return errAt(int(t.nodes[c].start), "GS: want (key value), got %q", clip(t.text(c)))
		}
		val := t.text(v)
		var bit uint8
		switch string(k) {
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
		}
		if seen&bit != 0 {
			return errAt(int(t.nodes[c].start), "GS: repeated (%s …)", k)
		}
		seen |= bit
		var good bool
		switch string(k) {
		case "unum":
			g.Unum, good = parseInt(val)
			g.HasUnum = true
		case "team":
			g.Team, g.HasTeam, good = p.add(val), true, true
		case "sl":
			g.ScoreLeft, good = parseInt(val)
			g.HasScore = true
		case "sr":
			g.ScoreRight, good = parseInt(val)
			g.HasScore = true
		case "t":
			g.Time, good = parseFloat(val)
			g.HasTime = true
		case "pm":
			g.PlayMode, g.HasPlayMode, good = p.add(val), true, true
		default:
			return errAt(int(t.nodes[c].start), "GS: unknown field %q", clip(k))
		}
		if !good {
			return errAt(int(t.nodes[v].start), "GS %s: bad value %q", k, clip(val))
		}
	}
	return nil
}

func (p *Perception) hear(n, args int32) error {
	t := &p.t
	// (hear team time self|dir msg)
	if t.count(args) != 4 {
		return errAt(int(t.nodes[n].start), "hear: want team, time, self or direction, message")
	}
	var h Hear
	h.Team = p.add(t.text(args))
	a := t.nodes[args].next
	v, err := t.num(a)
	if err != nil {
		return fmt.Errorf("hear time: %w", err)
	}
	h.Time = v
	a = t.nodes[a].next
	if string(t.text(a)) == "self" {
		h.Self = true
	} else if h.Dir, err = t.num(a); err != nil {
		return fmt.Errorf("hear direction: %w", err)
	}
	m := t.nodes[a].next
	if t.nodes[m].isList() {
		return errAt(int(t.nodes[m].start), "hear: message is a list")
	}
	h.Msg = p.add(t.text(m))
	p.Hear = append(p.Hear, h)
	p.Add(KindHear, len(p.Hear)-1)
	return nil
}

// pol reads (pol d h v) at n.
func (p *Perception) pol(n int32, dst *Polar, what []byte) error {
	t := &p.t
	k, kh, ok := t.head(n)
	if !ok || string(k) != "pol" {
		return errAt(int(t.nodes[n].start), "%s: want (pol d h v), got %q", what, clip(t.text(n)))
	}
	rest, err := t.nums(t.next(kh), dst[:], what)
	if err != nil {
		return err
	}
	if rest >= 0 {
		return errAt(int(t.nodes[rest].start), "%s: pol has more than 3 numbers", what)
	}
	return nil
}

func (p *Perception) seeItem(n int32) error {
	t := &p.t
	s := &p.See
	name, h, ok := t.head(n)
	if !ok {
		return errAt(int(t.nodes[n].start), "See: item without a name")
	}
	args := t.nodes[h].next
	switch {
	case string(name) == "L":
		var l Line
		if args < 0 || t.nodes[args].next < 0 {
			return errAt(int(t.nodes[n].start), "L: want two (pol …)")
		}
		if err := p.pol(args, &l.A, name); err != nil {
			return err
		}
		if err := p.pol(t.nodes[args].next, &l.B, name); err != nil {
			return err
		}
		s.Lines = append(s.Lines, l)
		s.Order = append(s.Order, Item{SeeLine, uint16(len(s.Lines) - 1)})
	case string(name) == "P":
		pl := Player{PartStart: uint16(len(s.Parts))}
		for c := args; c >= 0; c = t.nodes[c].next {
			k, kh, ok := t.head(c)
			if !ok {
				return errAt(int(t.nodes[c].start), "P: unexpected %q", clip(t.text(c)))
			}
			v := t.next(kh)
			switch string(k) {
			case "team":
				if pl.HasTeam {
					return errAt(int(t.nodes[c].start), "P: repeated (team …)")
				}
				if v < 0 || t.nodes[v].isList() {
					return errAt(int(t.nodes[c].start), "P: bad team")
				}
				pl.Team, pl.HasTeam = p.add(t.text(v)), true
			case "id":
				if pl.HasID {
					return errAt(int(t.nodes[c].start), "P: repeated (id …)")
				}
				if v < 0 {
					return errAt(int(t.nodes[c].start), "P: id without a value")
				}
				id, ok := parseInt(t.text(v))
				if !ok {
					return errAt(int(t.nodes[v].start), "P: bad id %q", clip(t.text(v)))
				}
				pl.ID, pl.HasID = id, true
			default:
				if v < 0 {
					return errAt(int(t.nodes[c].start), "P %s: missing (pol …)", k)
				}
				bp := BodyPart{Name: p.add(k)}
				if err := p.pol(v, &bp.Pol, k); err != nil {
					return err
				}
				s.Parts = append(s.Parts, bp)
				pl.PartCount++
			}
		}
		s.Players = append(s.Players, pl)
		s.Order = append(s.Order, Item{SeePlayer, uint16(len(s.Players) - 1)})
	case string(name) == "mypos" || string(name) == "ballpos":
		dst := &s.MyPos
		kind := SeeMyPos
		if name[0] == 'b' {
			dst, kind = &s.BallPos, SeeBallPos
		}
		rest, err := t.nums(args, dst[:], name)
		if err != nil {
			return err
		}
		if rest >= 0 {
			return errAt(int(t.nodes[rest].start), "%s: more than 3 numbers", name)
		}
		s.Order = append(s.Order, Item{kind, 0})
	case string(name) == "myorien":
		v, err := t.num(args)
		if err != nil {
			return fmt.Errorf("myorien: %w", err)
		}
		s.MyOrien = v
		s.Order = append(s.Order, Item{SeeMyOrien, 0})
	case args >= 0 && t.nodes[args].isList() && t.nodes[args].next < 0:
		k, kh, ok := t.head(args)
		switch {
		case ok && string(k) == "pol":
			o := Object{Name: p.add(name)}
			if err := p.pol(args, &o.Pol, name); err != nil {
				return err
			}
			s.Objects = append(s.Objects, o)
			s.Order = append(s.Order, Item{SeeObject, uint16(len(s.Objects) - 1)})
		case ok && string(k) == "ffs":
			f := Feature{Name: p.add(name)}
			rest, err := t.nums(t.next(kh), f.V[:], name)
			if err != nil {
				return err
			}
			if rest >= 0 {
				return errAt(int(t.nodes[rest].start), "%s: ffs has more than 4 numbers", name)
			}
			s.Features = append(s.Features, f)
			s.Order = append(s.Order, Item{SeeFeature, uint16(len(s.Features) - 1)})
		default:
			s.Unknown = append(s.Unknown, p.add(t.text(n)))
			s.Order = append(s.Order, Item{KindUnknown, uint16(len(s.Unknown) - 1)})
		}
	default:
		s.Unknown = append(s.Unknown, p.add(t.text(n)))
		s.Order = append(s.Order, Item{KindUnknown, uint16(len(s.Unknown) - 1)})
	}
	return nil
}

// Append encodes p in the server's layout (perceptors concatenated, fields
// separated by spaces) and appends it to dst.
func (p *Perception) Append(dst []byte, f Format) []byte {
	for _, it := range p.Order {
		switch it.Kind {
		case KindTime:
			dst = append(dst, "(time (now "...)
			dst = append(f.num(dst, p.Time), "))"...)
		case KindGS:
			dst = p.appendGS(dst, f)
		case KindGYR:
			dst = p.appendVec(dst, "(GYR (n ", ") (rt ", &p.GYR, f)
		case KindACC:
			dst = p.appendVec(dst, "(ACC (n ", ") (a ", &p.ACC, f)
		case KindHJ:
			j := p.Joints[it.Index]
			dst = append(dst, "(HJ (n "...)
			dst = append(dst, perceptorNames[j.ID]...)
			dst = append(dst, ") (ax "...)
			dst = append(f.num(dst, j.Deg), "))"...)
		case KindFRP:
			r := &p.FRP[it.Index]
			dst = append(dst, "(FRP (n "...)
			dst = append(dst, p.bytes(r.Name)...)
			dst = append(dst, ") (c "...)
			dst = appendNums(dst, r.C[:], f)
			dst = append(dst, ") (f "...)
			dst = appendNums(dst, r.F[:], f)
			dst = append(dst, "))"...)
		case KindTCH:
			tc := &p.Touch[it.Index]
			dst = append(dst, "(TCH (n "...)
			dst = append(dst, p.bytes(tc.Name)...)
			dst = append(dst, ") (val "...)
			dst = append(f.num(dst, tc.Val), "))"...)
		case KindSee:
			dst = p.appendSee(dst, f)
		case KindHear:
			h := &p.Hear[it.Index]
			dst = append(dst, "(hear "...)
			dst = append(dst, p.bytes(h.Team)...)
			dst = append(dst, ' ')
			dst = append(f.num(dst, h.Time), ' ')
			if h.Self {
				dst = append(dst, "self"...)
			} else {
				dst = f.num(dst, h.Dir)
			}
			dst = append(dst, ' ')
			dst = append(dst, p.bytes(h.Msg)...)
			dst = append(dst, ')')
		case KindUnknown:
			dst = append(dst, p.bytes(p.Unknown[it.Index])...)
		}
	}
	return dst
}

func appendNums(dst []byte, v []float64, f Format) []byte {
	for i, x := range v {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = f.num(dst, x)
	}
	return dst
}

func (p *Perception) appendVec(dst []byte, a, b string, v *Vector, f Format) []byte {
	dst = append(dst, a...)
	dst = append(dst, p.bytes(v.Name)...)
	dst = append(dst, b...)
	dst = appendNums(dst, v.V[:], f)
	return append(dst, "))"...)
}

func (p *Perception) appendGS(dst []byte, f Format) []byte {
	g := &p.GS
	dst = append(dst, "(GS"...)
	if g.HasUnum {
		dst = append(dst, " (unum "...)
		dst = append(itoa(dst, g.Unum), ')')
	}
	if g.HasTeam {
		dst = append(dst, " (team "...)
		dst = append(append(dst, p.bytes(g.Team)...), ')')
	}
	if g.HasScore {
		dst = append(dst, " (sl "...)
		dst = append(itoa(dst, g.ScoreLeft), ')')
		dst = append(dst, " (sr "...)
		dst = append(itoa(dst, g.ScoreRight), ')')
	}
	if g.HasTime {
		dst = append(dst, " (t "...)
		dst = append(f.num(dst, g.Time), ')')
	}
	if g.HasPlayMode {
		dst = append(dst, " (pm "...)
		dst = append(append(dst, p.bytes(g.PlayMode)...), ')')
	}
	return append(dst, ')')
}

func itoa(dst []byte, v int) []byte { return strconv.AppendInt(dst, int64(v), 10) }

func (p *Perception) appendPol(dst []byte, pol *Polar, f Format) []byte {
	dst = append(dst, "(pol "...)
	dst = appendNums(dst, pol[:], f)
	return append(dst, ')')
}

func (p *Perception) appendSee(dst []byte, f Format) []byte {
	s := &p.See
	dst = append(dst, "(See"...)
	for _, it := range s.Order {
		dst = append(dst, ' ')
		switch it.Kind {
		case SeeObject:
			o := &s.Objects[it.Index]
			dst = append(append(dst, '('), p.bytes(o.Name)...)
			dst = append(p.appendPol(append(dst, ' '), &o.Pol, f), ')')
		case SeeLine:
			l := &s.Lines[it.Index]
			dst = append(dst, "(L "...)
			dst = p.appendPol(dst, &l.A, f)
			dst = append(p.appendPol(append(dst, ' '), &l.B, f), ')')
		case SeePlayer:
			pl := &s.Players[it.Index]
			dst = append(dst, "(P"...)
			if pl.HasTeam {
				dst = append(dst, " (team "...)
				dst = append(append(dst, p.bytes(pl.Team)...), ')')
			}
			if pl.HasID {
				dst = append(dst, " (id "...)
				dst = append(itoa(dst, pl.ID), ')')
			}
			for _, bp := range s.Parts[pl.PartStart : pl.PartStart+pl.PartCount] {
				dst = append(append(dst, " ("...), p.bytes(bp.Name)...)
				dst = append(p.appendPol(append(dst, ' '), &bp.Pol, f), ')')
			}
			dst = append(dst, ')')
		case SeeFeature:
			ft := &s.Features[it.Index]
			dst = append(append(dst, '('), p.bytes(ft.Name)...)
			dst = append(dst, " (ffs "...)
			dst = append(appendNums(dst, ft.V[:], f), "))"...)
		case SeeMyPos:
			dst = append(dst, "(mypos "...)
			dst = append(appendNums(dst, s.MyPos[:], f), ')')
		case SeeMyOrien:
			dst = append(dst, "(myorien "...)
			dst = append(f.num(dst, s.MyOrien), ')')
		case SeeBallPos:
			dst = append(dst, "(ballpos "...)
			dst = append(appendNums(dst, s.BallPos[:], f), ')')
		case KindUnknown:
			dst = append(dst, p.bytes(s.Unknown[it.Index])...)
		}
	}
	return append(dst, ')')
}

// Signature returns the message's structure: the perceptors in order with
// their names, and the kinds of See items, e.g.
// "time GS GYR ACC HJ:hj1 HJ:hj2 See[obj:B ff:CNR mypos] HJ:raj1 …". Two
// messages with the same signature have the same perceptors, names and
// order. It allocates.
func (p *Perception) Signature() string {
	var b strings.Builder
	for i, it := range p.Order {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(it.Kind.String())
		switch it.Kind {
		case KindHJ:
			b.WriteString(":" + p.Joints[it.Index].ID.String())
		case KindFRP:
			b.WriteString(":" + p.Str(p.FRP[it.Index].Name))
		case KindTCH:
			b.WriteString(":" + p.Str(p.Touch[it.Index].Name))
		case KindSee:
			b.WriteString("[" + p.SeeSignature() + "]")
		}
	}
	return b.String()
}

// SeeSignature returns the See block's item kinds and names in order.
func (p *Perception) SeeSignature() string {
	s := &p.See
	var b strings.Builder
	for i, it := range s.Order {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(it.Kind.String())
		switch it.Kind {
		case SeeObject:
			b.WriteString(":" + p.Str(s.Objects[it.Index].Name))
		case SeeFeature:
			b.WriteString(":" + p.Str(s.Features[it.Index].Name))
		case SeePlayer:
			b.WriteString(":" + p.Str(s.Players[it.Index].Team))
		}
	}
	return b.String()
}
