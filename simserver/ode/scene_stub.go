//go:build !(ode && cgo)

package ode

// Scene is unavailable in this build: New returns ErrNoODE.
type Scene struct{}

// Available says whether this build has ODE.
const Available = false

// New returns ErrNoODE: this build has no ODE.
func New(p Params) (*Scene, error) { return nil, ErrNoODE }

// Close does nothing.
func (s *Scene) Close() {}

// AddRobot fails: this build has no ODE.
func (s *Scene) AddRobot(m *Model, pos [3]float64, rot [9]float64) (int, error) { return -1, ErrNoODE }

// RemoveRobot does nothing.
func (s *Scene) RemoveRobot(id int) {}

// Place does nothing.
func (s *Scene) Place(id int, pos [3]float64, rot [9]float64, clear float64) {}

// SetBall does nothing.
func (s *Scene) SetBall(pos, vel [3]float64) {}

// SetVelocity does nothing.
func (s *Scene) SetVelocity(id, j int, v float64) {}

// Step does nothing.
func (s *Scene) Step() {}

// Robot returns an empty state.
func (s *Scene) Robot(id int) State { return State{} }

// Ball returns zeros.
func (s *Scene) Ball() (pos, vel [3]float64) { return }

// Contacts returns 0.
func (s *Scene) Contacts() int64 { return 0 }
