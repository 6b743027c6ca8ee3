//go:build ode && cgo

package ode

/*
#cgo CFLAGS: -O2
#cgo LDFLAGS: -lode -lm
#include <stdlib.h>
#include <ode/ode.h>
#include "scene.h"
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"
)

// The Go and C output layouts agree (a compile error otherwise).
var (
	_ = [1]int{}[C.PS_OUT_GYR-outGyr+C.PS_OUT_ACC-outAcc+C.PS_OUT_FRP-outFRP]
	_ = [1]int{}[C.PS_OUT_TORSO_R-outTorsoR+C.PS_OUT_HEAD_R-outHeadR+C.PS_OUT_LINVEL-outLinVel]
	_ = [1]int{}[C.PS_OUT_ANGVEL-outAngVel+C.PS_OUT_CONTACTS-outContacts+C.PS_OUT_ENABLED-outEnabled+C.PS_OUT_ANGLES-outAngles]
	_ = [1]int{}[C.PS_MAX_JOINTS-MaxJoints+C.PS_MAX_BODIES-MaxBodies]
)

// Available says whether this build has ODE.
const Available = true

// Scene is an ODE world with the field, a ball and robots. It is not safe
// for concurrent use.
type Scene struct {
	c      *C.ps_scene
	slots  []slot
	stride int
	vel    []float64 // MaxJoints per slot; NaN: keep
	out    []float64 // stride per slot, then 6 for the ball
}

type slot struct {
	used   bool
	nj, nb int
}

// New creates a scene with params p.
func New(p Params) (*Scene, error) {
	if !(p.Step > 0) || p.BallRadius <= 0 || p.BallMass <= 0 {
		return nil, fmt.Errorf("ode: step %v, ball radius %v, mass %v must be positive", p.Step, p.BallRadius, p.BallMass)
	}
	var cp C.ps_params
	cp.gravity = C.double(p.Gravity)
	cp.cfm = C.double(p.CFM)
	cp.erp = C.double(p.ERP)
	cp.surface_layer = C.double(p.SurfaceLayer)
	cp.dt = C.double(p.Step)
	if p.AutoDisable {
		cp.auto_disable = 1
	}
	cp.max_contacts = C.int(p.MaxContacts)
	cp.threads = C.int(p.Threads)
	for i := range numSurface {
		for j := range numSurface {
			m := Mix(p.Handlers[i], p.Handlers[j])
			cs := &cp.surf[i][j]
			mode := 0
			if m.SoftERPOn {
				mode |= C.dContactSoftERP
			}
			if m.SoftCFMOn {
				mode |= C.dContactSoftCFM
			}
			if m.SlipOn {
				mode |= C.dContactSlip1 | C.dContactSlip2
			}
			if m.BounceOn {
				mode |= C.dContactBounce
			}
			cs.mode = C.int(mode)
			cs.mu = C.double(m.Mu) // dInfinity is the double +Inf
			cs.bounce, cs.bounce_vel = C.double(m.Bounce), C.double(m.BounceVel)
			cs.soft_erp, cs.soft_cfm = C.double(m.SoftERP), C.double(m.SoftCFM)
			cs.slip1, cs.slip2 = C.double(m.Slip), C.double(m.Slip)
		}
	}
	cp.ball_radius, cp.ball_mass = C.double(p.BallRadius), C.double(p.BallMass)
	cp.ball_lin_drag, cp.ball_ang_drag = C.double(p.BallLinDrag), C.double(p.BallAngDrag)
	cp.ball_decel_factor, cp.ball_decel_base = C.double(p.BallDecelFactor), C.double(p.BallDecelBase)
	c := C.ps_new(&cp)
	if c == nil {
		return nil, fmt.Errorf("ode: creating the scene: out of memory (the scene or its threading implementation)")
	}
	for _, b := range p.Statics {
		var size, pos [3]C.double
		var rot [9]C.double
		for k := range 3 {
			size[k], pos[k] = C.double(b.Size[k]), C.double(b.Pos[k])
		}
		for k := range 9 {
			rot[k] = C.double(b.Rot[k])
		}
		C.ps_add_static(c, &size[0], &pos[0], &rot[0])
	}
	return &Scene{c: c, out: make([]float64, 6)}, nil
}

// Close frees the scene.
func (s *Scene) Close() {
	if s.c != nil {
		C.ps_free(s.c)
		s.c = nil
	}
}

// AddRobot builds model m with its torso at pos and every body rotated by
// rot (row-major), every joint at 0, and returns its id.
func (s *Scene) AddRobot(m *Model, pos [3]float64, rot [9]float64) (int, error) {
	if err := m.validate(); err != nil {
		return -1, err
	}
	cb := (*[MaxBodies]C.ps_body_spec)(C.calloc(MaxBodies, C.size_t(unsafe.Sizeof(C.ps_body_spec{}))))
	cj := (*[MaxJoints]C.ps_joint_spec)(C.calloc(MaxJoints, C.size_t(unsafe.Sizeof(C.ps_joint_spec{}))))
	defer C.free(unsafe.Pointer(cb))
	defer C.free(unsafe.Pointer(cj))
	for i, b := range m.Bodies {
		c := &cb[i]
		c.shape = C.int(b.Shape)
		c.mass = C.double(b.Mass)
		for k := range 3 {
			c.size[k] = C.double(b.Size[k])
			c.pos[k] = C.double(b.Pos[k])
		}
		c.surface = C.int(b.Surface)
		c.frp = C.int(b.FRP)
		c.lin_drag, c.ang_drag = C.double(b.LinDrag), C.double(b.AngDrag)
	}
	for i, j := range m.Joints {
		c := &cj[i]
		c.child, c.parent = C.int(j.Child), C.int(j.Parent)
		for k := range 3 {
			c.anchor[k] = C.double(j.Anchor[k])
			c.axis[k] = C.double(j.Axis[k])
		}
		c.lo, c.hi = C.double(j.Lo), C.double(j.Hi)
		c.fmax, c.cfm, c.stop_cfm, c.stop_erp = C.double(j.FMax), C.double(j.CFM), C.double(j.StopCFM), C.double(j.StopERP)
		c.fudge, c.bounce, c.max_speed = C.double(j.Fudge), C.double(j.Bounce), C.double(j.MaxSpeed)
	}
	var cpos, crot [9]C.double
	for k := range 3 {
		cpos[k] = C.double(pos[k])
	}
	for k := range 9 {
		crot[k] = C.double(rot[k])
	}
	id := int(C.ps_add_robot(s.c, &cb[0], C.int(len(m.Bodies)), &cj[0], C.int(len(m.Joints)),
		C.int(m.Torso), C.int(m.Head), &cpos[0], &crot[0]))
	if id < 0 {
		return -1, fmt.Errorf("ode: adding a robot of %d bodies failed", len(m.Bodies))
	}
	for len(s.slots) <= id {
		s.slots = append(s.slots, slot{})
	}
	s.slots[id] = slot{used: true, nj: len(m.Joints), nb: len(m.Bodies)}
	s.relayout()
	for j := range MaxJoints {
		s.vel[id*MaxJoints+j] = math.NaN()
	}
	return id, nil
}

// relayout sizes the buffers for the slots (one stride for all: the
// largest robot's).
func (s *Scene) relayout() {
	st := 0
	for _, sl := range s.slots {
		st = max(st, stride(sl.nj, sl.nb))
	}
	s.stride = st
	n := len(s.slots)
	if len(s.vel) < n*MaxJoints {
		v := make([]float64, n*MaxJoints)
		copy(v, s.vel)
		for i := len(s.vel); i < len(v); i++ {
			v[i] = math.NaN()
		}
		s.vel = v
	}
	s.out = make([]float64, n*st+6)
}

// RemoveRobot destroys robot id.
func (s *Scene) RemoveRobot(id int) {
	if id < 0 || id >= len(s.slots) || !s.slots[id].used {
		return
	}
	C.ps_remove_robot(s.c, C.int(id))
	s.slots[id] = slot{}
}

// Place moves robot id rigidly (its joint angles kept) so that its torso is
// at pos with rotation rot; if clear ≥ 0 it is then lifted or lowered so
// that its lowest collider is clear above the ground. Velocities are zeroed.
func (s *Scene) Place(id int, pos [3]float64, rot [9]float64, clear float64) {
	var cpos, crot [9]C.double
	for k := range 3 {
		cpos[k] = C.double(pos[k])
	}
	for k := range 9 {
		crot[k] = C.double(rot[k])
	}
	C.ps_place(s.c, C.int(id), &cpos[0], &crot[0], C.double(clear))
}

// SetBall puts the ball at pos with velocity vel.
func (s *Scene) SetBall(pos, vel [3]float64) {
	cp := [3]C.double{C.double(pos[0]), C.double(pos[1]), C.double(pos[2])}
	cv := [3]C.double{C.double(vel[0]), C.double(vel[1]), C.double(vel[2])}
	C.ps_set_ball(s.c, &cp[0], &cv[0])
}

// SetVelocity commands joint j of robot id's motor velocity (rad/s) for
// the next Step and after, until set again (clamped to its MaxSpeed in
// single precision, as SimSpark's HingeEffector).
func (s *Scene) SetVelocity(id, j int, v float64) { s.vel[id*MaxJoints+j] = v }

// Step runs one cycle in one C call.
func (s *Scene) Step() {
	var vp *C.double
	if len(s.vel) > 0 {
		vp = (*C.double)(unsafe.Pointer(&s.vel[0]))
	}
	C.ps_step(s.c, vp, (*C.double)(unsafe.Pointer(&s.out[0])), C.int(s.stride))
	for i := range s.vel {
		s.vel[i] = math.NaN()
	}
}

// Robot returns robot id's state after the last Step.
func (s *Scene) Robot(id int) State {
	sl := s.slots[id]
	o := id * s.stride
	return State{out: s.out[o : o+s.stride], nj: sl.nj, nb: sl.nb}
}

// Ball returns the ball's position and velocity after the last Step.
func (s *Scene) Ball() (pos, vel [3]float64) {
	o := len(s.out) - 6
	return [3]float64(s.out[o : o+3]), [3]float64(s.out[o+3 : o+6])
}

// Contacts is the number of contact points created since the scene began.
func (s *Scene) Contacts() int64 { return int64(C.ps_stats_contacts(s.c)) }
