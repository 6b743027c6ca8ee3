package robotino

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/robotd/robotd/backends/pacing"
	"github.com/robotd/robotd/backends/v4l2"

	"github.com/robotd/robotd/config"
	proto "github.com/robotd/robotd/proto/robotino"
)

// Odometry sources (Config.Odometry).
const (
	// OdometryFirmware uses the base's own odometry (ODOMETRY, tag 23),
	// as Fawkes does; it is integrated by the firmware with its own base
	// radius (0.17 m by default, protocols.md §2.5).
	OdometryFirmware = "firmware"
	// OdometryEncoders integrates the encoder positions of
	// ALL_MOTOR_READINGS through the §2.5 model; it needs
	// EncoderTicksPerRev, which no source states for a Robotino 3 (§2.6).
	OdometryEncoders = "encoders"
	// OdometrySpeeds integrates the measured motor speeds (rpm) over the
	// time between replies.
	OdometrySpeeds = "speeds"
)

// Config configures the Robotino backend. DefaultConfig gives the values
// of protocols.md §2 (Fawkes' defaults where §2.4 names them).
type Config struct {
	// Device is the base controller's serial device. Empty means: the
	// USB device with vendor 1e29 and product 040d (§2.1), or else the
	// first match of Glob.
	Device string `json:"device"`
	// Glob, if set, is where to look for the device when Device is empty
	// and no USB device has the Robotino's ids. Off by default: any
	// CDC-ACM device would match /dev/ttyACM*.
	Glob string `json:"glob"`
	// Baud is the line speed (115200, §2.1; probably irrelevant on
	// CDC-ACM).
	Baud int `json:"baud"`
	// Link is the serial link to the base (keys period, read_timeout,
	// dead_timeout, handshake_timeout, backoff_min, backoff_max; see
	// linkSpec):
	//   - Period is the tick: each tick sends the motor set-points and the
	//     sensor requests and waits for the reply (Fawkes polls every 5 ms
	//     and updates the drive every 20 ms).
	//   - ReadTimeout is how long a reply may take before the backend stops
	//     the motors, asks again and ticks on without it (Connected false);
	//     Fawkes' read-timeout.
	//   - DeadTimeout is how long the base may stay silent before the port
	//     is closed and opened again (Fawkes' no-data-timeout).
	//   - HandshakeTimeout bounds the start-up exchange (the version
	//     strings).
	//   - BackoffMin and BackoffMax bound the wait between attempts to open
	//     the port; it doubles after each failure.
	pacing.Link
	// CriticalErrors consecutive framing errors make the backend open the
	// port anew (Fawkes' critical-bound).
	CriticalErrors int `json:"critical_errors"`

	// DeadmanTime stops the motors when no velocity was commanded for this
	// long (Fawkes: 0.5 s); the base itself keeps its last set-points.
	DeadmanTime config.Duration `json:"deadman_time"`
	// MaxSpeed (m/s, of vx and vy together) and MaxOmega (rad/s) limit
	// the commanded body velocity; MaxMotorRPM limits every motor, by
	// scaling all three alike so the direction is kept (Fawkes: 3000).
	MaxSpeed    float64 `json:"max_speed"`
	MaxOmega    float64 `json:"max_omega"`
	MaxMotorRPM float64 `json:"max_motor_rpm"`
	// WheelRadius, GearRatio and BaseRadius are the omni drive (§2.5:
	// 0.060 m, 32, 0.175 m for a Robotino 3).
	WheelRadius float64 `json:"wheel_radius"`
	GearRatio   float64 `json:"gear_ratio"`
	BaseRadius  float64 `json:"base_radius"`
	// AccelLimit is sent as SET_MOTOR_ACCEL_LIMITS (−AccelLimit,
	// +AccelLimit) for the drive motors at start-up; unit [U], Fawkes
	// sends 11500. 0 sends nothing.
	AccelLimit float64 `json:"accel_limit"`
	// EmergencyBumper makes the base stop the motors by itself when the
	// bumper is hit (SET_EMERGENCY_BUMPER; Fawkes: on). The backend stops
	// them as well.
	EmergencyBumper bool `json:"emergency_bumper"`

	// Odometry is "firmware" (default), "encoders" or "speeds".
	Odometry string `json:"odometry"`
	// EncoderTicksPerRev is the encoder ticks per motor revolution for
	// "encoders" (unknown for a Robotino 3, §2.6: measure it).
	EncoderTicksPerRev float64 `json:"encoder_ticks_per_rev"`
	// Gyro requests GET_GYRO_Z_ANGLE every tick (firmware 1.x answers,
	// 2.x ignores it, §2.3); GyroScale converts its rate to rad/s
	// counter-clockwise ([U]: presumably rad/s already, so 1).
	Gyro      bool    `json:"gyro"`
	GyroScale float64 `json:"gyro_scale"`
	// BatteryEmpty and BatteryFull (V) map the battery voltage to a charge
	// 0..1, as Fawkes guesses it ((V − 22)/2.5).
	BatteryEmpty float64 `json:"battery_empty"`
	BatteryFull  float64 `json:"battery_full"`

	// GPIO configures the emergency-stop input and the status LED.
	GPIO GPIOConfig `json:"gpio"`
	// Camera is the capture of a USB (UVC) camera on the robot, through
	// the same code as the NAO's (package v4l2); device "" (the default)
	// means none.
	Camera v4l2.Config `json:"camera"`
}

// GPIOConfig configures GPIO through the Linux GPIO character device
// (periph.io's gpioioctl). With no line set, GPIO is off and no chip is
// needed; with a line set, a missing chip is a start-up error.
type GPIOConfig struct {
	// Chip is the GPIO chip: its name (gpiochip0), path (/dev/gpiochip0)
	// or label.
	Chip string `json:"chip"`
	// EStopLine is the emergency-stop input: a line name or offset. While
	// it is active the motors are stopped; after it is released they stay
	// stopped until a zero velocity is commanded.
	EStopLine string `json:"estop_line"`
	// EStopActiveLow makes a low level the active (stop) one. The default
	// is active high with a pull-up, for a normally-closed contact to
	// ground: pressing it, or a broken wire, reads high and stops.
	EStopActiveLow bool `json:"estop_active_low"`
	// LEDLine is the status LED output: a line name or offset. It shows
	// the chest colour the modules write (hal.LEDs.Chest, on when any
	// component is at least 0.5) or, until they write one, whether the
	// base is connected and free to move.
	LEDLine string `json:"led_line"`
	// LEDActiveLow drives the LED with a low level.
	LEDActiveLow bool `json:"led_active_low"`
}

// Configured reports whether any GPIO line is set.
func (g GPIOConfig) Configured() bool { return g.EStopLine != "" || g.LEDLine != "" }

// DefaultConfig returns the defaults.
func DefaultConfig() Config {
	return Config{
		Baud: proto.BaudRate,
		Link: pacing.Link{
			Period:           config.Duration(10 * time.Millisecond),
			ReadTimeout:      config.Duration(200 * time.Millisecond),
			DeadTimeout:      config.Duration(2 * time.Second),
			HandshakeTimeout: config.Duration(time.Second),
			BackoffMin:       config.Duration(100 * time.Millisecond),
			BackoffMax:       config.Duration(2 * time.Second),
		},
		CriticalErrors:  25,
		DeadmanTime:     config.Duration(500 * time.Millisecond),
		MaxSpeed:        0.5,
		MaxOmega:        2,
		MaxMotorRPM:     3000,
		WheelRadius:     0.060,
		GearRatio:       32,
		BaseRadius:      0.175,
		AccelLimit:      proto.DefaultAccelLimit,
		EmergencyBumper: true,
		Odometry:        OdometryFirmware,
		Gyro:            true,
		GyroScale:       1,
		BatteryEmpty:    22,
		BatteryFull:     24.5,
		Camera:          v4l2.DefaultConfig(""),
	}
}

// linkSpec is the Robotino backend's link: with handshake_timeout (at most
// a minute: it bounds one version exchange). Its read_timeout, counted
// from each request, may be shorter than a period.
var linkSpec = pacing.Spec{Name: "robotino", Handshake: true, MaxHandshake: pacing.MaxTimeout}

// driveParams returns the §2.5 parameters.
func (c *Config) driveParams() proto.DriveParams {
	p := proto.Robotino3()
	p.WheelRadius, p.GearRatio, p.BaseRadius, p.MaxMotorRPM = c.WheelRadius, c.GearRatio, c.BaseRadius, c.MaxMotorRPM
	return p
}

// Rules returns the allowed values and the documentation of every
// setting, keyed within the Robotino's section: its own, the link's
// (pacing.Link) and the camera's (v4l2.Config).
func (c Config) Rules() config.Rules {
	r := c.ownRules().Add("", c.Link.Rules(linkSpec))
	r["read_timeout"] = r["read_timeout"].Doc("", "how long a reply may take before the motors are stopped and the tick goes on without it (Connected false)")
	r["handshake_timeout"] = r["handshake_timeout"].Doc("", "bounds the start-up exchange of version strings")
	return r.Add("camera", c.Camera.Rules())
}

// ownRules are the rules of the settings of Config's own fields.
func (c Config) ownRules() config.Rules {
	return config.Rules{
		"device":                config.Text(0, 4096).Doc("path", "the base controller's serial device; empty: the USB device with the Robotino's ids, else glob's first match"),
		"glob":                  config.Text(0, 4096).Doc("path", "a file pattern for the serial device, used when device is empty and no USB device has the Robotino's ids"),
		"baud":                  config.Int(50, 4_000_000).Doc("bit/s", "the serial line speed (115200; probably irrelevant on CDC-ACM)"),
		"critical_errors":       config.Int(1, 1_000_000).Doc("", "how many framing errors in a row make the backend open the port anew"),
		"deadman_time":          config.Durations(time.Millisecond, time.Minute).Doc("", "stops the motors when no velocity was commanded for this long"),
		"max_speed":             config.Between(0, 5, true, false).Doc("m/s", "the largest commanded translation speed (vx and vy together)"),
		"max_omega":             config.Between(0, 20, true, false).Doc("rad/s", "the largest commanded turn rate"),
		"max_motor_rpm":         config.Between(0, math.MaxInt16, true, false).Doc("rpm", "the largest motor speed (an int16 set-point); all three motors are scaled alike so the direction is kept"),
		"wheel_radius":          config.Range(0.001, 1).Doc("m", "the omni wheels' radius (0.060 on a Robotino 3)"),
		"gear_ratio":            config.Range(0.01, 10_000).Doc("", "motor revolutions per wheel revolution (32 on a Robotino 3)"),
		"base_radius":           config.Range(0.01, 5).Doc("m", "the distance from the base's centre to each wheel (0.175 on a Robotino 3)"),
		"accel_limit":           config.Range(0, 1e6).Doc("firmware unit (unconfirmed)", "the drive motors' acceleration limit, sent at start-up (SET_MOTOR_ACCEL_LIMITS; 0: none sent)"),
		"emergency_bumper":      config.Bool().Doc("", "makes the base stop its motors by itself when the bumper is hit"),
		"odometry":              config.OneOf(OdometryFirmware, OdometryEncoders, OdometrySpeeds).Doc("", "where odometry comes from: the firmware's, the encoder positions, or the measured motor speeds"),
		"encoder_ticks_per_rev": config.Range(0, 1e7).Doc("", "encoder ticks per motor revolution, for odometry \"encoders\" (unknown for a Robotino 3: measure it)"),
		"gyro":                  config.Bool().Doc("", "asks for the gyroscope's z rate every tick (firmware 1.x answers, 2.x does not)"),
		"gyro_scale":            config.Range(-1e3, 1e3).Doc("", "the factor from the gyroscope's reading to rad/s counter-clockwise (unconfirmed: presumably 1)"),
		"battery_empty":         config.Range(0, 100).Doc("V", "the battery voltage reported as charge 0"),
		"battery_full":          config.Range(0, 100).Doc("V", "the battery voltage reported as charge 1"),
		"gpio.chip":             config.Text(0, 4096).Doc("", "the GPIO chip: its name (gpiochip0), path (/dev/gpiochip0) or label"),
		"gpio.estop_line":       config.Text(0, 64).Doc("", "the emergency-stop input line: a line name or offset (empty: none)"),
		"gpio.estop_active_low": config.Bool().Doc("", "a low level on the emergency-stop line means stop (default: high)"),
		"gpio.led_line":         config.Text(0, 64).Doc("", "the status LED's output line: a line name or offset (empty: none)"),
		"gpio.led_active_low":   config.Bool().Doc("", "lights the status LED with a low level"),
	}
}

// Validate checks c against Rules and what relates its settings; every
// error names its JSON key.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("robotino: "+format, args...)) }
	if err := config.CheckSection("robotino", c, c.ownRules()); err != nil {
		errs = append(errs, err)
	}
	if err := c.Link.Validate(linkSpec); err != nil {
		errs = append(errs, err)
	}
	if c.Odometry == OdometryEncoders && !(c.EncoderTicksPerRev > 0) {
		bad("odometry %q needs encoder_ticks_per_rev (unknown for a Robotino 3, protocols.md §2.6: measure it)", c.Odometry)
	}
	if !(c.BatteryFull > c.BatteryEmpty) {
		bad("battery_full %v must exceed battery_empty %v", c.BatteryFull, c.BatteryEmpty)
	}
	if c.GPIO.Configured() && c.GPIO.Chip == "" {
		bad("gpio.chip is empty, but gpio lines are configured")
	}
	if _, err := proto.NewKinematics(c.driveParams()); err != nil {
		bad("%w", err)
	}
	if err := c.Camera.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("robotino: camera: %w", err))
	}
	return errors.Join(errs...)
}
