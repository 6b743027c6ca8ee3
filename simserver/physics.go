package simserver

import (
	"fmt"
	"math"

	"github.com/robotd/robotd/hal/body"
	"github.com/robotd/robotd/hal/geom"
	"github.com/robotd/robotd/simserver/ode"
)

// Physics modes (Config.Physics).
const (
	// PhysicsKinematic is the kinematic world of this package's doc.
	PhysicsKinematic = "kinematic"
	// PhysicsODE steps the robots and the ball with ODE as rcssserver3d
	// does (package ode; needs a build with -tags ode and libode).
	PhysicsODE = "ode"
)

// beamClear is how high above the ground a beam puts a robot's lowest
// part: it lands 6 cycles later (connect.txt), a fall of 0.055 s.
const beamClear = 0.5 * gravity * dropTime * dropTime

// trainerClear is the gap under a robot the trainer moves.
const trainerClear = 0.001

// physModel is the NAO as an ODE model, with the bodies the simulator
// reports: joints in this package's order (jHeadYaw...), and the bodies
// other robots see.
type physModel struct {
	m        ode.Model
	lowerArm [2]int // right, left
	foot     [2]int
}

// ODE parameters common to the NAO's hinges (nao/hingejoint.rsg) and its
// bodies' drag (nao/dragcontroller.rsg): docs/simspark-nao-model.md §2.1
// and §5. SimSpark hands them to ODE as single-precision floats.
const (
	hingeCFM     = 1e-8
	hingeStopCFM = 1e-8
	hingeStopERP = 0.8
	hingeFudge   = 1e-5
	hingeBounce  = 1
	naoLinDrag   = 0.01
	naoAngDrag   = 0.01
)

func f32(v float64) float64 { return float64(float32(v)) }

// naoPhysModel builds the ODE NAO from the body table's SimSpark model
// (hal/body): its parts and hinges in the build frame, the hinges in this
// package's joint order.
func naoPhysModel() (*physModel, error) {
	bm := body.SimSpark()
	pm := &physModel{}
	m := &pm.m
	m.Torso, m.Head = bm.PartIndex("torso"), bm.PartIndex("head")
	for i, name := range [2]string{"r", "l"} {
		pm.lowerArm[i], pm.foot[i] = bm.PartIndex(name+"lowerarm"), bm.PartIndex(name+"foot")
	}
	if m.Torso < 0 || m.Head < 0 || min(pm.lowerArm[0], pm.lowerArm[1], pm.foot[0], pm.foot[1]) < 0 {
		return nil, fmt.Errorf("simserver: the body table's SimSpark model lacks the torso, head, lower arms or feet")
	}
	for _, p := range bm.Parts {
		b := ode.Body{Name: p.Name, Mass: p.Mass, Pos: build(p.Pos).Array(), Surface: ode.NoCollider, FRP: -1,
			LinDrag: f32(naoLinDrag), AngDrag: f32(naoAngDrag)}
		switch p.Shape {
		case body.Box:
			// Extents turn with the frame: the NAO frame's x is the build frame's y.
			b.Shape, b.Size = ode.Box, [3]float64{p.Size.Y, p.Size.X, p.Size.Z}
		case body.Sphere:
			b.Shape, b.Size = ode.Sphere, [3]float64{p.Size.X}
		case body.Capsule:
			b.Shape, b.Size = ode.Capsule, [3]float64{p.Size.X, p.Size.Z}
		default:
			return nil, fmt.Errorf("simserver: part %s has an unknown shape %d", p.Name, p.Shape)
		}
		if p.Collides {
			b.Surface = ode.Part
		}
		if p.Foot {
			b.Surface = ode.Foot
			b.FRP = 1 // left
			if p.Name[0] == 'r' {
				b.FRP = 0
			}
		}
		m.Bodies = append(m.Bodies, b)
	}
	for _, id := range jointIDs {
		h, ok := bm.HingeByEffector(id.EffectorName())
		if !ok {
			return nil, fmt.Errorf("simserver: the body table has no hinge %s", id.EffectorName())
		}
		m.Joints = append(m.Joints, ode.Joint{Name: h.Effector, Child: h.Child, Parent: h.Parent,
			Anchor: build(h.Anchor).Array(), Axis: build(h.Axis).Array(),
			Lo: f32(float64(h.Lo)), Hi: f32(float64(h.Hi)), FMax: f32(h.MaxForce),
			CFM: f32(hingeCFM), StopCFM: f32(hingeStopCFM), StopERP: f32(hingeStopERP),
			Fudge: f32(hingeFudge), Bounce: hingeBounce, MaxSpeed: f32(float64(h.MaxSpeed))})
	}
	return pm, nil
}

// physics is the ODE side of a World in PhysicsODE mode.
type physics struct {
	scene *ode.Scene
	model *physModel
}

func newPhysics(threads int) (*physics, error) {
	m, err := naoPhysModel()
	if err != nil {
		return nil, err
	}
	p := ode.SimSpark()
	p.Threads = threads
	s, err := ode.New(p)
	if err != nil {
		return nil, fmt.Errorf("simserver: physics mode %q: %w", PhysicsODE, err)
	}
	return &physics{scene: s, model: m}, nil
}

func (p *physics) close() {
	if p != nil {
		p.scene.Close()
	}
}

// place puts agent a's robot upright at (x, y) facing heading (or with
// torso rotation rot if not nil), its lowest part clear above the ground;
// the first placing creates it.
func (w *World) physPlace(a *Agent, x, y, heading float64, rot *geom.Mat3, clear float64) {
	p := w.phys
	R := ode.UprightRot(heading)
	if rot != nil {
		R = [9]float64(*rot)
	}
	pos := [3]float64{x, y, 0.4}
	if a.pid < 0 {
		id, err := p.scene.AddRobot(&p.model.m, pos, R)
		if err != nil {
			w.cfg.Logger.Error("physics: adding a robot", "agent", a.id, "err", err)
			return
		}
		a.pid = id
		for j := range numJoints {
			if a.r.v[j] != 0 {
				p.scene.SetVelocity(id, j, a.r.v[j])
			}
		}
	}
	p.scene.Place(a.pid, pos, R, clear)
}

// physStep steps the ODE scene one cycle and copies its state into the
// robots and the ball.
func (w *World) physStep() {
	p := w.phys
	p.scene.Step()
	for _, a := range w.agents {
		if a.pid < 0 {
			continue
		}
		st := p.scene.Robot(a.pid)
		r := a.r
		for j := range numJoints {
			r.q[j] = st.Angle(j)
		}
		r.dirty = true
		r.updateKin()
		r.gyr, r.acc = geom.V3(st.Gyro()), geom.V3(st.Acc())
		for k := range 2 {
			t, c, f := st.FRP(k)
			r.contact[k], r.frpC[k], r.frpF[k] = t, geom.V3(c), geom.V3(f)
		}
		r.R = geom.Mat3(st.TorsoRot())
		// The camera is the head body's centre: the torso origin of the
		// kinematic frame is put where that camera lands.
		head := geom.V3(st.Pos(p.model.m.Head))
		r.p = head.Sub(r.R.Apply(r.kin.cam))
		r.parts = [5]geom.Vec3{head,
			geom.V3(st.Pos(p.model.lowerArm[0])), geom.V3(st.Pos(p.model.lowerArm[1])),
			geom.V3(st.Pos(p.model.foot[0])), geom.V3(st.Pos(p.model.foot[1]))}
		r.partsCycle = w.cycle + 1
		torso := st.Pos(p.model.m.Torso)
		up := r.R.Col(2)
		switch {
		case torso[2] < 0.25 && up.Z < math.Cos(50*rad):
			r.state = bodyLying
		default:
			r.state = bodyStanding
		}
	}
	bp, bv := p.scene.Ball()
	w.ball.p, w.ball.v = geom.V3(bp), geom.V3(bv)
}

// TorsoPose is agent a's torso centre (m) and rotation (row-major) in the
// physics mode; ok is false in the kinematic mode or before it is placed.
func (w *World) TorsoPose(a *Agent) (pos [3]float64, rot [9]float64, ok bool) {
	if w.phys == nil || a.pid < 0 {
		return pos, rot, false
	}
	st := w.phys.scene.Robot(a.pid)
	return st.Pos(w.phys.model.m.Torso), st.TorsoRot(), true
}
