package simspark

import "fmt"

// Effector kinds, for Effectors.Order.
const (
	EffScene Kind = iota + 32
	EffInit
	EffBeam
	EffSyn
	EffSay
	EffJoint
)

// Effectors is one effector message from an agent.
type Effectors struct {
	arena
	// Scene is the robot model's path and, if HasSceneType, its type
	// (nao_hetero.rsg 4).
	Scene        Span
	SceneType    int
	HasSceneType bool
	// Init carries the player number and team name; each may be absent.
	HasUnum, HasTeam bool
	Unum             int
	Team             Span
	// Beam is x, y (m) and the angle (deg) in the team's frame.
	Beam [3]float64
	// Say is the message to say.
	Say Span
	// Joints are motor velocity commands in rad/s.
	Joints []JointSpeed
	// Order is the order of the effectors.
	Order []Item
	t     tree
}

// JointSpeed is one joint effector: a motor velocity in rad/s.
type JointSpeed struct {
	ID JointID
	V  float64
}

// Reset empties e, keeping its memory.
func (e *Effectors) Reset() {
	e.buf = e.buf[:0]
	e.Scene, e.SceneType, e.HasSceneType = Span{}, 0, false
	e.HasUnum, e.HasTeam, e.Unum, e.Team = false, false, 0, Span{}
	e.Beam, e.Say = [3]float64{}, Span{}
	e.Joints, e.Order = e.Joints[:0], e.Order[:0]
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

// Parse parses an effector message into e, replacing its content.
func (e *Effectors) Parse(msg []byte) error {
	e.Reset()
	if err := e.t.parse(msg, 4); err != nil {
		return err
	}
	t := &e.t
	for n := t.tops; n >= 0; n = t.nodes[n].next {
		name, h, ok := t.head(n)
		if !ok {
			return errAt(int(t.nodes[n].start), "effector without a name")
		}
		args := t.nodes[h].next
		switch string(name) {
		case "scene":
			if args < 0 || t.nodes[args].isList() {
				return errAt(int(t.nodes[n].start), "scene: want a path")
			}
			e.Scene = e.add(t.text(args))
			if a := t.next(args); a >= 0 {
				v, ok := parseInt(t.text(a))
				if !ok || t.next(a) >= 0 {
					return errAt(int(t.nodes[a].start), "scene: bad robot type %q", clip(t.text(a)))
				}
				e.SceneType, e.HasSceneType = v, true
			}
			e.Order = append(e.Order, Item{EffScene, 0})
		case "init":
			for c := args; c >= 0; c = t.nodes[c].next {
				k, kh, ok := t.head(c)
				v := t.next(kh)
				if !ok || v < 0 || t.nodes[v].isList() {
					return errAt(int(t.nodes[c].start), "init: want (unum N) or (teamname X), got %q", clip(t.text(c)))
				}
				switch string(k) {
				case "unum":
					u, ok := parseInt(t.text(v))
					if !ok {
						return errAt(int(t.nodes[v].start), "init: bad unum %q", clip(t.text(v)))
					}
					e.Unum, e.HasUnum = u, true
				case "teamname":
					e.Team, e.HasTeam = e.add(t.text(v)), true
				default:
					return errAt(int(t.nodes[c].start), "init: unknown field %q", clip(k))
				}
			}
			e.Order = append(e.Order, Item{EffInit, 0})
		case "beam":
			rest, err := t.nums(args, e.Beam[:], name)
			if err != nil {
				return err
			}
			if rest >= 0 {
				return errAt(int(t.nodes[rest].start), "beam: more than 3 numbers")
			}
			e.Order = append(e.Order, Item{EffBeam, 0})
		case "syn":
			if args >= 0 {
				return errAt(int(t.nodes[args].start), "syn takes no arguments")
			}
			e.Order = append(e.Order, Item{EffSyn, 0})
		case "say":
			if args < 0 || t.nodes[args].isList() || t.next(args) >= 0 {
				return errAt(int(t.nodes[n].start), "say: want one message")
			}
			e.Say = e.add(t.text(args))
			e.Order = append(e.Order, Item{EffSay, 0})
		default:
			id, ok := JointByEffectorName(name)
			if !ok {
				return errAt(int(t.nodes[n].start), "unknown effector %q", clip(name))
			}
			if args < 0 || t.next(args) >= 0 {
				return errAt(int(t.nodes[n].start), "%s: want one velocity", name)
			}
			v, err := t.num(args)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			e.Joints = append(e.Joints, JointSpeed{ID: id, V: v})
			e.Order = append(e.Order, Item{EffJoint, uint16(len(e.Joints) - 1)})
		}
	}
	return nil
}

// AddJoint appends a joint velocity command.
func (e *Effectors) AddJoint(id JointID, v float64) {
	e.Joints = append(e.Joints, JointSpeed{ID: id, V: v})
	e.Order = append(e.Order, Item{EffJoint, uint16(len(e.Joints) - 1)})
}

// AddItem appends an effector of kind k (whose fields the caller set).
func (e *Effectors) AddItem(k Kind) { e.Order = append(e.Order, Item{k, 0}) }

// Append encodes e the way agents write it and appends it to dst.
func (e *Effectors) Append(dst []byte, f Format) []byte {
	for _, it := range e.Order {
		switch it.Kind {
		case EffScene:
			dst = append(append(dst, "(scene "...), e.bytes(e.Scene)...)
			if e.HasSceneType {
				dst = itoa(append(dst, ' '), e.SceneType)
			}
			dst = append(dst, ')')
		case EffInit:
			dst = append(dst, "(init"...)
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
			j := e.Joints[it.Index]
			dst = append(append(dst, '('), effectorNames[j.ID]...)
			dst = append(f.num(append(dst, ' '), j.V), ')')
		}
	}
	return dst
}
