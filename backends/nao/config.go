package nao

import (
	"errors"
	"fmt"
	"time"

	"github.com/robotd/robotd/backends/pacing"
	"github.com/robotd/robotd/backends/v4l2"
	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/proto/lola"
)

// Battery index orders (protocols.md §1.3, [U]); see Config.BatteryOrder.
const (
	BatteryStatusCurrent = "status-current"
	BatteryCurrentStatus = "current-status"
)

// Config configures the NAO backend. DefaultConfig gives the values for a
// NAO v6 running LoLA; the settings marked [U] are points protocols.md does
// not settle, each defaulting to the reading most sources share.
type Config struct {
	// Socket is LoLA's Unix socket (protocols.md §1.1).
	Socket string `json:"socket"`
	// Link is LoLA's link (keys period, read_timeout, dead_timeout,
	// write_timeout, backoff_min, backoff_max; see linkSpec):
	//   - Period is LoLA's nominal cycle (12 ms). Ticks come with the
	//     sensor packets; Period paces them only while LoLA is unreachable.
	//   - ReadTimeout is how long Next waits for a sensor packet before it
	//     counts LoLA as lost: it then sends stiffness 0 once (in case LoLA
	//     reads it when it comes back) and ticks on without it (Connected
	//     false).
	//   - DeadTimeout is how long LoLA may stay silent, also before the
	//     first packet of a connection, before the connection is closed and
	//     a new one made.
	//   - WriteTimeout bounds one write of an actuator map.
	//   - BackoffMin and BackoffMax bound the wait between connection
	//     attempts; it doubles after each failure.
	pacing.Link
	// StiffnessRamp limits the stiffness sent after every (re)connection
	// to elapsed/StiffnessRamp (so the first map after a connection has
	// stiffness 0): a robot found in another pose does not snap to the
	// targets. 0 turns the ramp off.
	StiffnessRamp config.Duration `json:"stiffness_ramp"`
	// ChestPresses presses of the chest button within ChestWindow make the
	// robot limp: stiffness 0 in every map from then on (the common SPL
	// convention is three). 0 turns the gesture off.
	ChestPresses int             `json:"chest_presses"`
	ChestWindow  config.Duration `json:"chest_window"`
	// ChestRelease lets the same gesture end the limp state again. Off by
	// default: a limp robot stays limp until robotd restarts.
	ChestRelease bool `json:"chest_release"`
	// SafeConfirm is how many sensor packets SafeState waits (at most, and
	// within its context) for LoLA to report every joint's stiffness at
	// 0, answering each with stiffness 0.
	SafeConfirm int `json:"safe_confirm"`
	// Sonar enables both sonars in every actuator map.
	Sonar bool `json:"sonar"`
	// SonarMaxRange is the echo distance (m) at or beyond which a sonar
	// reading counts as "no echo" ([U]: LoLA's unit is presumably m).
	SonarMaxRange float64 `json:"sonar_max_range"`
	// BatteryOrder is how indices 1 and 2 of LoLA's Battery array are read
	// ([U], protocols.md §1.3): "status-current" (B-Human, HULKs, Nao
	// Devils, rUNSWift's enum, NaoTH and the real-robot samples; default)
	// or "current-status" (nao_lola, nidhogg, SoftBank's documentation).
	BatteryOrder string `json:"battery_order"`
	// ChargingMask and ChargingWhenSet say how the battery status word
	// tells charging ([U], §1.3): B-Human tests (int16)status & 0x80 set
	// (the default); Nao Devils tests 0x20 clear.
	ChargingMask    uint16 `json:"charging_mask"`
	ChargingWhenSet bool   `json:"charging_when_set"`
	// InvertGyroZ negates LoLA's gyroscope z ([U], §1.2). B-Human, NaoTH and
	// rcss3d_nao use it unchanged (a left turn positive, as hal.IMU wants),
	// the Webots emulator and rUNSWift's SimSpark adapter negate it; the
	// default follows the majority. Check on a robot by turning it left.
	InvertGyroZ bool `json:"invert_gyro_z"`
	// MaxPacket bounds one sensor map in bytes (896 on a robot; an emulator
	// that sends float64 needs more). A longer one means a corrupt stream,
	// and the connection is made anew.
	MaxPacket int `json:"max_packet"`
	// Cameras configures the two cameras' capture (device "" turns one
	// off).
	Cameras Cameras `json:"cameras"`
}

// Cameras is the capture of the NAO v6's cameras: two OV5640 sensors
// behind uvcvideo, whose device nodes the NAO's udev rules name
// /dev/video-top and /dev/video-bottom. The top sensor is mounted upside
// down and is flipped through its UVC extension unit.
type Cameras struct {
	Top    v4l2.Config `json:"top"`
	Bottom v4l2.Config `json:"bottom"`
}

// DefaultCameras returns both cameras at 640 × 480, 30 fps.
func DefaultCameras() Cameras {
	c := Cameras{Top: v4l2.DefaultConfig("/dev/video-top"), Bottom: v4l2.DefaultConfig("/dev/video-bottom")}
	c.Top.Flip = v4l2.FlipXU
	return c
}

// configs returns the cameras' configurations in hal.CameraID order.
func (c Cameras) configs() [hal.NumCameras]v4l2.Config {
	return [hal.NumCameras]v4l2.Config{hal.CameraTop: c.Top, hal.CameraBottom: c.Bottom}
}

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		Socket: "/tmp/robocup",
		Link: pacing.Link{
			Period:       config.Duration(12 * time.Millisecond),
			ReadTimeout:  config.Duration(100 * time.Millisecond),
			DeadTimeout:  config.Duration(2 * time.Second),
			WriteTimeout: config.Duration(50 * time.Millisecond),
			BackoffMin:   config.Duration(50 * time.Millisecond),
			BackoffMax:   config.Duration(2 * time.Second),
		},
		StiffnessRamp: config.Duration(time.Second),
		ChestPresses:  3,
		ChestWindow:   config.Duration(1500 * time.Millisecond),
		SafeConfirm:   10,
		Sonar:         true,
		SonarMaxRange: 5,
		BatteryOrder:  BatteryStatusCurrent,
		ChargingMask:  0x80, ChargingWhenSet: true,
		MaxPacket: 4096,
		Cameras:   DefaultCameras(),
	}
}

// linkSpec is the NAO backend's link: with write_timeout, and a read_timeout
// of at least one period.
var linkSpec = pacing.Spec{Name: "nao", Write: true, ReadCoversPeriod: true}

// batteryOrder returns the lola package's value for BatteryOrder.
func (c *Config) batteryOrder() lola.BatteryOrder {
	if c.BatteryOrder == BatteryCurrentStatus {
		return lola.BatteryCurrentStatus
	}
	return lola.BatteryStatusCurrent
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within the NAO's section: its own, the link's
// (pacing.Link) and the cameras' (v4l2.Config).
func (c Config) Rules() config.Rules {
	r := c.ownRules().Add("", c.Link.Rules(linkSpec))
	r.Add("cameras.top", c.Cameras.Top.Rules())
	return r.Add("cameras.bottom", c.Cameras.Bottom.Rules())
}

// ownRules are the rules of the settings of Config's own fields.
func (c Config) ownRules() config.Rules {
	return config.Rules{
		"socket":            config.Text(1, 4096).Doc("path", "LoLA's Unix socket"),
		"stiffness_ramp":    config.Durations(0, time.Minute).Doc("", "how long the stiffness takes to rise from 0 to the commanded one after every (re)connection (0: no ramp)"),
		"chest_presses":     config.Int(0, 10).Doc("", "how many chest-button presses within chest_window make the robot limp (0: never)"),
		"chest_window":      config.Durations(0, time.Minute).Doc("", "the time within which chest_presses presses make the robot limp"),
		"chest_release":     config.Bool().Doc("", "lets the same chest-button gesture end the limp state again"),
		"safe_confirm":      config.Int(0, 10_000).Doc("", "how many sensor packets the safe state waits at most for LoLA to report every joint's stiffness at 0"),
		"sonar":             config.Bool().Doc("", "turns both sonars on"),
		"sonar_max_range":   config.Between(0, 10, true, false).Doc("m", "the echo distance at or beyond which a sonar reading counts as no echo"),
		"battery_order":     config.OneOf(BatteryStatusCurrent, BatteryCurrentStatus).Doc("", "the order of status and current at indices 1 and 2 of LoLA's Battery array (unconfirmed, protocols.md §1.3)"),
		"charging_mask":     config.Int(0, 65535).Doc("", "the bits of the battery status word that tell charging (unconfirmed, protocols.md §1.3)"),
		"charging_when_set": config.Bool().Doc("", "the battery charges when charging_mask's bits are set; false: when they are clear"),
		"invert_gyro_z":     config.Bool().Doc("", "negates LoLA's gyroscope z rate (unconfirmed, protocols.md §1.2)"),
		"max_packet":        config.Int(lola.SensorPacketSize, 1<<20).Doc("bytes", "the largest sensor map accepted (896 on a robot); a longer one reconnects"),
	}
}

// Validate checks c against Rules and what relates its settings; every
// error names its JSON key.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("nao: "+format, args...)) }
	if err := config.CheckSection("nao", c, c.ownRules()); err != nil {
		errs = append(errs, err)
	}
	if err := c.Link.Validate(linkSpec); err != nil {
		errs = append(errs, err)
	}
	if c.ChestPresses > 0 && c.ChestWindow.D() <= 0 {
		bad("chest_window %v must be positive", c.ChestWindow.D())
	}
	if err := c.Cameras.Top.Validate(); err != nil {
		bad("cameras.top: %w", err)
	}
	if err := c.Cameras.Bottom.Validate(); err != nil {
		bad("cameras.bottom: %w", err)
	}
	return errors.Join(errs...)
}
