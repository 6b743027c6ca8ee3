package kinematics

import (
	"math"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/geom"
)

// CoM returns the centre of mass in the torso frame for the joint angles a,
// with g's mass model and leg lengths. Arms are a point mass along the
// upper arm's direction.
func (g *Geometry) CoM(a *[hal.NumJoints]hal.Radians) geom.Vec3 {
	ms := &g.Mass
	var m geom.Vec3
	add := func(mass float64, p geom.Vec3) { m = m.Add(p.Scale(mass)) }
	add(ms.Torso.Mass, ms.Torso.CoM)
	add(ms.Head.Mass, ms.Head.CoM)
	for s, j := range [2][2]hal.Joint{{hal.LShoulderPitch, hal.LShoulderRoll}, {hal.RShoulderPitch, hal.RShoulderRoll}} {
		sign := 1 - 2*float64(s)
		pitch, roll := float64(a[j[0]]), float64(a[j[1]])
		// The arm points forward at zero, down at pitch π/2; roll turns it
		// sideways.
		sp, cp := math.Sincos(pitch)
		sr, cr := math.Sincos(roll)
		dir := geom.Vec3{X: cp * cr, Y: sr, Z: -sp * cr}
		add(ms.Arm.Mass, geom.Vec3{X: ms.Shoulder.X, Y: sign * ms.Shoulder.Y, Z: ms.Shoulder.Z}.Add(dir.Scale(ms.Arm.CoM.X)))
	}
	legs := LegsFrom(a)
	for s := range 2 {
		side := Side(s)
		f := g.Frames(side, &legs[s])
		add(ms.Hip.Mass, f.Thigh.P)
		add(ms.Thigh.Mass, f.Thigh.Apply(ms.Thigh.CoM))
		add(ms.Tibia.Mass, f.Tibia.Apply(ms.Tibia.CoM))
		add(ms.Ankle.Mass, f.Foot.P)
		add(ms.Foot.Mass, f.Foot.Apply(ms.Foot.CoM))
	}
	return m.Scale(1 / ms.Total())
}
