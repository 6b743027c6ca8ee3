package simserver

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"
)

// Config configures a Server (and its World). Start from DefaultConfig:
// the zero value is not valid.
type Config struct {
	// AgentAddr and MonitorAddr are where the agent port and the
	// trainer/monitor port listen; ":0" ports pick free ones. An empty
	// MonitorAddr disables the monitor port.
	AgentAddr   string
	MonitorAddr string
	// AgentListener and MonitorListener, if set, are used instead of
	// listening on the addresses (for in-process use and tests). The
	// server closes them when Run returns.
	AgentListener   net.Listener
	MonitorListener net.Listener

	// Sync makes the server wait each cycle for (syn) from every agent and
	// then run as fast as they answer (the real server with
	// SPARK_FAST_TIME=true). Otherwise it runs in real time.
	Sync bool
	// Cycle is the simulation step: 10 ms on the SPL fork, 20 ms upstream.
	Cycle time.Duration
	// Seed seeds every random draw (vision noise, calibration errors).
	Seed uint64
	// Physics is the world model: PhysicsKinematic (the default) or
	// PhysicsODE (rcssserver3d's dynamics on ODE; a build with -tags ode).
	Physics string
	// PhysicsThreads, if above 1, steps robots that do not touch on that
	// many threads in PhysicsODE (ODE's island stepping). It is not
	// deterministic: on a loaded machine its perceptor bytes differed from
	// one thread's. Leave it at 0 or 1 wherever results must repeat.
	PhysicsThreads int

	// NoVisionNoise turns the vision noise and calibration error off.
	NoVisionNoise bool
	// VisionInterval is the number of cycles between See blocks (3).
	VisionInterval int
	// RestSteps is how many still steps let a robot come to rest, after
	// which a joint start shows one cycle later (the fork's ODE
	// auto-disable); 0 turns this off.
	RestSteps int
	// FallMargin is how far (m) the centre of mass may leave the support
	// polygon before the robot tips over.
	FallMargin float64
	// BallStart is where the ball starts (m, world frame).
	BallStart [2]float64
	// MonitorInterval is the simulation time between monitor updates.
	MonitorInterval time.Duration

	// MaxFrame bounds an agent's or trainer's message (bytes).
	MaxFrame int
	// WriteTimeout bounds sending one message; a client that does not read
	// for that long is disconnected.
	WriteTimeout time.Duration
	// SyncTimeout, if positive, disconnects an agent that withholds (syn)
	// for that long in sync mode; 0 waits for ever, as the real server.
	SyncTimeout time.Duration

	// CameraViews makes the server keep every robot's camera view
	// (World.CameraView) after each cycle, for in-process renderers
	// (Server.CameraView, Cameras). The agent protocol is unchanged.
	CameraViews bool

	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
}

// DefaultConfig returns the defaults: the SPL fork on 127.0.0.1:3100 and
// 127.0.0.1:3200, real time, 10 ms cycles, seed 1.
func DefaultConfig() Config {
	return Config{
		AgentAddr:       "127.0.0.1:3100",
		MonitorAddr:     "127.0.0.1:3200",
		Cycle:           10 * time.Millisecond,
		Seed:            1,
		Physics:         PhysicsKinematic,
		VisionInterval:  3,
		RestSteps:       10,
		FallMargin:      0.005,
		MonitorInterval: 40 * time.Millisecond,
		MaxFrame:        64 << 10,
		WriteTimeout:    2 * time.Second,
	}
}

func (c *Config) validate() error {
	switch {
	case c.Cycle <= 0 || c.Cycle > time.Second:
		return fmt.Errorf("simserver: cycle %v outside (0, 1s]", c.Cycle)
	case c.VisionInterval < 0:
		return fmt.Errorf("simserver: vision interval %d is negative", c.VisionInterval)
	case c.RestSteps < 0:
		return fmt.Errorf("simserver: rest steps %d is negative", c.RestSteps)
	case c.FallMargin < 0 || c.FallMargin > 1:
		return fmt.Errorf("simserver: fall margin %v outside [0, 1] m", c.FallMargin)
	case c.MonitorInterval < 0:
		return fmt.Errorf("simserver: monitor interval %v is negative", c.MonitorInterval)
	case c.MaxFrame < 0:
		return fmt.Errorf("simserver: max frame %d is negative", c.MaxFrame)
	case c.Physics != "" && c.Physics != PhysicsKinematic && c.Physics != PhysicsODE:
		return fmt.Errorf("simserver: physics %q is neither %q nor %q", c.Physics, PhysicsKinematic, PhysicsODE)
	case c.PhysicsThreads < 0 || c.PhysicsThreads > 64:
		return fmt.Errorf("simserver: physics threads %d outside 0..64", c.PhysicsThreads)
	case c.Physics == PhysicsODE && c.Cycle != 10*time.Millisecond:
		return fmt.Errorf("simserver: physics %q steps 10 ms cycles, not %v", PhysicsODE, c.Cycle)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return nil
}
