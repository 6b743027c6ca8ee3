package simspark

import "fmt"

// TrainerKind is a trainer (monitor port) command.
type TrainerKind uint8

// Trainer commands.
const (
	TrainBall TrainerKind = iota + 1
	TrainAgent
	TrainPlayMode
	TrainKickOff
	TrainDropBall
	TrainReqFullState
	TrainTime
	TrainScore
	TrainKill
	TrainGetAck
)

// TrainerCommand is one trainer command.
type TrainerCommand struct {
	Kind TrainerKind
	// Ball: Pos and, if HasVel, Vel. Agent: Unum, Team and Pos (HasPos) or
	// Move (HasMove: x, y, z, angle). Kill: Unum, Team.
	HasPos, HasVel, HasMove bool
	Pos, Vel                [3]float64
	Move                    [4]float64
	Unum                    int
	// Team is Left or Right (agent, kill, kickOff).
	Team string
	// Word is the play mode or the ack text.
	Word string
	// Time is the time to set; Left and Right the score.
	Time        float64
	Left, Right int
}

// ParseTrainer parses a monitor-port message into commands. Monitor traffic
// is rare, so this allocates.
func ParseTrainer(msg []byte) ([]TrainerCommand, error) {
	var t tree
	if err := t.parse(msg, 4); err != nil {
		return nil, err
	}
	var out []TrainerCommand
	for n := t.tops; n >= 0; n = t.nodes[n].next {
		name, h, ok := t.head(n)
		if !ok {
			return nil, errAt(int(t.nodes[n].start), "trainer command without a name")
		}
		args := t.nodes[h].next
		var c TrainerCommand
		word := func() (string, error) {
			if args < 0 || t.nodes[args].isList() || t.next(args) >= 0 {
				return "", errAt(int(t.nodes[n].start), "%s: want one word", name)
			}
			return string(t.text(args)), nil
		}
		var err error
		switch string(name) {
		case "ball", "agent", "kill", "killAgent":
			c.Kind = map[string]TrainerKind{"ball": TrainBall, "agent": TrainAgent, "kill": TrainKill, "killAgent": TrainKill}[string(name)]
			for a := args; a >= 0 && err == nil; a = t.nodes[a].next {
				k, kh, ok := t.head(a)
				if !ok {
					return nil, errAt(int(t.nodes[a].start), "%s: unexpected %q", name, clip(t.text(a)))
				}
				v := t.next(kh)
				switch string(k) {
				case "pos":
					_, err = t.nums(v, c.Pos[:], k)
					c.HasPos = true
				case "vel":
					_, err = t.nums(v, c.Vel[:], k)
					c.HasVel = true
				case "move":
					var m [4]float64
					rest := v
					for i := range m {
						if rest < 0 {
							if i == 3 {
								break
							}
							err = errAt(int(t.nodes[a].start), "move: want x y z [angle]")
							break
						}
						if m[i], err = t.num(rest); err != nil {
							break
						}
						rest = t.nodes[rest].next
					}
					c.Move, c.HasMove = m, true
				case "unum":
					var ok bool
					if c.Unum, ok = parseInt(t.text(v)); !ok {
						err = errAt(int(t.nodes[a].start), "%s: bad unum", name)
					}
				case "team":
					c.Team = string(t.text(v))
				default:
					err = errAt(int(t.nodes[a].start), "%s: unknown field %q", name, clip(k))
				}
			}
			if err == nil && c.Kind == TrainBall && !c.HasPos && !c.HasVel {
				err = errAt(int(t.nodes[n].start), "ball: want (pos …) or (vel …)")
			}
			if err == nil && c.Kind == TrainAgent && (!c.HasPos && !c.HasMove || c.Team == "") {
				err = errAt(int(t.nodes[n].start), "agent: want (unum N)(team T) and (pos …) or (move …)")
			}
		case "playMode":
			c.Kind = TrainPlayMode
			c.Word, err = word()
		case "kickOff":
			c.Kind = TrainKickOff
			c.Team, err = word()
		case "getAck":
			c.Kind = TrainGetAck
			c.Word, err = word()
		case "dropBall":
			c.Kind = TrainDropBall
		case "reqfullstate":
			c.Kind = TrainReqFullState
		case "time":
			c.Kind = TrainTime
			c.Time, err = t.num(args)
		case "score":
			c.Kind = TrainScore
			for a := args; a >= 0 && err == nil; a = t.nodes[a].next {
				k, kh, ok := t.head(a)
				v, ok2 := parseInt(t.text(t.next(kh)))
				switch {
				case ok && ok2 && string(k) == "left":
					c.Left = v
				case ok && ok2 && string(k) == "right":
					c.Right = v
				default:
					err = errAt(int(t.nodes[a].start), "score: want (left N)(right N)")
				}
			}
		default:
			return nil, errAt(int(t.nodes[n].start), "unknown trainer command %q", clip(name))
		}
		if err != nil {
			return nil, fmt.Errorf("simspark: trainer %s: %w", name, err)
		}
		out = append(out, c)
	}
	return out, nil
}
