package omnibase_test

import (
	"math"
	"testing"
	"time"

	"github.com/robotd/robotd/blackboard"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/modules/omnibase"
	"github.com/robotd/robotd/msg"
)

const period = 10 * time.Millisecond

// rig runs the module on a board, with an ideal base that integrates the
// commanded velocity into its odometry.
type rig struct {
	t    *testing.T
	m    *omnibase.Module
	b    *blackboard.Board
	req  *blackboard.Writer[msg.MotionRequest]
	bsW  *blackboard.Writer[hal.BaseState]
	vel  *blackboard.Reader[hal.BaseVelocity]
	st   *blackboard.Reader[msg.MotionState]
	bs   hal.BaseState
	seq  uint64
	conn bool
}

func newRig(t *testing.T, cfg omnibase.Config) *rig {
	t.Helper()
	r := &rig{t: t, m: omnibase.New(cfg), b: blackboard.New(), conn: true}
	var err error
	if r.req, err = blackboard.Write(r.b, "behaviour", msg.MotionRequestKey); err != nil {
		t.Fatal(err)
	}
	if r.bsW, err = blackboard.Write(r.b, "hal", msg.BaseKey); err != nil {
		t.Fatal(err)
	}
	if err := r.m.Wire(r.b); err != nil {
		t.Fatal(err)
	}
	if r.vel, err = blackboard.Read(r.b, "test", msg.BaseVelocityKey); err != nil {
		t.Fatal(err)
	}
	if r.st, err = blackboard.Read(r.b, "test", msg.MotionStateKey); err != nil {
		t.Fatal(err)
	}
	return r
}

// step runs one tick with request q and returns the commanded velocity and
// the motion state; the base then moves at that velocity for one period.
func (r *rig) step(q msg.MotionRequest) (hal.BaseVelocity, msg.MotionState) {
	r.seq++
	now := time.Duration(r.seq) * period
	r.b.BeginTick(r.seq, now)
	r.req.Set(q)
	r.bsW.Set(r.bs)
	if err := r.m.Tick(hal.Tick{Seq: r.seq, Time: now, Period: period, Connected: r.conn}); err != nil {
		r.t.Fatal(err)
	}
	v, _ := r.vel.Get()
	st, _ := r.st.Get()
	dt := period.Seconds()
	s, c := math.Sincos(float64(r.bs.Odometry.Heading))
	r.bs.Odometry.X += hal.Metres((c*float64(v.VX) - s*float64(v.VY)) * dt)
	r.bs.Odometry.Y += hal.Metres((s*float64(v.VX) + c*float64(v.VY)) * dt)
	r.bs.Odometry.Heading += hal.Radians(float64(v.Omega) * dt)
	return v, st
}

func walk(fwd, left, turn float64) msg.MotionRequest {
	return msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{Forward: hal.MetresPerSec(fwd), Left: hal.MetresPerSec(left), Turn: hal.RadPerSec(turn)}}
}

func speed(v hal.BaseVelocity) float64 { return math.Hypot(float64(v.VX), float64(v.VY)) }

func TestWalkAtSpeedsRampsAndClamps(t *testing.T) {
	cfg := omnibase.DefaultConfig()
	cases := []struct {
		name       string
		req        msg.MotionRequest
		wantVX     float64
		wantVY     float64
		wantOmega  float64
		rampTicks  int // ticks until the speed is reached, ±1
		wantActive msg.MotionKind
	}{
		{"forward within the limit", walk(0.3, 0, 0), 0.3, 0, 0, 30, msg.MotionWalk},
		{"sideways beyond the limit is scaled", walk(0, 2, 0), 0, float64(cfg.MaxSpeed), 0, 50, msg.MotionWalk},
		{"diagonal keeps its direction", walk(0.6, 0.6, 0), float64(cfg.MaxSpeed) / math.Sqrt2, float64(cfg.MaxSpeed) / math.Sqrt2, 0, 50, msg.MotionWalk},
		{"turn is clamped", walk(0, 0, -5), 0, 0, -float64(cfg.MaxTurn), 50, msg.MotionWalk},
		{"not finite is zero", walk(math.NaN(), 0, 0), 0, 0, 0, 0, msg.MotionWalk},
		{"stand stops", msg.MotionRequest{Kind: msg.MotionStand}, 0, 0, 0, 0, msg.MotionStand},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, cfg)
			var v hal.BaseVelocity
			var st msg.MotionState
			reached := -1
			for i := range 200 {
				v, st = r.step(tc.req)
				if reached < 0 && math.Abs(float64(v.VX)-tc.wantVX) < 1e-9 && math.Abs(float64(v.VY)-tc.wantVY) < 1e-9 && math.Abs(float64(v.Omega)-tc.wantOmega) < 1e-9 {
					reached = i
				}
			}
			if reached < 0 {
				t.Fatalf("velocity %+v, want (%g, %g, %g)", v, tc.wantVX, tc.wantVY, tc.wantOmega)
			}
			if reached < tc.rampTicks-1 || reached > tc.rampTicks+1 {
				t.Errorf("reached the speed after %d ticks, want %d (the acceleration limit)", reached, tc.rampTicks)
			}
			if st.Active != tc.wantActive {
				t.Errorf("active %v, want %v", st.Active, tc.wantActive)
			}
		})
	}
}

func TestStops(t *testing.T) {
	cases := []struct {
		name    string
		disturb func(*rig)
		req     msg.MotionRequest
		ramp    bool // stops with the deceleration ramp, not at once
		active  msg.MotionKind
	}{
		{"bumper", func(r *rig) { r.bs.Bumper = true }, walk(0.4, 0, 0), false, msg.MotionStand},
		{"emergency stop", func(r *rig) { r.bs.EmergencyStop = true }, walk(0.4, 0, 0), false, msg.MotionStand},
		{"lost connection", func(r *rig) { r.conn = false }, walk(0.4, 0, 0), false, msg.MotionStand},
		{"relax", func(*rig) {}, msg.MotionRequest{Kind: msg.MotionRelax}, false, msg.MotionRelax},
		{"stand", func(*rig) {}, msg.MotionRequest{Kind: msg.MotionStand}, true, msg.MotionStand},
		{"get-up (nothing to do)", func(*rig) {}, msg.MotionRequest{Kind: msg.MotionGetUp}, true, msg.MotionStand},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, omnibase.DefaultConfig())
			for range 100 {
				r.step(walk(0.4, 0, 0))
			}
			tc.disturb(r)
			v, st := r.step(tc.req)
			if tc.ramp {
				if s := speed(v); math.Abs(s-(0.4-omnibase.DefaultConfig().Accel*period.Seconds())) > 1e-9 {
					t.Fatalf("speed %g after one tick; want one tick's deceleration", s)
				}
				for range 50 {
					v, st = r.step(tc.req)
				}
			}
			if v != (hal.BaseVelocity{}) || !st.Settled {
				t.Fatalf("velocity %+v, settled %v; want stopped", v, st.Settled)
			}
			if st.Active != tc.active {
				t.Errorf("active %v, want %v", st.Active, tc.active)
			}
		})
	}
}

func TestWalkToTarget(t *testing.T) {
	cases := []hal.Pose2{
		{X: 1, Y: 0, Heading: 0},
		{X: 0.5, Y: -0.8, Heading: 1},
		{X: -0.6, Y: 0.3, Heading: -2},
	}
	for _, target := range cases {
		r := newRig(t, omnibase.DefaultConfig())
		req := msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{ToTarget: true, Target: target}}
		var v hal.BaseVelocity
		for range 1500 {
			v, _ = r.step(req)
		}
		got := r.bs.Odometry
		cfg := omnibase.DefaultConfig().Target
		if d := math.Hypot(float64(got.X-target.X), float64(got.Y-target.Y)); d > float64(cfg.Tolerance) ||
			math.Abs(float64(got.Heading-target.Heading)) > float64(cfg.AngleTolerance) {
			t.Errorf("target %+v: the base is at %+v", target, got)
		}
		if v != (hal.BaseVelocity{}) {
			t.Errorf("target %+v: still moving at %+v after arriving", target, v)
		}
	}
}

func TestOdometryIsTheBases(t *testing.T) {
	r := newRig(t, omnibase.DefaultConfig())
	var sum hal.Pose2
	for range 300 {
		// The state's odometry is the last tick's motion, in the frame of
		// the tick before.
		_, st := r.step(walk(0.3, 0.1, 0.5))
		sum = sum.Compose(st.Odometry)
	}
	// The last tick's motion is reported in the next tick.
	want := r.bs.Odometry
	_, st := r.step(walk(0.3, 0.1, 0.5))
	sum = sum.Compose(st.Odometry)
	if math.Abs(float64(sum.X-want.X)) > 1e-9 || math.Abs(float64(sum.Y-want.Y)) > 1e-9 || math.Abs(float64((sum.Heading-want.Heading).Wrap())) > 1e-9 {
		t.Fatalf("summed odometry %+v, base moved %+v", sum, want)
	}
}

func TestKickIsAPush(t *testing.T) {
	cfg := omnibase.DefaultConfig()
	r := newRig(t, cfg)
	kick := msg.MotionRequest{Kind: msg.MotionKick, Kick: msg.KickRequest{Direction: 0.3}}
	for range 5 {
		r.step(msg.MotionRequest{Kind: msg.MotionStand})
	}
	pushTicks := 0
	for range 200 {
		v, st := r.step(kick)
		if st.Active == msg.MotionKick {
			pushTicks++
			if !st.Interruptible && v.VX <= 0 {
				t.Fatalf("pushing at %+v", v)
			}
		}
		if st.Active == msg.MotionKick && !st.Interruptible && r.seq > 1 {
			if d := math.Atan2(float64(v.VY), float64(v.VX)); math.Abs(d-0.3) > 1e-9 && speed(v) > 0 {
				t.Fatalf("pushing towards %g rad, want 0.3", d)
			}
		}
		if pushTicks > 0 && st.Active != msg.MotionKick {
			break
		}
	}
	if want := int(cfg.PushTime.D() / period); pushTicks < want || pushTicks > want+1 {
		t.Fatalf("pushed for %d ticks, want %d", pushTicks, want)
	}
	if d := math.Hypot(float64(r.bs.Odometry.X), float64(r.bs.Odometry.Y)); d < 0.1 {
		t.Fatalf("the push moved the base %g m", d)
	}
}

func TestValidate(t *testing.T) {
	bad := []func(*omnibase.Config){
		func(c *omnibase.Config) { c.MaxSpeed = 0 },
		func(c *omnibase.Config) { c.Accel = math.Inf(1) },
		func(c *omnibase.Config) { c.Target.Gain = math.NaN() },
		func(c *omnibase.Config) { c.PushTime = -1 },
	}
	def := omnibase.DefaultConfig()
	if err := def.Validate(); err != nil {
		t.Fatal(err)
	}
	for i, f := range bad {
		c := omnibase.DefaultConfig()
		f(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("case %d: accepted %+v", i, c)
		}
	}
}

func TestTickDoesNotAllocate(t *testing.T) {
	r := newRig(t, omnibase.DefaultConfig())
	req := msg.MotionRequest{Kind: msg.MotionWalk, Walk: msg.WalkRequest{ToTarget: true, Target: hal.Pose2{X: 100}}}
	for range 10 {
		r.step(req)
	}
	if n := testing.AllocsPerRun(1000, func() { r.step(req) }); n != 0 {
		t.Fatalf("%v allocations per tick", n)
	}
}
