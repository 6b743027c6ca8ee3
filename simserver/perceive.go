package simserver

import (
	"math"
	"strconv"

	"github.com/robotd/robotd/hal/geom"
)

// appendF2 appends v with two decimals exactly as strconv.AppendFloat(dst,
// v, 'f', 2, 64) does (the server's format, "-0.00" included), several
// times faster: it takes the fast path only where rounding v·100 cannot
// differ from the correctly rounded decimal.
func appendF2(dst []byte, v float64) []byte {
	a := v
	if a < 0 {
		a = -a
	}
	if !(a < 1e6) { // also NaN
		return strconv.AppendFloat(dst, v, 'f', 2, 64)
	}
	x := a * 100
	n := uint64(x)
	f := x - float64(n)
	if f > 0.4999999 && f < 0.5000001 {
		return strconv.AppendFloat(dst, v, 'f', 2, 64)
	}
	if f > 0.5 {
		n++
	}
	if math.Signbit(v) {
		dst = append(dst, '-')
	}
	ip, c := n/100, n%100
	switch {
	case ip < 10:
		dst = append(dst, byte('0'+ip))
	case ip < 100:
		dst = append(dst, byte('0'+ip/10), byte('0'+ip%10))
	default:
		var d [20]byte
		i := len(d)
		for ip > 0 {
			i--
			d[i] = byte('0' + ip%10)
			ip /= 10
		}
		dst = append(dst, d[i:]...)
	}
	return append(dst, '.', byte('0'+c/10), byte('0'+c%10))
}

func appendVec(dst []byte, v geom.Vec3) []byte {
	dst = appendF2(dst, v.X)
	dst = append(dst, ' ')
	dst = appendF2(dst, v.Y)
	dst = append(dst, ' ')
	return appendF2(dst, v.Z)
}

var sideNames = [3]string{"", "left", "right"}

var frpNames = [2]string{"(FRP (n rf) (c ", "(FRP (n lf) (c "}

// hjNames are the HJ perceptor names in our joint order.
var hjNames = func() (n [numJoints]string) {
	for i, id := range jointIDs {
		n[i] = id.PerceptorName()
	}
	return n
}()

// AppendPerception encodes the agent's perceptor message for this cycle in
// the fork's layout and appends it to dst: time, GS, hear, GYR, ACC, the
// head joints, See (every VisionInterval-th message), then the arms and
// legs with each foot's FRP before its ankle roll. Call it once per agent
// per cycle, after Step: it counts the message.
func (w *World) AppendPerception(dst []byte, a *Agent) []byte {
	r := a.r
	dst = append(dst, "(time (now "...)
	dst = appendF2(dst, w.Time())
	dst = append(dst, "))(GS"...)
	if a.gsFull {
		dst = append(dst, " (unum "...)
		dst = strconv.AppendInt(dst, int64(a.unum), 10)
		dst = append(dst, ") (team "...)
		dst = append(dst, sideNames[a.team]...)
		dst = append(dst, ')')
		a.gsFull = false
	}
	dst = append(dst, " (sl "...)
	dst = strconv.AppendInt(dst, int64(w.game.scoreL), 10)
	dst = append(dst, ") (sr "...)
	dst = strconv.AppendInt(dst, int64(w.game.scoreR), 10)
	dst = append(dst, ") (t "...)
	dst = appendF2(dst, w.game.t)
	dst = append(dst, ") (pm "...)
	dst = append(dst, playModes[w.game.mode]...)
	dst = append(dst, "))"...)
	for i := 0; i < a.nHeard; i++ {
		h := &a.heard[i]
		dst = append(dst, "(hear "...)
		dst = append(dst, w.teams[h.team]...)
		dst = append(dst, ' ')
		dst = appendF2(dst, w.game.t)
		if h.self {
			dst = append(dst, " self "...)
		} else {
			dst = append(dst, ' ')
			dst = appendF2(dst, h.dir)
			dst = append(dst, ' ')
		}
		dst = append(dst, h.msg...)
		dst = append(dst, ')')
	}
	dst = append(dst, "(GYR (n torso) (rt "...)
	dst = appendVec(dst, r.gyr)
	dst = append(dst, "))(ACC (n torso) (a "...)
	dst = appendVec(dst, r.acc)
	dst = append(dst, "))"...)
	dst = appendHJ(dst, r, jHeadYaw)
	dst = appendHJ(dst, r, jHeadPitch)
	if w.cfg.VisionInterval > 0 && a.sent%w.cfg.VisionInterval == 0 {
		dst = w.appendSee(dst, a)
	}
	for j := jRArm; j < jRLeg; j++ {
		dst = appendHJ(dst, r, j)
	}
	for leg := 0; leg < 2; leg++ {
		b := jRLeg + 6*leg
		for j := b; j < b+5; j++ {
			dst = appendHJ(dst, r, j)
		}
		if r.contact[leg] {
			dst = append(dst, frpNames[leg]...)
			dst = appendVec(dst, r.frpC[leg])
			dst = append(dst, ") (f "...)
			dst = appendVec(dst, r.frpF[leg])
			dst = append(dst, "))"...)
		}
		dst = appendHJ(dst, r, b+5)
	}
	a.sent++
	return dst
}

func appendHJ(dst []byte, r *robot, j int) []byte {
	dst = append(dst, "(HJ (n "...)
	dst = append(dst, hjNames[j]...)
	dst = append(dst, ") (ax "...)
	dst = appendF2(dst, r.q[j]*deg)
	return append(dst, "))"...)
}
