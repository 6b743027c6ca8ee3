package simserver

import (
	"math"

	"github.com/robotd/robotd/simserver/ode"
)

// naoPhysModel is a stand-in built from docs/simspark-nao-model.md §1–2 until
// the shared body table exists; it is replaced by a conversion of that table.
func naoPhysModel() (*physModel, error) {
	pm := &physModel{}
	m := &pm.m
	add := func(name string, sh ode.Shape, size [3]float64, mass float64, pos [3]float64, surf ode.Surface, frp int) int {
		m.Bodies = append(m.Bodies, ode.Body{Name: name, Shape: sh, Size: size, Mass: mass, Pos: pos, Surface: surf, FRP: frp, LinDrag: 0.01, AngDrag: 0.01})
		return len(m.Bodies) - 1
	}
	r := math.Pi / 180
	hinge := func(name string, c, p int, anc, ax [3]float64, lo, hi float64) {
		m.Joints = append(m.Joints, ode.Joint{Name: name, Child: c, Parent: p, Anchor: anc, Axis: ax,
			Lo: float64(float32(lo * r)), Hi: float64(float32(hi * r)), FMax: 10, CFM: f32(1e-8), StopCFM: f32(1e-8), StopERP: f32(0.8),
			Fudge: f32(1e-5), Bounce: 1, MaxSpeed: f32(MaxJointSpeed)})
	}
	torso := add("torso", ode.Box, [3]float64{.1, .1, .18}, 1.2171, [3]float64{}, ode.Part, -1)
	neck := add("neck", ode.Capsule, [3]float64{.015, .08}, .05, [3]float64{0, 0, .09}, ode.Part, -1)
	head := add("head", ode.Sphere, [3]float64{.065}, .35, [3]float64{0, 0, .155}, ode.Part, -1)
	m.Torso, m.Head = torso, head
	hinge("he1", neck, torso, [3]float64{0, 0, .09}, [3]float64{0, 0, 1}, -119.5, 119.5)
	hinge("he2", head, neck, [3]float64{0, 0, .15}, [3]float64{1, 0, 0}, 29.5, -38.5)
	type arm struct{ sh, ua, el, la int }
	for side := 0; side < 2; side++ {
		s := 1.0
		if side == 1 {
			s = -1
		}
		sh := add("shoulder", ode.Sphere, [3]float64{.01}, .07, [3]float64{s * .098, 0, .075}, ode.NoCollider, -1)
		ua := add("upperarm", ode.Box, [3]float64{.07, .08, .06}, .15, [3]float64{s * .108, .02, .075}, ode.Part, -1)
		el := add("elbow", ode.Sphere, [3]float64{.01}, .035, [3]float64{s * .098, .09, .084}, ode.NoCollider, -1)
		la := add("lowerarm", ode.Box, [3]float64{.05, .11, .05}, .2, [3]float64{s * .098, .14, .084}, ode.Part, -1)
		pm.lowerArm[side] = la
		hinge("aj1", sh, torso, [3]float64{s * .098, 0, .075}, [3]float64{1, 0, 0}, -119.5, 119.5)
		if side == 0 {
			hinge("aj2", ua, sh, [3]float64{s * .098, 0, .075}, [3]float64{0, 0, 1}, -76, 18)
		} else {
			hinge("aj2", ua, sh, [3]float64{s * .098, 0, .075}, [3]float64{0, 0, 1}, -18, 76)
		}
		hinge("aj3", el, ua, [3]float64{s * .098, .09, .084}, [3]float64{0, 1, 0}, -119.5, 119.5)
		if side == 0 {
			hinge("aj4", la, el, [3]float64{s * .098, .09, .084}, [3]float64{0, 0, 1}, 2, 88.5)
		} else {
			hinge("aj4", la, el, [3]float64{s * .098, .09, .084}, [3]float64{0, 0, 1}, -88.5, -2)
		}
	}
	for side := 0; side < 2; side++ {
		s := 1.0
		if side == 1 {
			s = -1
		}
		h1 := add("hip1", ode.Sphere, [3]float64{.01}, .09, [3]float64{s * .055, -.01, -.115}, ode.NoCollider, -1)
		h2 := add("hip2", ode.Sphere, [3]float64{.01}, .125, [3]float64{s * .055, -.01, -.115}, ode.NoCollider, -1)
		th := add("thigh", ode.Box, [3]float64{.07, .07, .14}, .275, [3]float64{s * .055, 0, -.155}, ode.Part, -1)
		sk := add("shank", ode.Box, [3]float64{.08, .07, .11}, .225, [3]float64{s * .055, .005, -.28}, ode.Part, -1)
		an := add("ankle", ode.Sphere, [3]float64{.01}, .125, [3]float64{s * .055, -.005, -.335}, ode.NoCollider, -1)
		ft := add("foot", ode.Box, [3]float64{.08, .16, .02}, .2, [3]float64{s * .055, .025, -.375}, ode.Foot, side)
		pm.foot[side] = ft
		ax1 := [3]float64{-0.7071, 0, 0.7071}
		if side == 1 {
			ax1 = [3]float64{-0.7071, 0, -0.7071}
		}
		hinge("lj1", h1, torso, [3]float64{s * .055, -.01, -.115}, ax1, -65.62, 42.44)
		if side == 0 {
			hinge("lj2", h2, h1, [3]float64{s * .055, -.01, -.115}, [3]float64{0, 1, 0}, -45.29, 21.74)
		} else {
			hinge("lj2", h2, h1, [3]float64{s * .055, -.01, -.115}, [3]float64{0, 1, 0}, -21.74, 45.29)
		}
		hinge("lj3", th, h2, [3]float64{s * .055, -.01, -.115}, [3]float64{1, 0, 0}, -27.73, 88)
		hinge("lj4", sk, th, [3]float64{s * .055, -.005, -.235}, [3]float64{1, 0, 0}, -121.04, 5.29)
		hinge("lj5", an, sk, [3]float64{s * .055, -.005, -.335}, [3]float64{1, 0, 0}, -52.86, 68.15)
		if side == 0 {
			hinge("lj6", ft, an, [3]float64{s * .055, -.005, -.34}, [3]float64{0, 1, 0}, -22.79, 44.06)
		} else {
			hinge("lj6", ft, an, [3]float64{s * .055, -.005, -.34}, [3]float64{0, 1, 0}, -44.06, 22.79)
		}
	}
	return pm, nil
}

func f32(v float64) float64 { return float64(float32(v)) }
