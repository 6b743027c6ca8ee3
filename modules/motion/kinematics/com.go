package kinematics

import (
	"math"

	"github.com/robotd/robotd/hal"
)

// The NAO v6 mass model, lumped per body part, after Aldebaran's published
// masses and centres of mass (rounded; arms, wrists and hands are one point
// mass per arm, the neck is in the head). Positions are in the part's frame.
// It is meant for balance checks, not for dynamics.
const (
	torsoMass = 1.0496
	headMass  = 0.6837 // neck and head
	armMass   = 0.5786 // shoulder to hand
	// armCoM is the arm's centre of mass from the shoulder along the arm.
	armCoM    = 0.09
	hipMass   = 0.2103 // pelvis and hip, at the hip joints
	thighMass = 0.3897
	tibiaMass = 0.3014
	ankleMass = 0.1342 // at the ankle joints
	footMass  = 0.1718
	shoulderY = 0.098
	shoulderZ = 0.100
	headCoMZ  = 0.18
	torsoCoMX = -0.0041
	torsoCoMZ = 0.0434
	thighCoMZ = -0.0538
	tibiaCoMZ = -0.0494
	footCoMX  = 0.0254
	footCoMZ  = -0.0324
	legMass   = hipMass + thighMass + tibiaMass + ankleMass + footMass
	robotMass = torsoMass + headMass + 2*armMass + 2*legMass
)

// Mass is the model's total mass in kg.
const Mass = robotMass

// CoM returns the centre of mass in the torso frame for the joint angles a,
// with the model's masses (NAO v6) and g's leg lengths. Arms are modelled as
// a point mass along the upper arm's direction.
func (g *Geometry) CoM(a *[hal.NumJoints]hal.Radians) Vec3 {
	var m Vec3
	add := func(mass float64, p Vec3) { m = m.Add(p.Scale(mass)) }
	add(torsoMass, Vec3{torsoCoMX, 0, torsoCoMZ})
	add(headMass, Vec3{0, 0, headCoMZ})
	for s, j := range [2][2]hal.Joint{{hal.LShoulderPitch, hal.LShoulderRoll}, {hal.RShoulderPitch, hal.RShoulderRoll}} {
		sign := 1 - 2*float64(s)
		pitch, roll := float64(a[j[0]]), float64(a[j[1]])
		// The arm points forward at zero, down at pitch π/2; roll turns it
		// sideways.
		sp, cp := math.Sincos(pitch)
		sr, cr := math.Sincos(roll)
		dir := Vec3{cp * cr, sr, -sp * cr}
		add(armMass, Vec3{0, sign * shoulderY, shoulderZ}.Add(dir.Scale(armCoM)))
	}
	legs := LegsFrom(a)
	for s := range 2 {
		side := Side(s)
		f := g.Frames(side, &legs[s])
		add(hipMass, f.Thigh.P)
		add(thighMass, f.Thigh.Apply(Vec3{0, 0, thighCoMZ}))
		add(tibiaMass, f.Tibia.Apply(Vec3{0, 0, tibiaCoMZ}))
		add(ankleMass, f.Foot.P)
		add(footMass, f.Foot.Apply(Vec3{footCoMX, 0, footCoMZ}))
	}
	return m.Scale(1 / robotMass)
}
