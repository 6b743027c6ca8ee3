package sim

import (
	"errors"
	"fmt"
	"time"

	"github.com/robotd/robotd/backends/pacing"
	"github.com/robotd/robotd/config"
)

// Config configures the SimSpark backend. DefaultConfig gives working
// values for the SPL fork of rcssserver3d on this machine.
type Config struct {
	// Host and Port are the server's agent port.
	Host string `json:"host"`
	Port int    `json:"port"`
	// Scene is the robot model sent in (scene …).
	Scene string `json:"scene"`
	// Team and Player are sent in (init (unum N)(teamname T)).
	// They are not in the sim section of a configuration file: cmd/robotd
	// fills both from its robot section.
	Team   string `json:"-"`
	Player int    `json:"-"`
	// Beam is the start pose sent in (beam x y deg): x, y in metres and the
	// heading in degrees, in the team's own frame.
	Beam Beam `json:"beam"`
	// Sync ends every reply with (syn), for a server in sync mode
	// (SPARK_FAST_TIME=true), which waits for it every cycle.
	Sync bool `json:"sync"`
	// Link is the link to the server (keys period, dial_timeout,
	// read_timeout, dead_timeout, handshake_timeout, backoff_min,
	// backoff_max; see linkSpec):
	//   - Period is the nominal cycle (10 ms on the SPL fork). It is used
	//     for dt only until two messages have arrived, and to pace ticks
	//     while the server is unreachable.
	//   - DialTimeout bounds one connection attempt.
	//   - ReadTimeout is how long Next waits for a message from a running
	//     server before it ticks on without it (Connected false, paced at
	//     Period): a few cycles, as the real server stalls for about 40 ms
	//     now and then. The connection is kept: if messages come back,
	//     they are used.
	//   - DeadTimeout is how long a running server may stay silent before
	//     the connection is closed and a new one made (with scene, init and
	//     beam again).
	//   - HandshakeTimeout is how long a new connection may stay silent
	//     before the first message (a sync-mode server took 2 s).
	//   - BackoffMin and BackoffMax bound the wait between connection
	//     attempts; it doubles after each failure.
	pacing.Link
	// AngleFilterTau is the complementary filter's time constant: the
	// accelerometer corrects the gyro-integrated tilt with this time
	// constant (weight dt/(tau+dt) per cycle).
	AngleFilterTau config.Duration `json:"angle_filter_tau"`
	// AngleFilterSettle is how long the accelerometer must read a steady
	// 1 g before the filter starts from it on a new connection (see
	// AngleFilter); 0 starts from the first reading near 1 g.
	AngleFilterSettle config.Duration `json:"angle_filter_settle"`
	// Vision configures the vision adapter and the derived sonars.
	Vision VisionConfig `json:"vision"`
}

// Beam is a start pose.
type Beam struct {
	X   float64 `json:"x"`
	Y   float64 `json:"y"`
	Deg float64 `json:"deg"`
}

// VisionConfig configures the vision adapter (the thesis §3.2.3) and the
// sonars derived from vision (§3.2.5).
type VisionConfig struct {
	// Source is where the robot's vision comes from: "server" (the
	// server's detected observations, hal.Vision) or "rendered" (camera
	// images rendered from the scene the server reports, hal.CameraSensor,
	// for robotd's own vision pipeline).
	Source VisionSource `json:"source"`
	// Render configures the rendered cameras.
	Render RenderConfig `json:"render"`
	// FOVDeg is the real camera's horizontal field of view: observations
	// further than FOVDeg/2 from the camera axis are dropped (the server
	// sees 120°).
	FOVDeg float64 `json:"fov_deg"`
	// ReliableBallDistance drops balls farther than this from the feet (m).
	ReliableBallDistance float64 `json:"reliable_ball_distance"`
	// NoiseDistance is the standard deviation of added distance noise as a
	// fraction of the distance, NoiseAngleDeg that of added angle noise.
	// Both are 0 by default: the server already adds about 3 % distance
	// noise.
	NoiseDistance float64 `json:"noise_distance"`
	NoiseAngleDeg float64 `json:"noise_angle_deg"`
	// Seed seeds the added noise.
	Seed uint64 `json:"seed"`
	// SonarMin and SonarMax bound the derived sonar echoes (m); SonarConeDeg
	// is the full width of the cone ahead of the chest that they cover.
	SonarMin     float64 `json:"sonar_min"`
	SonarMax     float64 `json:"sonar_max"`
	SonarConeDeg float64 `json:"sonar_cone_deg"`
}

// DefaultConfig returns the defaults: the SPL fork's 10 ms cycle on
// 127.0.0.1:3100, player 1 of team "robotd" beamed to (-2, 0) facing the
// opponent goal, real-time mode, the thesis' vision and sonar limits.
func DefaultConfig() Config {
	return Config{
		Host: "127.0.0.1", Port: 3100, Scene: "rsg/agent/nao/nao.rsg",
		Team: "robotd", Player: 1, Beam: Beam{X: -2},
		Link: pacing.Link{
			Period:           config.Duration(10 * time.Millisecond),
			DialTimeout:      config.Duration(time.Second),
			ReadTimeout:      config.Duration(60 * time.Millisecond),
			DeadTimeout:      config.Duration(3 * time.Second),
			HandshakeTimeout: config.Duration(5 * time.Second),
			BackoffMin:       config.Duration(50 * time.Millisecond),
			BackoffMax:       config.Duration(5 * time.Second),
		},
		AngleFilterTau:    config.Duration(500 * time.Millisecond),
		AngleFilterSettle: config.Duration(100 * time.Millisecond),
		Vision: VisionConfig{
			FOVDeg: 60.9, ReliableBallDistance: 2.5,
			SonarMin: 0.2, SonarMax: 0.8, SonarConeDeg: 60,
			Render: DefaultRenderConfig(),
		},
	}
}

// linkSpec is the SimSpark backend's link: with dial_timeout and
// handshake_timeout, and a read_timeout of at least one period.
var linkSpec = pacing.Spec{Name: "sim", Dial: true, Handshake: true, ReadCoversPeriod: true}

// Rules returns the allowed values and the documentation of every
// setting, keyed within the sim section: the backend's own and its link's
// (pacing.Link). Team and Player are not among them: cmd/robotd sets them
// from its robot section.
func (c Config) Rules() config.Rules {
	r := c.ownRules().Add("", c.Link.Rules(linkSpec))
	r["handshake_timeout"] = r["handshake_timeout"].Doc("", "how long a new connection may stay silent before the server's first message")
	return r
}

// ownRules are the rules of the settings of Config's own fields.
func (c Config) ownRules() config.Rules {
	return config.Rules{
		"host":                             config.Host().Doc("", "the SimSpark server's host"),
		"port":                             config.Port(false).Doc("", "the server's agent port"),
		"scene":                            config.Text(1, 4096).Doc("path", "the robot model the server loads for this agent, sent in (scene …)"),
		"beam.x":                           config.Range(-20, 20).Doc("m", "the start position's x, in the team's own field frame"),
		"beam.y":                           config.Range(-20, 20).Doc("m", "the start position's y, in the team's own field frame"),
		"beam.deg":                         config.Range(-360, 360).Doc("°", "the start heading, in the team's own field frame"),
		"sync":                             config.Bool().Doc("", "ends every reply with (syn), for a server in sync mode (SPARK_FAST_TIME=true)"),
		"angle_filter_tau":                 config.Durations(0, time.Minute).Doc("", "the time constant with which the accelerometer corrects the gyro-integrated tilt"),
		"angle_filter_settle":              config.Durations(0, 2*time.Second).Doc("", "how long the accelerometer must read a steady 1 g before the tilt estimate starts from it on a new connection (a robot landing after its beam bounces)"),
		"vision.source":                    config.OneOf("server", "rendered").Doc("", "where vision comes from: the server's detected observations, or camera images rendered from the scene for robotd's own vision"),
		"vision.fov_deg":                   config.Range(1, 180).Doc("°", "the camera's horizontal field of view: server observations outside it are dropped (the server sees 120°)"),
		"vision.reliable_ball_distance":    config.Range(0, 100).Doc("m", "drops server ball observations farther than this from the feet"),
		"vision.noise_distance":            config.Range(0, 10).Doc("fraction of distance", "the standard deviation of the distance noise added to server observations"),
		"vision.noise_angle_deg":           config.Range(0, 180).Doc("°", "the standard deviation of the angle noise added to server observations"),
		"vision.seed":                      config.Uint().Doc("", "seeds the noise added to server observations"),
		"vision.sonar_min":                 config.Range(0, 10).Doc("m", "the shortest echo of the sonars derived from vision"),
		"vision.sonar_max":                 config.Range(0, 10).Doc("m", "the longest echo of the sonars derived from vision"),
		"vision.sonar_cone_deg":            config.Range(0, 180).Doc("°", "the full width of the cone ahead of the chest that the derived sonars cover"),
		"vision.render.bottom_width":       config.Int(320, 640).Doc("px", "the rendered bottom camera's image width: 320 (320 × 240) or 640 (640 × 480)"),
		"vision.render.every":              config.Int(1, 30).Doc("", "renders the cameras for every Nth vision message of the server (1: about 33 Hz)"),
		"vision.render.options.brightness": config.Range(0.1, 4).Doc("", "the factor every rendered colour is scaled by (1: nominal; 0.4 … 1.6: a dim to a bright hall)"),
		"vision.render.options.colour_temperature": config.Range(2500, 12000).Doc("K", "the light's colour temperature (6500: neutral; lower is warmer, higher bluer)"),
		"vision.render.options.noise":              config.Range(0, 64).Doc("", "the standard deviation of the sensor noise in luma (0 … 255 scale); chroma gets half of it"),
		"vision.render.options.carpet_texture":     config.Range(0, 1).Doc("fraction", "the carpet's brightness variation"),
		"vision.render.options.yaw_rate":           config.Range(-50, 50).Doc("rad/s", "the camera's turn rate about its z axis during the exposure, which blurs the image"),
		"vision.render.options.pitch_rate":         config.Range(-50, 50).Doc("rad/s", "the camera's turn rate about its y axis during the exposure, which blurs the image"),
		"vision.render.options.exposure":           config.Range(0, 0.1).Doc("s", "the exposure time over which the camera's turn blurs the image"),
		"vision.render.options.seed":               config.Uint().Doc("", "seeds the rendered images' sensor noise (with each frame's number)"),
	}
}

// Validate checks c against Rules and what relates its settings; every
// error names its JSON key.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("sim: "+format, args...)) }
	if err := config.CheckSection("sim", c, c.ownRules()); err != nil {
		errs = append(errs, err)
	}
	if c.Team == "" || len(c.Team) > 16 || !isAtom(c.Team) {
		bad("team_name %q: want 1 to 16 characters without spaces or parentheses", c.Team)
	}
	if c.Player < 1 || c.Player > 20 {
		bad("player %d is outside 1..20", c.Player)
	}
	if err := c.Link.Validate(linkSpec); err != nil {
		errs = append(errs, err)
	}
	if c.AngleFilterTau.D() <= 0 {
		bad("angle_filter_tau %v must be positive", c.AngleFilterTau.D())
	}
	if d := c.AngleFilterSettle.D(); d < 0 || d > 2*time.Second {
		bad("angle_filter_settle %v is outside [0, 2s]", d)
	}
	v := c.Vision
	if !(v.FOVDeg > 0 && v.FOVDeg <= 120) {
		bad("vision.fov_deg %v is outside (0, 120]", v.FOVDeg)
	}
	if !(v.ReliableBallDistance > 0) {
		bad("vision.reliable_ball_distance %v must be positive", v.ReliableBallDistance)
	}
	if !(v.NoiseDistance >= 0 && v.NoiseDistance < 1) || !(v.NoiseAngleDeg >= 0 && v.NoiseAngleDeg < 90) {
		bad("vision noise (%v, %v°) must be ≥ 0 (distance below 1, angle below 90°)", v.NoiseDistance, v.NoiseAngleDeg)
	}
	if !(v.SonarMin >= 0 && v.SonarMax > v.SonarMin) {
		bad("vision.sonar_min %v and sonar_max %v: want 0 ≤ min < max", v.SonarMin, v.SonarMax)
	}
	if v.Source != SourceServer && v.Source != SourceRendered {
		bad("vision.source %d is neither server nor rendered", v.Source)
	}
	if v.Source == SourceRendered {
		if err := v.Render.Validate(); err != nil {
			bad("%w", err)
		}
	}
	if !(v.SonarConeDeg > 0 && v.SonarConeDeg <= 180) {
		bad("vision.sonar_cone_deg %v is outside (0, 180]", v.SonarConeDeg)
	}
	return errors.Join(errs...)
}

// isAtom reports whether s can be sent as one S-expression atom.
func isAtom(s string) bool {
	for i := range len(s) {
		switch c := s[i]; {
		case c <= ' ', c == '(', c == ')', c >= 0x7f:
			return false
		}
	}
	return true
}
