package motion

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/robotd/robotd/hal"
)

// Keyframe files describe fixed motions (get-ups, kicks) as a sequence of
// whole-body poses, in the spirit of rUNSWift's .pos files. The format is
// line based, UTF-8 text:
//
//	# A comment runs from '#' to the end of the line; blank lines are ignored.
//	# Every other line is one keyframe:
//	#
//	#   <duration_ms> [<Joint>=<value> ...] [stiffness=<0..1>] [ease=smooth]
//	#                 [until_pitch=<degrees> wait=<ms>]
//	#
//	400  LShoulderPitch=90 RShoulderPitch=90  stiffness=0.8
//	250  LKneePitch=60 RKneePitch=60 ease=smooth
//	300  LShoulderPitch=-30 until_pitch=63 wait=300
//
// duration_ms is how long the joints take to move, linearly, from the
// previous keyframe's pose (for the first keyframe: from where they were
// when the action started) to this one; with ease=smooth they start and
// end this keyframe at rest instead, along a smoothstep (3u²−2u³), so that
// moving the body's weight does not jolt it: milliseconds, > 0 and at most
// 10000, decimals allowed. Joints are named as in hal (HeadYaw … RHand);
// RHipYawPitch is accepted for LHipYawPitch, the NAO having one motor for
// both. Values are degrees, except for the hands (LHand, RHand: opening
// 0..1), and must lie within the joint's limits (hal.Joints). A joint a
// keyframe does not name keeps its previous target. stiffness sets every
// joint's stiffness from this keyframe on (before the first one that sets
// it, the player's default applies). A file holds at most MaxKeyframes
// keyframes and lasts at most MaxKeyframesDuration.
//
// until_pitch makes a keyframe end on the torso's pitch (degrees, forward
// positive, as hal.BodyAngles): as soon as the pitch reaches it (is at
// least it if it is positive or zero, at most it if negative), the next
// keyframe starts from where the joints are; if it is not reached within
// the duration, the pose is held for at most wait more milliseconds
// (0..MaxKeyframeDuration; only with until_pitch). Without a torso pitch
// (see Player.SetPitch) the keyframe lasts its duration.
//
// Errors name the file and line: "kick_left.kf:7: LKneePitch=130: outside
// the joint's limits [-5.29°, 121.04°]".

// Limits of keyframe files.
const (
	MaxKeyframes         = 1000
	MaxKeyframeDuration  = 10 * time.Second
	MaxKeyframesDuration = 60 * time.Second
)

// Keyframe is one pose of a keyframe action.
type Keyframe struct {
	// Duration is the time to move to this pose from the previous one.
	Duration time.Duration
	// Set is the joints this keyframe names; Angle their targets.
	Set   hal.JointSet
	Angle [hal.NumJoints]hal.Radians
	// Stiffness, if HasStiffness, applies from this keyframe on.
	Stiffness    float64
	HasStiffness bool
	// Smooth eases this keyframe's motion in and out (ease=smooth).
	Smooth bool
	// UntilPitch, if HasUntil, ends the keyframe when the torso's pitch
	// reaches it; Wait is how long the pose is held after Duration for it.
	UntilPitch hal.Radians
	HasUntil   bool
	Wait       time.Duration
	// Line is the keyframe's line in its file.
	Line int
}

// Keyframes is a parsed keyframe action.
type Keyframes struct {
	// Name is where the action came from (a file name).
	Name   string
	Frames []Keyframe
}

// Duration returns the action's total duration.
func (k *Keyframes) Duration() time.Duration {
	var d time.Duration
	for i := range k.Frames {
		d += k.Frames[i].Duration
	}
	return d
}

// KeyframeError is a syntax or range error in a keyframe file.
type KeyframeError struct {
	Name string
	Line int
	Msg  string
}

func (e *KeyframeError) Error() string { return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg) }

// isHand reports whether the joint's unit is an opening fraction.
func isHand(j hal.Joint) bool { return j == hal.LHand || j == hal.RHand }

// ParseKeyframes parses a keyframe file (see the format above). name is used
// in errors.
func ParseKeyframes(name string, data []byte) (*Keyframes, error) {
	k := &Keyframes{Name: name}
	var total time.Duration
	line := 0
	for len(data) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		if i := bytes.IndexByte(l, '#'); i >= 0 {
			l = l[:i]
		}
		fields := strings.Fields(string(l))
		if len(fields) == 0 {
			continue
		}
		errf := func(format string, args ...any) error {
			return &KeyframeError{Name: name, Line: line, Msg: fmt.Sprintf(format, args...)}
		}
		if len(k.Frames) >= MaxKeyframes {
			return nil, errf("more than %d keyframes", MaxKeyframes)
		}
		f := Keyframe{Line: line}
		ms, err := strconv.ParseFloat(fields[0], 64)
		if err != nil || math.IsNaN(ms) || strings.ContainsAny(fields[0], "xXpP_") {
			return nil, errf("%q: want a duration in milliseconds first", fields[0])
		}
		if !(ms > 0) || ms > float64(MaxKeyframeDuration/time.Millisecond) {
			return nil, errf("duration %s ms: want more than 0 and at most %d", fields[0], MaxKeyframeDuration/time.Millisecond)
		}
		f.Duration = time.Duration(math.Round(ms * float64(time.Millisecond)))
		if f.Duration <= 0 {
			return nil, errf("duration %s ms: shorter than a nanosecond", fields[0])
		}
		total += f.Duration
		if total > MaxKeyframesDuration {
			return nil, errf("the action lasts more than %v", MaxKeyframesDuration)
		}
		for _, fld := range fields[1:] {
			key, val, ok := strings.Cut(fld, "=")
			if !ok || key == "" || val == "" {
				return nil, errf("%q: want Joint=value, stiffness=value, ease=smooth, until_pitch=degrees or wait=ms", fld)
			}
			if key == "ease" {
				if val != "smooth" && val != "linear" {
					return nil, errf("%q: ease is smooth or linear", fld)
				}
				f.Smooth = val == "smooth"
				continue
			}
			if key == "until_pitch" || key == "wait" {
				v, err := strconv.ParseFloat(val, 64)
				if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || strings.ContainsAny(val, "xXpP_") {
					return nil, errf("%q: %q is not a number", fld, val)
				}
				if key == "until_pitch" {
					if f.HasUntil {
						return nil, errf("until_pitch set twice")
					}
					if v < -90 || v > 90 {
						return nil, errf("%q: a pitch is within -90..90 degrees", fld)
					}
					f.UntilPitch, f.HasUntil = hal.Deg(v), true
					continue
				}
				if f.Wait != 0 || v < 0 || v > float64(MaxKeyframeDuration/time.Millisecond) {
					return nil, errf("%q: wait is set once, 0..%d ms", fld, MaxKeyframeDuration/time.Millisecond)
				}
				f.Wait = time.Duration(math.Round(v * float64(time.Millisecond)))
				total += f.Wait
				if total > MaxKeyframesDuration {
					return nil, errf("the action lasts more than %v", MaxKeyframesDuration)
				}
				continue
			}
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || strings.ContainsAny(val, "xXpP_") {
				return nil, errf("%q: %q is not a number", fld, val)
			}
			if key == "stiffness" {
				if f.HasStiffness {
					return nil, errf("stiffness set twice")
				}
				if v < 0 || v > 1 {
					return nil, errf("%q: stiffness must be within 0..1", fld)
				}
				f.Stiffness, f.HasStiffness = v, true
				continue
			}
			if key == "RHipYawPitch" {
				key = "LHipYawPitch"
			}
			j, ok := hal.JointByName(key)
			if !ok {
				return nil, errf("%q: unknown joint %q", fld, key)
			}
			if f.Set.Has(j) {
				return nil, errf("%q: %s set twice", fld, j)
			}
			a := hal.Radians(v)
			info := &hal.Joints[j]
			if isHand(j) {
				if a < info.Min || a > info.Max {
					return nil, errf("%q: outside the hand's range [%g, %g]", fld, info.Min, info.Max)
				}
			} else {
				a = hal.Deg(v)
				// A hundredth of a degree of slack for rounded limits.
				const slack = hal.Radians(0.01 * math.Pi / 180)
				if a < info.Min-slack || a > info.Max+slack {
					return nil, errf("%q: outside the joint's limits [%.2f°, %.2f°]", fld, info.Min.Degrees(), info.Max.Degrees())
				}
				a = j.Clamp(a)
			}
			f.Set |= 1 << j
			f.Angle[j] = a
		}
		if f.Wait != 0 && !f.HasUntil {
			return nil, errf("wait without until_pitch")
		}
		k.Frames = append(k.Frames, f)
	}
	if len(k.Frames) == 0 {
		return nil, &KeyframeError{Name: name, Line: line, Msg: "no keyframes"}
	}
	return k, nil
}

// Format writes the action in the keyframe file format; ParseKeyframes
// reads it back to the same keyframes, with angles rounded to 0.0001°.
func (k *Keyframes) Format() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n", k.Name)
	for i := range k.Frames {
		f := &k.Frames[i]
		b.WriteString(strconv.FormatFloat(float64(f.Duration)/float64(time.Millisecond), 'f', -1, 64))
		for j := range hal.Joint(hal.NumJoints) {
			if !f.Set.Has(j) {
				continue
			}
			if isHand(j) {
				// Hand openings are fractions: written exactly.
				fmt.Fprintf(&b, " %s=%s", j, strconv.FormatFloat(float64(f.Angle[j]), 'g', -1, 64))
				continue
			}
			fmt.Fprintf(&b, " %s=%s", j, formatValue(f.Angle[j].Degrees()))
		}
		if f.HasStiffness {
			fmt.Fprintf(&b, " stiffness=%s", strconv.FormatFloat(f.Stiffness, 'g', -1, 64))
		}
		if f.Smooth {
			b.WriteString(" ease=smooth")
		}
		if f.HasUntil {
			fmt.Fprintf(&b, " until_pitch=%s", formatValue(f.UntilPitch.Degrees()))
			if f.Wait != 0 {
				b.WriteString(" wait=" + strconv.FormatFloat(float64(f.Wait)/float64(time.Millisecond), 'f', -1, 64))
			}
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// formatValue writes a value with at most four decimals (a ten-thousandth
// of a degree), without trailing zeros.
func formatValue(v float64) string {
	s := strconv.FormatFloat(v, 'f', 4, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// mirrored maps each joint to its mirror image and says whether the angle
// changes sign (rolls and yaws do, pitches do not).
var mirrored = func() (m [hal.NumJoints]struct {
	j    hal.Joint
	flip bool
}) {
	for j := range hal.Joint(hal.NumJoints) {
		name := j.String()
		other := name
		switch {
		case strings.HasPrefix(name, "L"):
			other = "R" + name[1:]
		case strings.HasPrefix(name, "R"):
			other = "L" + name[1:]
		}
		o, ok := hal.JointByName(other)
		if !ok {
			o = j // LHipYawPitch: one motor for both legs
		}
		flip := strings.HasSuffix(name, "Roll") || (strings.HasSuffix(name, "Yaw") && !strings.HasSuffix(name, "YawPitch"))
		m[j].j, m[j].flip = o, flip
	}
	return m
}()

// Mirror returns the action mirrored left to right (a left kick becomes a
// right kick).
func (k *Keyframes) Mirror(name string) *Keyframes {
	out := &Keyframes{Name: name, Frames: make([]Keyframe, len(k.Frames))}
	for i := range k.Frames {
		f := &k.Frames[i]
		g := Keyframe{Duration: f.Duration, Stiffness: f.Stiffness, HasStiffness: f.HasStiffness, Smooth: f.Smooth,
			UntilPitch: f.UntilPitch, HasUntil: f.HasUntil, Wait: f.Wait, Line: f.Line}
		for j := range hal.Joint(hal.NumJoints) {
			if !f.Set.Has(j) {
				continue
			}
			m := mirrored[j]
			a := f.Angle[j]
			if m.flip {
				a = -a
			}
			g.Set |= 1 << m.j
			g.Angle[m.j] = m.j.Clamp(a)
		}
		out.Frames[i] = g
	}
	return out
}

// Player plays a keyframe action. It is a generator: Reset, then Step every
// tick until it reports done.
type Player struct {
	kf        *Keyframes
	frame     int
	t         float64 // seconds into the current frame
	from, to  [hal.NumJoints]hal.Radians
	stiffness float64
	done      bool
	pitch     hal.Radians // the torso's, for until_pitch
	hasPitch  bool
}

// SetPitch gives the player the torso's pitch for this tick (forward
// positive); ok false if it is not known.
func (p *Player) SetPitch(pitch hal.Radians, ok bool) { p.pitch, p.hasPitch = pitch, ok }

// reached reports whether f's until_pitch is reached.
func (p *Player) reached(f *Keyframe) bool {
	if !f.HasUntil || !p.hasPitch {
		return false
	}
	if f.UntilPitch >= 0 {
		return p.pitch >= f.UntilPitch
	}
	return p.pitch <= f.UntilPitch
}

// Reset starts kf from the pose start with the default stiffness.
func (p *Player) Reset(kf *Keyframes, start *[hal.NumJoints]hal.Radians, stiffness float64) {
	p.kf, p.frame, p.t, p.done = kf, 0, 0, false
	p.from, p.to = *start, *start
	p.stiffness = stiffness
	p.enter()
}

// enter sets up the current frame's target.
func (p *Player) enter() {
	f := &p.kf.Frames[p.frame]
	for j := range hal.Joint(hal.NumJoints) {
		if f.Set.Has(j) {
			p.to[j] = f.Angle[j]
		}
	}
	if f.HasStiffness {
		p.stiffness = f.Stiffness
	}
}

// Done reports whether the action has finished.
func (p *Player) Done() bool { return p.done }

// Progress returns the index of the current keyframe and the fraction of it
// done.
func (p *Player) Progress() (int, float64) {
	if p.kf == nil || p.done {
		return 0, 1
	}
	return p.frame, min(p.t/p.kf.Frames[p.frame].Duration.Seconds(), 1)
}

// Step advances the action by dt seconds and writes every joint's target and
// stiffness into out; it reports whether the action has finished (the last
// pose is then held).
func (p *Player) Step(dt float64, out *hal.JointCommand) bool {
	if p.kf == nil {
		return true
	}
	if !p.done && dt > 0 {
		p.t += dt
		for {
			// A nanosecond's slack absorbs the rounding of summed ticks.
			f := &p.kf.Frames[p.frame]
			d := f.Duration.Seconds()
			if p.reached(f) {
				// The torso is where this keyframe waits for: the next
				// one starts from the pose reached so far.
				u := min(p.t/d, 1)
				if f.Smooth {
					u = u * u * (3 - 2*u)
				}
				for j := range p.to {
					p.to[j] = p.from[j] + (p.to[j]-p.from[j])*hal.Radians(u)
				}
				p.t = 0
			} else {
				if f.HasUntil && p.hasPitch {
					d += f.Wait.Seconds()
				}
				if p.t < d-1e-9 {
					break
				}
				p.t = max(p.t-d, 0)
			}
			p.from = p.to
			if p.frame+1 >= len(p.kf.Frames) {
				p.done, p.t = true, 0
				break
			}
			p.frame++
			p.enter()
		}
	}
	u := 1.0
	if !p.done {
		u = min(p.t/p.kf.Frames[p.frame].Duration.Seconds(), 1)
		if p.kf.Frames[p.frame].Smooth {
			u = u * u * (3 - 2*u)
		}
	}
	for j := range out.Angle {
		out.Angle[j] = p.from[j] + (p.to[j]-p.from[j])*hal.Radians(u)
		out.Stiffness[j] = p.stiffness
	}
	return p.done
}
