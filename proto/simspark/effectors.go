package simspark

// Effector kinds, for Effectors.Order. Unknown effectors are KindUnknown.
const (
	EffScene Kind = iota + 32 // (scene path [type])
	EffInit                   // (init (unum N)(teamname X))
	EffBeam                   // (beam x y deg)
	EffSyn                    // (syn)
	EffSay                    // (say message)
	EffJoint                  // (he1 v) … (rle7 v)
)

// Effectors is one effector message from an agent. Parse fills it, reusing
// its memory (no allocation in steady state); strings are Spans in the
// embedded arena. To build a message, Reset it, set the fields (Intern the
// strings) and add every effector in order with AddItem or AddJoint.
type Effectors struct {
	arena
	// Scene is the robot model's path and, if HasSceneType, its type
	// (rsg/agent/nao/nao_hetero.rsg 4).
	Scene        Span
	SceneType    int  // the heterogeneous robot type (0–4)
	HasSceneType bool // whether scene had a type
	// HasUnum and HasTeam say which fields init had; each may be absent.
	HasUnum, HasTeam bool
	Unum             int  // init's player number (0: the server picks one)
	Team             Span // init's team name
	// Beam is x, y (m) and the rotation (deg) in the team's frame.
	Beam [3]float64
	// Say is the message to say.
	Say Span
	// Joints are motor velocity commands (rad/s), in the order they came.
	Joints []JointSpeed
	// Unknown holds the raw text of unknown effectors.
	Unknown []Span
	// Order is the order of the effectors.
	Order []Item
}

// JointSpeed is one joint effector.
type JointSpeed struct {
	// ID is the joint.
	ID JointID
	// V is the motor's angular velocity in rad/s (simulator sign); the
	// server clamps it to about 6.14 rad/s and keeps it until the next
	// command for the joint.
	V float64
}

// Reset empties e, keeping its memory.
func (e *Effectors) Reset() {
	e.buf = e.buf[:0]
	e.Scene, e.SceneType, e.HasSceneType = Span{}, 0, false
	e.HasUnum, e.HasTeam, e.Unum, e.Team = false, false, 0, Span{}
	e.Beam, e.Say = [3]float64{}, Span{}
	e.Joints, e.Unknown, e.Order = e.Joints[:0], e.Unknown[:0], e.Order[:0]
}

// Has reports whether the message contains an effector of kind k.
func (e *Effectors) Has(k Kind) bool {
	for _, it := range e.Order {
		if it.Kind == k {
			return true
		}
	}
	return false
}

// Parse parses an effector message into e, replacing its content. e keeps
// no reference to msg. scene, init, beam, syn and say may appear once;
// unknown effectors are kept verbatim (the server ignores them), unknown
// fields of init are skipped. Errors are *SyntaxError.
func (e *Effectors) Parse(msg []byte) error {
	e.Reset()
	if len(msg) > DefaultMaxFrame {
		return errAt(0, ErrTooLong, "message of %d bytes, longer than %d", len(msg), DefaultMaxFrame)
	}
	s := Scanner{src: msg, maxDepth: DefaultMaxDepth}
	var seen uint8
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
		var k Kind
		switch string(name) {
		case "scene":
			k = EffScene
		case "init":
			k = EffInit
		case "beam":
			k = EffBeam
		case "syn":
			k = EffSyn
		case "say":
			k = EffSay
		}
		if k != KindUnknown {
			if err := once(&seen, 1<<(k-EffScene), start, "message", name); err != nil {
				return errAt(start, ErrRepeated, "more than one %s effector", k)
			}
		}
		var err error
		switch k {
		case EffScene:
			var path []byte
			if path, _, err = s.word("scene"); err != nil {
				return err
			}
			e.Scene = e.add(path)
			if !s.atEnd() {
				if e.SceneType, err = s.integer("scene type"); err != nil {
					return err
				}
				e.HasSceneType = true
			}
			err = s.close("scene")
		case EffInit:
			err = e.parseInit(&s)
		case EffBeam:
			err = s.numbers(e.Beam[:], "beam")
		case EffSyn:
			err = s.close("syn")
		case EffSay:
			var m []byte
			if m, _, err = s.word("say"); err == nil {
				e.Say = e.add(m)
				err = s.close("say")
			}
		default:
			id, ok := JointByEffectorName(name)
			if !ok {
				if err = s.skipRest(); err == nil && len(e.Unknown) >= MaxItems {
					err = errAt(start, ErrTooLong, "more than %d unknown effectors", MaxItems)
				}
				if err == nil {
					e.Unknown = append(e.Unknown, e.add(msg[start:s.pos]))
					e.Order = append(e.Order, Item{KindUnknown, uint16(len(e.Unknown) - 1)})
				}
				break
			}
			var v float64
			if v, err = s.number(id.EffectorName()); err == nil {
				err = s.close(id.EffectorName())
			}
			if err == nil && len(e.Joints) >= MaxItems {
				err = errAt(start, ErrTooLong, "more than %d joint effectors", MaxItems)
			}
			if err == nil {
				e.AddJoint(id, v)
			}
		}
		if err != nil {
			return err
		}
		if k != KindUnknown {
			e.AddItem(k)
		}
	}
}

func (e *Effectors) parseInit(s *Scanner) error {
	var have uint8
	var team []byte
	for {
		key, off, more, err := s.field("init")
		if err != nil {
			return err
		}
		if !more {
			break
		}
		switch string(key) {
		case "unum":
			if err = once(&have, 1, off, "init", key); err == nil {
				if e.Unum, err = s.integer("init unum"); err == nil {
					err = s.close("init unum")
				}
			}
			e.HasUnum = true
		case "teamname":
			if err = once(&have, 2, off, "init", key); err == nil {
				if team, _, err = s.word("init teamname"); err == nil {
					err = s.close("init teamname")
				}
			}
			e.HasTeam = true
		default:
			err = s.skipRest()
		}
		if err != nil {
			return err
		}
	}
	if e.HasTeam {
		e.Team = e.add(team)
	}
	return nil
}

// AddJoint appends a joint velocity command (rad/s).
func (e *Effectors) AddJoint(id JointID, v float64) {
	e.Joints = append(e.Joints, JointSpeed{ID: id, V: v})
	e.Order = append(e.Order, Item{EffJoint, uint16(len(e.Joints) - 1)})
}

// AddItem appends an effector of kind k (whose fields the caller set).
func (e *Effectors) AddItem(k Kind) { e.Order = append(e.Order, Item{k, 0}) }

// Append encodes e the way agents write it and appends it to dst, e.g.
// "(scene rsg/agent/nao/nao.rsg)", "(init (unum 1)(teamname T))",
// "(beam -2 0 0)", "(he1 3.5)(say ping.T)(syn)". Items whose index lies
// outside their slice are skipped. It allocates only if dst is too small.
func (e *Effectors) Append(dst []byte, f Format) []byte {
	for _, it := range e.Order {
		i := int(it.Index)
		switch it.Kind {
		case EffScene:
			dst = append(append(dst, "(scene "...), e.bytes(e.Scene)...)
			if e.HasSceneType {
				dst = itoa(append(dst, ' '), e.SceneType)
			}
			dst = append(dst, ')')
		case EffInit:
			dst = append(dst, "(init"...)
			if e.HasUnum || e.HasTeam {
				dst = append(dst, ' ')
			}
			if e.HasUnum {
				dst = append(itoa(append(dst, "(unum "...), e.Unum), ')')
			}
			if e.HasTeam {
				dst = append(append(append(dst, "(teamname "...), e.bytes(e.Team)...), ')')
			}
			dst = append(dst, ')')
		case EffBeam:
			dst = append(appendNums(append(dst, "(beam "...), e.Beam[:], f), ')')
		case EffSyn:
			dst = append(dst, "(syn)"...)
		case EffSay:
			dst = append(append(append(dst, "(say "...), e.bytes(e.Say)...), ')')
		case EffJoint:
			if i >= len(e.Joints) {
				continue
			}
			j := e.Joints[i]
			dst = append(append(dst, '('), j.ID.EffectorName()...)
			dst = append(f.num(append(dst, ' '), j.V), ')')
		case KindUnknown:
			if i < len(e.Unknown) {
				dst = append(dst, e.bytes(e.Unknown[i])...)
			}
		}
	}
	return dst
}

// Signature returns the message's effectors in order, e.g.
// "scene init beam he1 say syn" (unknown effectors as ?name). It
// allocates.
func (e *Effectors) Signature() string {
	var b []byte
	for i, it := range e.Order {
		if i > 0 {
			b = append(b, ' ')
		}
		idx := int(it.Index)
		switch it.Kind {
		case EffJoint:
			if idx < len(e.Joints) {
				b = append(b, e.Joints[idx].ID.EffectorName()...)
			}
		case KindUnknown:
			if idx < len(e.Unknown) {
				b = appendUnknownName(b, e.bytes(e.Unknown[idx]))
			}
		default:
			b = append(b, it.Kind.String()...)
		}
	}
	return string(b)
}
