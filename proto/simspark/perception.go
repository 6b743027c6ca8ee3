package simspark

import "unsafe"

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

// The perceptor formats are those of rcssserver3d (protocols.md §3.3,
// §3.4; the SimSpark wiki's Perceptors page). Most perceptors, and the P
// item of a See block, are a name and named fields, e.g.
// (HJ (n hj1) (ax -12.5)); mypos, myorien and ballpos in a See block are
// a name and numbers. The tables perceptors and seeItems give each one's
// fields: their names, what their values are and where in the Perception
// they go (offsets checked against the types by TestPerceptorTables), and
// walker.fields decodes all of them. hear, the See block, its lines and
// its objects have shapes of their own.

// valKind is what a field's value is.
type valKind uint8

const (
	valNumbers valKind = iota // n numbers, to a [n]float64 (float64 if n is 1)
	valInt                    // an integer, to an int
	valName                   // an atom, to a Span (copied into the arena)
	valJoint                  // an HJ joint name (hj1 … rlj7), to a JointID
	valPart                   // a P body part, (name (pol d h v)), to See.Parts
)

// field describes one (key value…) list of a perceptor, or the values
// after the name of a See item of shape shapeValues.
type field struct {
	key string  // the list's name; "" matches any name no other field has
	val valKind // what its value is
	n   uint8   // how many numbers (valNumbers)
	// what names the value in errors; end names the list in the error for
	// a missing ')' (what if empty).
	what, end string
	// at is where the value goes: its offset in the perceptor's record
	// (the Perception, or the perceptor's element of its slice). has, if
	// not noFlag, is the offset of a bool set when the field is present.
	at, has uintptr
}

// noFlag is field.has for a field without a presence flag.
const noFlag = ^uintptr(0)

// shape is the grammar of a perceptor or See item.
type shape uint8

const (
	shapeFields shape = iota // (name (key value…)…): keys in any order, unknown keys skipped
	shapeValues              // (name value…): fields[0] describes the values
	shapeHear                // (hear [team] time self|direction message)
	shapeSee                 // (See item…): seeItems, and (name (pol d h v)) or (name (ffs d h v o))
	shapeLine                // (L (pol d h v) (pol d h v))
)

// perceptor describes a top-level perceptor or a See item.
type perceptor struct {
	name  string
	kind  Kind
	shape shape
	// once: it may appear at most once in a message (in a See block).
	// Otherwise each one is an element of a slice (Perception.record).
	once bool
	// fields are its fields; at most maxFields, the one with key "" last.
	fields []field
	// need has bit j set when fields[j] must be present; missing is the
	// error when one is not.
	need    uint8
	missing string
	// names has bit j set when fields[j] is a valName (set by init).
	names uint8
}

// maxFields bounds len(perceptor.fields).
const maxFields = 8

// Offsets of the records inside a Perception.
const (
	offGS  = unsafe.Offsetof(Perception{}.GS)
	offGYR = unsafe.Offsetof(Perception{}.GYR)
	offACC = unsafe.Offsetof(Perception{}.ACC)
	offSee = unsafe.Offsetof(Perception{}.See)
)

// perceptors are the top-level perceptors.
var perceptors = [...]perceptor{
	{name: "time", kind: KindTime, once: true, need: 1, missing: "time: missing (now t)", fields: []field{
		{key: "now", val: valNumbers, n: 1, what: "time now", at: unsafe.Offsetof(Perception{}.Time), has: noFlag},
	}},
	{name: "GS", kind: KindGS, once: true, fields: []field{
		{key: "unum", val: valInt, what: "GS unum", end: "GS", at: offGS + unsafe.Offsetof(GameState{}.Unum), has: offGS + unsafe.Offsetof(GameState{}.HasUnum)},
		{key: "team", val: valName, what: "GS team", end: "GS", at: offGS + unsafe.Offsetof(GameState{}.Team), has: offGS + unsafe.Offsetof(GameState{}.HasTeam)},
		{key: "sl", val: valInt, what: "GS sl", end: "GS", at: offGS + unsafe.Offsetof(GameState{}.ScoreLeft), has: offGS + unsafe.Offsetof(GameState{}.HasScore)},
		{key: "sr", val: valInt, what: "GS sr", end: "GS", at: offGS + unsafe.Offsetof(GameState{}.ScoreRight), has: offGS + unsafe.Offsetof(GameState{}.HasScore)},
		{key: "t", val: valNumbers, n: 1, what: "GS t", end: "GS", at: offGS + unsafe.Offsetof(GameState{}.Time), has: offGS + unsafe.Offsetof(GameState{}.HasTime)},
		{key: "pm", val: valName, what: "GS pm", end: "GS", at: offGS + unsafe.Offsetof(GameState{}.PlayMode), has: offGS + unsafe.Offsetof(GameState{}.HasPlayMode)},
	}},
	{name: "GYR", kind: KindGYR, once: true, need: 3, missing: "GYR: want (n name) and (rt x y z)", fields: []field{
		{key: "n", val: valName, what: "GYR", at: offGYR + unsafe.Offsetof(Vector{}.Name), has: noFlag},
		{key: "rt", val: valNumbers, n: 3, what: "GYR", at: offGYR + unsafe.Offsetof(Vector{}.V), has: noFlag},
	}},
	{name: "ACC", kind: KindACC, once: true, need: 3, missing: "ACC: want (n name) and (a x y z)", fields: []field{
		{key: "n", val: valName, what: "ACC", at: offACC + unsafe.Offsetof(Vector{}.Name), has: noFlag},
		{key: "a", val: valNumbers, n: 3, what: "ACC", at: offACC + unsafe.Offsetof(Vector{}.V), has: noFlag},
	}},
	{name: "HJ", kind: KindHJ, need: 3, missing: "HJ: want (n name) and (ax deg)", fields: []field{
		{key: "n", val: valJoint, what: "HJ n", at: unsafe.Offsetof(JointAngle{}.ID), has: noFlag},
		{key: "ax", val: valNumbers, n: 1, what: "HJ ax", at: unsafe.Offsetof(JointAngle{}.Deg), has: noFlag},
	}},
	{name: "FRP", kind: KindFRP, need: 7, missing: "FRP: want (n name), (c x y z) and (f x y z)", fields: []field{
		{key: "n", val: valName, what: "FRP n", at: unsafe.Offsetof(ForceResistance{}.Name), has: noFlag},
		{key: "c", val: valNumbers, n: 3, what: "FRP c", at: unsafe.Offsetof(ForceResistance{}.C), has: noFlag},
		{key: "f", val: valNumbers, n: 3, what: "FRP f", at: unsafe.Offsetof(ForceResistance{}.F), has: noFlag},
	}},
	{name: "TCH", kind: KindTCH, need: 3, missing: "TCH: want (n name) and (val v)", fields: []field{
		{key: "n", val: valName, what: "TCH n", at: unsafe.Offsetof(Touch{}.Name), has: noFlag},
		{key: "val", val: valNumbers, n: 1, what: "TCH val", at: unsafe.Offsetof(Touch{}.Val), has: noFlag},
	}},
	{name: "See", kind: KindSee, shape: shapeSee, once: true},
	{name: "hear", kind: KindHear, shape: shapeHear},
}

// seeItems are the See items with a name of their own; any other named
// item of the form (name (pol d h v)) is an Object, (name (ffs d h v o)) a
// Feature.
var seeItems = [...]perceptor{
	{name: "L", kind: SeeLine, shape: shapeLine},
	{name: "P", kind: SeePlayer, fields: []field{
		{key: "team", val: valName, what: "P team", at: unsafe.Offsetof(Player{}.Team), has: unsafe.Offsetof(Player{}.HasTeam)},
		{key: "id", val: valInt, what: "P id", at: unsafe.Offsetof(Player{}.ID), has: unsafe.Offsetof(Player{}.HasID)},
		{val: valPart},
	}},
	{name: "mypos", kind: SeeMyPos, shape: shapeValues, once: true, fields: []field{
		{val: valNumbers, n: 3, what: "mypos", at: offSee + unsafe.Offsetof(See{}.MyPos), has: noFlag},
	}},
	{name: "myorien", kind: SeeMyOrien, shape: shapeValues, once: true, fields: []field{
		{val: valNumbers, n: 1, what: "myorien", at: offSee + unsafe.Offsetof(See{}.MyOrien), has: noFlag},
	}},
	{name: "ballpos", kind: SeeBallPos, shape: shapeValues, once: true, fields: []field{
		{val: valNumbers, n: 3, what: "ballpos", at: offSee + unsafe.Offsetof(See{}.BallPos), has: noFlag},
	}},
}

func init() {
	for _, table := range [][]perceptor{perceptors[:], seeItems[:]} {
		for i := range table {
			for j := range table[i].fields {
				f := &table[i].fields[j]
				if f.end == "" {
					f.end = f.what
				}
				if f.val == valName {
					table[i].names |= 1 << j
				}
			}
		}
	}
}

// nameIndex finds a table's entries by slot(name): it holds the index of
// each entry plus one, 0 in slots no name has.
type nameIndex [32]uint8

// slot hashes the length and first byte of a name; they tell apart the
// names of each table (indexOf checks it). name must not be empty.
func slot(name []byte) int { return (int(name[0]) + 3*len(name)) & 31 }

var perceptorIndex, seeItemIndex = indexOf(perceptors[:]), indexOf(seeItems[:])

// indexOf indexes table; it panics if two names share a slot.
func indexOf(table []perceptor) *nameIndex {
	var x nameIndex
	for j := range table {
		h := slot([]byte(table[j].name))
		if x[h] != 0 {
			panic("simspark: perceptor names " + table[x[h]-1].name + " and " + table[j].name + " share a slot")
		}
		x[h] = uint8(j + 1)
	}
	return &x
}

// find returns the index of the entry of table named name, or -1.
func find(table []perceptor, x *nameIndex, name []byte) int {
	if len(name) == 0 {
		return -1
	}
	j := int(x[slot(name)]) - 1
	if j < 0 || !is(table[j].name, name) {
		return -1
	}
	return j
}

// is reports whether b holds s. Names are short: comparing their bytes
// here costs less than calling the runtime's memequal.
func is(s string, b []byte) bool {
	if len(s) != len(b) {
		return false
	}
	for i := range len(b) {
		if s[i] != b[i] {
			return false
		}
	}
	return true
}

// record appends a zero element to the slice of perceptors (or See items)
// of kind k and returns its index and address, or -1 if the slice already
// holds MaxItems; kinds that appear at most once have the Perception as
// their record.
func (p *Perception) record(k Kind) (int, unsafe.Pointer) {
	var n int
	switch k {
	case KindHJ:
		if n = len(p.Joints); n < MaxItems {
			p.Joints = append(p.Joints, JointAngle{})
			return n, unsafe.Pointer(&p.Joints[n])
		}
	case KindFRP:
		if n = len(p.FRP); n < MaxItems {
			p.FRP = append(p.FRP, ForceResistance{})
			return n, unsafe.Pointer(&p.FRP[n])
		}
	case KindTCH:
		if n = len(p.Touch); n < MaxItems {
			p.Touch = append(p.Touch, Touch{})
			return n, unsafe.Pointer(&p.Touch[n])
		}
	case SeePlayer:
		if n = len(p.See.Players); n < MaxItems {
			p.See.Players = append(p.See.Players, Player{PartStart: uint16(len(p.See.Parts))})
			return n, unsafe.Pointer(&p.See.Players[n])
		}
	default:
		return 0, unsafe.Pointer(p)
	}
	return -1, nil
}

// push appends v to *s and returns its index.
func push[T any](s *[]T, v T) int {
	*s = append(*s, v)
	return len(*s) - 1
}

// walker is the state of one Parse.
type walker struct {
	s Scanner
	// names are where the valName values of the current perceptor lie in
	// the message, by field.
	names [maxFields][2]int
}

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
	w := walker{s: Scanner{src: msg, maxDepth: DefaultMaxDepth}}
	s := &w.s
	var seen uint32
	last := -1
	for {
		s.skipSpace()
		if s.pos >= len(msg) {
			return nil
		}
		// Runs of one perceptor are common (HJ): the last one's name is
		// tried first, without scanning it.
		start, j := s.pos, last
		if j < 0 || !s.openKey(perceptors[j].name) {
			if err := topOpen(s); err != nil {
				return err
			}
			j = find(perceptors[:], perceptorIndex, s.head())
		}
		last = j
		if j < 0 {
			err := s.skipRest()
			if err == nil && len(p.Unknown) >= MaxItems {
				err = errAt(start, ErrTooLong, "more than %d unknown perceptors", MaxItems)
			}
			if err != nil {
				return err
			}
			p.Unknown = append(p.Unknown, p.add(msg[start:s.pos]))
			p.Add(KindUnknown, len(p.Unknown)-1)
			continue
		}
		pc := &perceptors[j]
		if pc.once {
			if seen&(1<<j) != 0 {
				return errAt(start, ErrRepeated, "more than one %s perceptor", pc.name)
			}
			seen |= 1 << j
		}
		var i int
		var err error
		switch pc.shape {
		case shapeFields:
			i, err = w.fields(p, pc, start)
		case shapeSee:
			err = w.see(p)
		case shapeHear:
			i, err = w.hear(p, start)
		}
		if err != nil {
			return err
		}
		p.Add(pc.kind, i)
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

// once marks bit in *have, or reports a repeated field.
func once(have *uint8, bit uint8, off int, what string, key []byte) error {
	if *have&bit != 0 {
		return errAt(off, ErrRepeated, "%s: repeated (%s …)", what, key)
	}
	*have |= bit
	return nil
}

// fields decodes the fields of pc, whose name (at start) has been read, up
// to and including its ')', into a new record (see Perception.record),
// whose index it returns. Names are copied into the arena last, in the
// order of pc.fields, so the arena does not depend on the fields' order.
func (w *walker) fields(p *Perception, pc *perceptor, start int) (int, error) {
	s := &w.s
	i, rec := 0, unsafe.Pointer(p)
	if !pc.once {
		i, rec = p.record(pc.kind)
	}
	if i < 0 {
		what := "See players"
		if pc.kind != SeePlayer {
			what = pc.name + " perceptors"
		}
		return 0, errAt(start, ErrTooLong, "more than %d %s", MaxItems, what)
	}
	var have uint8
	next := 0
	for {
		// rcssserver3d writes the fields in the order of pc.fields: the
		// one after the last is tried first, without scanning its name.
		s.skipSpace()
		j, off := next, s.pos
		var key []byte
		if pc.shape == shapeValues {
			if j > 0 {
				break // the value's ')' ended the item
			}
		} else if off < len(s.src) && s.src[off] == ')' {
			s.pos++
			s.depth--
			break
		} else if j < len(pc.fields) && s.openKey(pc.fields[j].key) {
			key = s.src[off+1 : s.pos]
		} else {
			var more bool
			var err error
			if key, off, more, err = s.field(pc.name); err != nil {
				return 0, err
			}
			if !more {
				break
			}
			for j = 0; j < len(pc.fields); j++ {
				if k := pc.fields[j].key; k == "" || is(k, key) {
					break
				}
			}
		}
		next = j + 1
		var err error
		switch {
		case j == len(pc.fields):
			err = s.skipRest()
		case pc.fields[j].val == valPart:
			err = w.bodyPart(p, key, off, i)
		default:
			if have&(1<<j) != 0 {
				return 0, errAt(off, ErrRepeated, "%s: repeated (%s …)", pc.name, key)
			}
			have |= 1 << j
			f := &pc.fields[j]
			switch f.val {
			case valNumbers:
				for k := range uintptr(f.n) {
					var v float64
					if v, err = s.number(f.what); err != nil {
						return 0, err
					}
					*(*float64)(unsafe.Add(rec, f.at+k*unsafe.Sizeof(v))) = v
				}
			case valInt:
				var v int
				if v, err = s.integer(f.what); err != nil {
					return 0, err
				}
				*(*int)(unsafe.Add(rec, f.at)) = v
			case valName:
				b, off, err := s.word(f.what)
				if err != nil {
					return 0, err
				}
				w.names[j] = [2]int{off, off + len(b)}
			case valJoint:
				b, off, err := s.word(f.what)
				if err != nil {
					return 0, err
				}
				id, ok := JointByPerceptorName(b)
				if !ok {
					return 0, errAt(off, ErrUnknownJoint, "%s: unknown joint %q", pc.name, clip(b))
				}
				*(*JointID)(unsafe.Add(rec, f.at)) = id
			}
			if f.has != noFlag {
				*(*bool)(unsafe.Add(rec, f.has)) = true
			}
			err = s.close(f.end)
		}
		if err != nil {
			return 0, err
		}
	}
	if have&pc.need != pc.need {
		return 0, errAt(start, ErrMissing, "%s", pc.missing)
	}
	for j := 0; have&pc.names != 0; j++ {
		if f := &pc.fields[j]; f.val == valName && have&(1<<j) != 0 {
			have &^= 1 << j
			*(*Span)(unsafe.Add(rec, f.at)) = p.add(s.src[w.names[j][0]:w.names[j][1]])
		}
	}
	return i, nil
}

// bodyPart reads the body part key (at off) of player i: (key (pol d h v)).
func (w *walker) bodyPart(p *Perception, key []byte, off, i int) error {
	s, v := &w.s, &p.See
	s.skipSpace()
	if !s.openKey("pol") {
		k, poff, more, err := s.field("P part")
		if err != nil {
			return err
		}
		if !more {
			return errAt(off, ErrMissing, "P: body part %q without (pol d h v)", clip(key))
		}
		if string(k) != "pol" {
			return errAt(poff, ErrUnexpected, "P: body part %q: want (pol d h v), found (%s …)", clip(key), clip(k))
		}
	}
	var bp BodyPart
	if err := s.numbers(bp.Pol[:], "P pol"); err != nil {
		return err
	}
	if err := s.close("P part"); err != nil {
		return err
	}
	if len(v.Parts) >= MaxItems {
		return errAt(off, ErrTooLong, "more than %d See body parts", MaxItems)
	}
	bp.Name = p.add(key)
	v.Parts = append(v.Parts, bp)
	v.Players[i].PartCount++
	return nil
}

// hear reads (hear [team] time self|direction message) after its name.
func (w *walker) hear(p *Perception, start int) (int, error) {
	s := &w.s
	var args [4][2]int
	n := 0
	for {
		s.skipSpace()
		if s.pos >= len(s.src) {
			return 0, s.eof("hear")
		}
		c := s.src[s.pos]
		if c == ')' {
			s.pos++
			s.depth--
			break
		}
		if c == '(' || n == len(args) {
			return 0, errAt(s.pos, ErrUnexpected, "hear: want [team] time self|direction message, found %s", s.found())
		}
		end := s.atomEnd(s.pos)
		args[n] = [2]int{s.pos, end}
		n++
		s.pos = end
	}
	if n < 3 {
		return 0, errAt(start, ErrMissing, "hear: want [team] time self|direction message, got %d values", n)
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
		return 0, errAt(args[i][0], ErrBadNumber, "hear time: bad number %q", clip(arg(i)))
	}
	if d := arg(i + 1); string(d) == "self" {
		h.Self = true
	} else if h.Dir, ok = parseFloat(d); !ok {
		return 0, errAt(args[i+1][0], ErrBadNumber, "hear direction: bad number %q", clip(d))
	}
	if len(p.Hear) >= MaxItems {
		return 0, errAt(start, ErrTooLong, "more than %d hear perceptors", MaxItems)
	}
	if h.HasTeam {
		h.Team = p.add(arg(0))
	}
	h.Msg = p.add(arg(i + 2))
	return push(&p.Hear, h), nil
}

// see reads the items of a See block after its name.
func (w *walker) see(p *Perception) error {
	s := &w.s
	v := &p.See
	var seen uint32
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
			return nil
		case '(':
		default: // a bare atom: keep it as an unknown item
			s.pos = s.atomEnd(start)
			if err := w.seeUnknown(p, start); err != nil {
				return err
			}
			continue
		}
		if err := s.open(); err != nil {
			return err
		}
		name := s.head()
		j := find(seeItems[:], seeItemIndex, name)
		if j < 0 {
			var err error
			if name == nil {
				if err = s.skipRest(); err == nil {
					err = w.seeUnknown(p, start)
				}
			} else {
				err = w.seeObject(p, start, name)
			}
			if err != nil {
				return err
			}
			continue
		}
		it := &seeItems[j]
		if it.once {
			bit := uint32(1) << j
			if seen&bit != 0 {
				return errAt(start, ErrRepeated, "See: repeated (%s …)", name)
			}
			seen |= bit
		}
		var i int
		var err error
		switch it.shape {
		case shapeFields, shapeValues:
			i, err = w.fields(p, it, start)
		case shapeLine:
			i, err = w.line(p, start)
		}
		if err != nil {
			return err
		}
		v.Order = append(v.Order, Item{it.kind, uint16(i)})
	}
}

// seeUnknown keeps the text from start to the scanner's position.
func (w *walker) seeUnknown(p *Perception, start int) error {
	v := &p.See
	if len(v.Unknown) >= MaxItems {
		return errAt(start, ErrTooLong, "more than %d unknown See items", MaxItems)
	}
	v.Unknown = append(v.Unknown, p.add(w.s.src[start:w.s.pos]))
	v.Order = append(v.Order, Item{KindUnknown, uint16(len(v.Unknown) - 1)})
	return nil
}

// seeObject reads (name (pol d h v)) or (name (ffs d h v o)); an item of
// any other form is kept verbatim.
func (w *walker) seeObject(p *Perception, start int, name []byte) error {
	s := &w.s
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
				i := push(&v.Objects, Object{Name: p.add(name), Pol: pol})
				v.Order = append(v.Order, Item{SeeObject, uint16(i)})
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
				i := push(&v.Features, Feature{Name: p.add(name), V: f})
				v.Order = append(v.Order, Item{SeeFeature, uint16(i)})
				return nil
			}
		}
	}
	s.pos, s.depth = save, depth
	if err := s.skipRest(); err != nil {
		return err
	}
	return w.seeUnknown(p, start)
}

// line reads the two ends of a field line, (pol d h v) (pol d h v), and
// the ')' after them.
func (w *walker) line(p *Perception, start int) (int, error) {
	s := &w.s
	var l Line
	for i, dst := range [2]*Polar{&l.A, &l.B} {
		key, off, more, err := s.field("L")
		if err != nil {
			return 0, err
		}
		if !more {
			return 0, errAt(off, ErrMissing, "L: want two (pol d h v), got %d", i)
		}
		if string(key) != "pol" {
			return 0, errAt(off, ErrUnexpected, "L: want (pol d h v), found (%s …)", clip(key))
		}
		if err := s.numbers(dst[:], "L pol"); err != nil {
			return 0, err
		}
	}
	if err := s.close("L"); err != nil {
		return 0, err
	}
	v := &p.See
	if len(v.Lines) >= MaxItems {
		return 0, errAt(start, ErrTooLong, "more than %d See lines", MaxItems)
	}
	return push(&v.Lines, l), nil
}
