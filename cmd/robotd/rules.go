package main

import (
	"time"

	"github.com/robotd/robotd/backends/v4l2"
	"github.com/robotd/robotd/config"
)

// The rules of the sections whose types live outside the packages that
// compose robotd's rules (real: backends/real, backends/nao,
// backends/robotino; sim: backends/sim; record; camera), by key within
// their section. Config.Rules composes them with the modules' (see
// robot.Config.Rules).

// realRules are the rules of the robot build's backends (real.Config).
func realRules() config.Rules {
	r := config.Rules{
		"kind":                           config.OneOf("auto", "nao", "robotino").Doc("", "Kind selects the robot; \"auto\" probes for it (see Detect)"),
		"nao.socket":                     config.Text(1, 4096).Doc("path", "LoLA's Unix socket (protocols.md §1.1)"),
		"nao.period":                     config.Durations(time.Millisecond, time.Second).Doc("", "LoLA's nominal cycle (12 ms)"),
		"nao.read_timeout":               config.Durations(time.Millisecond, time.Minute).Doc("", "how long Next waits for a sensor packet before it counts LoLA as lost: it then sends stiffness 0 once (in case LoLA reads it when it comes back) and ticks on without it (Connected false)"),
		"nao.dead_timeout":               config.Durations(time.Millisecond, time.Hour).Doc("", "how long LoLA may stay silent before the connection is closed and a new one made"),
		"nao.write_timeout":              config.Durations(time.Millisecond, time.Minute).Doc("", "bounds one write of an actuator map"),
		"nao.backoff_min":                config.Durations(time.Millisecond, time.Hour).Doc("", "BackoffMin and BackoffMax bound the wait between connection attempts; it doubles after each failure"),
		"nao.backoff_max":                config.Durations(time.Millisecond, time.Hour).Doc("", "BackoffMin and BackoffMax bound the wait between connection attempts; it doubles after each failure"),
		"nao.stiffness_ramp":             config.Durations(0, time.Minute).Doc("", "StiffnessRamp limits the stiffness sent after every (re)connection to elapsed/StiffnessRamp (so the first map after a connection has stiffness 0): a robot found in another pose does not snap to the targets"),
		"nao.chest_presses":              config.Int(0, 10).Doc("", "ChestPresses presses of the chest button within ChestWindow make the robot limp: stiffness 0 in every map from then on (the common SPL convention is three)"),
		"nao.chest_window":               config.Durations(0, time.Minute).Doc("", "ChestPresses presses of the chest button within ChestWindow make the robot limp: stiffness 0 in every map from then on (the common SPL convention is three)"),
		"nao.chest_release":              config.Bool().Doc("", "ChestRelease lets the same gesture end the limp state again"),
		"nao.safe_confirm":               config.Int(0, 10_000).Doc("", "how many sensor packets SafeState waits (at most, and within its context) for LoLA to report every joint's stiffness at 0, answering each with stiffness 0"),
		"nao.sonar":                      config.Bool().Doc("", "enables both sonars in every actuator map"),
		"nao.sonar_max_range":            config.Range(0, 10).Doc("m", "the echo distance (m) at or beyond which a sonar reading counts as \"no echo\" ([U]: LoLA's unit is presumably m)"),
		"nao.battery_order":              config.OneOf("status-current", "current-status").Doc("", "how indices 1 and 2 of LoLA's Battery array are read ([U], protocols.md §1.3): \"status-current\" (B-Human, HULKs, Nao Devils, rUNSWift's enum, NaoTH and the real-robot samples; default) or \"current-status\" (nao_lola, nidhogg, SoftBank's documentation)"),
		"nao.charging_mask":              config.Int(0, 65535).Doc("", "ChargingMask and ChargingWhenSet say how the battery status word tells charging ([U], §1.3): B-Human tests (int16)status & 0x80 set (the default); Nao Devils tests 0x20 clear"),
		"nao.charging_when_set":          config.Bool().Doc("", "ChargingMask and ChargingWhenSet say how the battery status word tells charging ([U], §1.3): B-Human tests (int16)status & 0x80 set (the default); Nao Devils tests 0x20 clear"),
		"nao.invert_gyro_z":              config.Bool().Doc("", "InvertGyroZ negates LoLA's gyroscope z ([U], §1.2)"),
		"nao.max_packet":                 config.Int(1, 1<<20).Doc("bytes", "bounds one sensor map in bytes (896 on a robot; an emulator that sends float64 needs more)"),
		"robotino.device":                config.Text(0, 4096).Doc("path", "the base controller's serial device"),
		"robotino.glob":                  config.Text(0, 4096).Doc("path", "Glob, if set, is where to look for the device when Device is empty and no USB device has the Robotino's ids"),
		"robotino.baud":                  config.Int(50, 4_000_000).Doc("bit/s", "the line speed (115200, §2.1; probably irrelevant on CDC-ACM)"),
		"robotino.period":                config.Durations(time.Millisecond, time.Second).Doc("", "the tick: each tick sends the motor set-points and the sensor requests and waits for the reply (Fawkes polls every 5 ms and updates the drive every 20 ms)"),
		"robotino.read_timeout":          config.Durations(time.Millisecond, time.Minute).Doc("", "how long a reply may take before the backend stops the motors, asks again and ticks on without it (Connected false); Fawkes' read-timeout"),
		"robotino.dead_timeout":          config.Durations(time.Millisecond, time.Hour).Doc("", "how long the base may stay silent before the port is closed and opened again (Fawkes' no-data-timeout)"),
		"robotino.handshake_timeout":     config.Durations(time.Millisecond, time.Minute).Doc("", "bounds the start-up exchange (the version strings)"),
		"robotino.backoff_min":           config.Durations(time.Millisecond, time.Hour).Doc("", "BackoffMin and BackoffMax bound the wait between attempts to open the port; it doubles after each failure"),
		"robotino.backoff_max":           config.Durations(time.Millisecond, time.Hour).Doc("", "BackoffMin and BackoffMax bound the wait between attempts to open the port; it doubles after each failure"),
		"robotino.critical_errors":       config.Int(1, 1_000_000).Doc("", "CriticalErrors consecutive framing errors make the backend open the port anew (Fawkes' critical-bound)"),
		"robotino.deadman_time":          config.Durations(0, time.Minute).Doc("", "DeadmanTime stops the motors when no velocity was commanded for this long (Fawkes: 0.5 s); the base itself keeps its last set-points"),
		"robotino.max_speed":             config.Range(0, 5).Doc("m/s", "MaxSpeed (m/s, of vx and vy together) and MaxOmega (rad/s) limit the commanded body velocity; MaxMotorRPM limits every motor, by scaling all three alike so the direction is kept (Fawkes: 3000)"),
		"robotino.max_omega":             config.Range(0, 20).Doc("rad/s", "MaxSpeed (m/s, of vx and vy together) and MaxOmega (rad/s) limit the commanded body velocity; MaxMotorRPM limits every motor, by scaling all three alike so the direction is kept (Fawkes: 3000)"),
		"robotino.max_motor_rpm":         config.Range(0, 100_000).Doc("rpm", "MaxSpeed (m/s, of vx and vy together) and MaxOmega (rad/s) limit the commanded body velocity; MaxMotorRPM limits every motor, by scaling all three alike so the direction is kept (Fawkes: 3000)"),
		"robotino.wheel_radius":          config.Range(0.001, 1).Doc("m", "the omni drive (§2.5: 0.060 m, 32, 0.175 m for a Robotino 3)"),
		"robotino.gear_ratio":            config.Range(0.01, 10_000).Doc("", "the omni drive (§2.5: 0.060 m, 32, 0.175 m for a Robotino 3)"),
		"robotino.base_radius":           config.Range(0.01, 5).Doc("m", "the omni drive (§2.5: 0.060 m, 32, 0.175 m for a Robotino 3)"),
		"robotino.accel_limit":           config.Range(0, 1e6).Doc("firmware unit (unconfirmed)", "sent as SET_MOTOR_ACCEL_LIMITS (−AccelLimit, +AccelLimit) for the drive motors at start-up; unit [U], Fawkes sends 11500"),
		"robotino.emergency_bumper":      config.Bool().Doc("", "makes the base stop the motors by itself when the bumper is hit (SET_EMERGENCY_BUMPER; Fawkes: on)"),
		"robotino.odometry":              config.OneOf("firmware", "encoders", "speeds").Doc("", "\"firmware\" (default), \"encoders\" or \"speeds\""),
		"robotino.encoder_ticks_per_rev": config.Range(0, 1e7).Doc("", "the encoder ticks per motor revolution for \"encoders\" (unknown for a Robotino 3, §2.6: measure it)"),
		"robotino.gyro":                  config.Bool().Doc("", "Gyro requests GET_GYRO_Z_ANGLE every tick (firmware 1.x answers, 2.x ignores it, §2.3); GyroScale converts its rate to rad/s counter-clockwise ([U]: presumably rad/s already, so 1)"),
		"robotino.gyro_scale":            config.Range(-1e3, 1e3).Doc("", "Gyro requests GET_GYRO_Z_ANGLE every tick (firmware 1.x answers, 2.x ignores it, §2.3); GyroScale converts its rate to rad/s counter-clockwise ([U]: presumably rad/s already, so 1)"),
		"robotino.battery_empty":         config.Range(0, 100).Doc("V", "BatteryEmpty and BatteryFull (V) map the battery voltage to a charge 0..1, as Fawkes guesses it ((V − 22)/2.5)"),
		"robotino.battery_full":          config.Range(0, 100).Doc("V", "BatteryEmpty and BatteryFull (V) map the battery voltage to a charge 0..1, as Fawkes guesses it ((V − 22)/2.5)"),
		"robotino.gpio.chip":             config.Text(0, 4096).Doc("path", "the GPIO chip: its name (gpiochip0), path (/dev/gpiochip0) or label"),
		"robotino.gpio.estop_line":       config.Text(0, 64).Doc("", "the emergency-stop input: a line name or offset"),
		"robotino.gpio.estop_active_low": config.Bool().Doc("", "makes a low level the active (stop) one"),
		"robotino.gpio.led_line":         config.Text(0, 64).Doc("", "the status LED output: a line name or offset"),
		"robotino.gpio.led_active_low":   config.Bool().Doc("", "LEDActiveLow drives the LED with a low level"),
	}
	r.Add("nao.cameras.top", cameraRules())
	r.Add("nao.cameras.bottom", cameraRules())
	r.Add("robotino.camera", cameraRules())
	return r
}

// simRules are the rules of the SimSpark backend (sim.Config).
func simRules() config.Rules {
	return config.Rules{
		"host":                             config.Host().Doc("", "the server's agent port"),
		"port":                             config.Port(false).Doc("", "the server's agent port"),
		"scene":                            config.Text(1, 4096).Doc("path", "the robot model sent in (scene …)"),
		"beam.x":                           config.Range(-20, 20).Doc("m", "the robot's beam (start) position x on the field"),
		"beam.y":                           config.Range(-20, 20).Doc("m", "the robot's beam (start) position y on the field"),
		"beam.deg":                         config.Range(-360, 360).Doc("°", "the robot's beam (start) heading"),
		"sync":                             config.Bool().Doc("", "Sync ends every reply with (syn), for a server in sync mode (SPARK_FAST_TIME=true), which waits for it every cycle"),
		"period":                           config.Durations(time.Millisecond, time.Second).Doc("", "the nominal cycle (10 ms on the SPL fork)"),
		"dial_timeout":                     config.Durations(time.Millisecond, time.Minute).Doc("", "bounds one connection attempt"),
		"read_timeout":                     config.Durations(time.Millisecond, time.Minute).Doc("", "how long Next waits for a message from a running server before it ticks on without it (Connected false, paced at Period): a few cycles, as the real server stalls for about 40 ms now and then"),
		"dead_timeout":                     config.Durations(time.Millisecond, time.Hour).Doc("", "how long a running server may stay silent before the connection is closed and a new one made (with scene, init and beam again)"),
		"handshake_timeout":                config.Durations(time.Millisecond, time.Hour).Doc("", "how long a new connection may stay silent before the first message (a sync-mode server took 2 s)"),
		"backoff_min":                      config.Durations(time.Millisecond, time.Hour).Doc("", "BackoffMin and BackoffMax bound the wait between connection attempts; it doubles after each failure"),
		"backoff_max":                      config.Durations(time.Millisecond, time.Hour).Doc("", "BackoffMin and BackoffMax bound the wait between connection attempts; it doubles after each failure"),
		"angle_filter_tau":                 config.Durations(0, time.Minute).Doc("", "the complementary filter's time constant: the accelerometer corrects the gyro-integrated tilt with this time constant (weight dt/(tau+dt) per cycle)"),
		"vision.fov_deg":                   config.Range(1, 180).Doc("°", "the real camera's horizontal field of view: observations further than FOVDeg/2 from the camera axis are dropped (the server sees 120°)"),
		"vision.reliable_ball_distance":    config.Range(0, 100).Doc("m", "ReliableBallDistance drops balls farther than this from the feet (m)"),
		"vision.noise_distance":            config.Range(0, 10).Doc("fraction of distance", "the standard deviation of added distance noise as a fraction of the distance, NoiseAngleDeg that of added angle noise"),
		"vision.noise_angle_deg":           config.Range(0, 180).Doc("°", "the standard deviation of added distance noise as a fraction of the distance, NoiseAngleDeg that of added angle noise"),
		"vision.seed":                      config.Uint().Doc("", "Seed seeds the added noise"),
		"vision.sonar_min":                 config.Range(0, 10).Doc("m", "SonarMin and SonarMax bound the derived sonar echoes (m); SonarConeDeg is the full width of the cone ahead of the chest that they cover"),
		"vision.sonar_max":                 config.Range(0, 10).Doc("m", "SonarMin and SonarMax bound the derived sonar echoes (m); SonarConeDeg is the full width of the cone ahead of the chest that they cover"),
		"vision.sonar_cone_deg":            config.Range(0, 180).Doc("°", "SonarMin and SonarMax bound the derived sonar echoes (m); SonarConeDeg is the full width of the cone ahead of the chest that they cover"),
		"vision.source":                    config.OneOf("server", "rendered").Doc("", "where the robot's vision comes from: \"server\" (the server's detected observations, hal.Vision) or \"rendered\" (camera images rendered from the scene the server reports, hal.CameraSensor, for robotd's own vision pipeline)"),
		"vision.render.bottom_width":       config.Int(320, 640).Doc("px", "the bottom camera's image width: 320 (320 × 240) or 640 (640 × 480)"),
		"vision.render.every":              config.Int(1, 30).Doc("", "Every renders the cameras on every Every-th See block: 1 at the server's vision rate (every third 10 ms cycle: 33 Hz, about the NAO v6's 30 fps), more to save CPU time in long experiments"),
		"vision.render.options.brightness": config.Range(0.1, 4).Doc("", "Brightness scales every colour (1: nominal; 0.4..1.6 is a dim to a bright hall)"),
		"vision.render.options.colour_temperature": config.Range(2500, 12000).Doc("K", "the light's colour temperature in kelvin (6500: neutral white balance; lower is warmer, higher bluer), 2500..12000"),
		"vision.render.options.noise":              config.Range(0, 64).Doc("", "the sensor noise's standard deviation in Y (0..255 scale); chroma gets half of it"),
		"vision.render.options.carpet_texture":     config.Range(0, 1).Doc("fraction", "the carpet's brightness variation (0..1; 0.08 by default in DefaultOptions)"),
		"vision.render.options.yaw_rate":           config.Range(-50, 50).Doc("rad/s", "the camera's rotation rates (rad/s, about its z and y axes) during the exposure, which blur the image"),
		"vision.render.options.pitch_rate":         config.Range(-50, 50).Doc("rad/s", "the camera's rotation rates (rad/s, about its z and y axes) during the exposure, which blur the image"),
		"vision.render.options.exposure":           config.Range(0, 0.1).Doc("s", "the exposure time (s) for the motion blur"),
		"vision.render.options.seed":               config.Uint().Doc("", "Seed seeds the noise; a frame's draws also depend on Frame.Seq"),
	}
}

// recordRules are the rules of the recording (RecordConfig).
func recordRules() config.Rules {
	return config.Rules{
		"enabled":         config.Bool().Doc("", "writes a recording of the run"),
		"dir":             config.Text(1, 4096).Doc("path", "the directory the recordings go to"),
		"prefix":          config.Text(1, 64).Doc("", "the recording files' name prefix"),
		"segment_bytes":   config.Int(1, 1<<40).Doc("bytes", "starts a new file after this many bytes"),
		"max_total_bytes": config.Int(1, 1<<50).Doc("bytes", "deletes the oldest files beyond this many bytes in all"),
		"flush_interval":  config.Durations(time.Millisecond, time.Hour).Doc("", "how often buffered records are written out"),
		"queue":           config.Int(1, 1_000_000).Doc("", "how many records wait to be written before the newest are dropped"),
		"level":           config.Int(-2, 9).Doc("", "the compression level (-2 … 9)"),
		"fsync":           config.Bool().Doc("", "syncs every file to disk as it is flushed"),
	}
}

// calibrationRules are the rules of the cameras' calibration
// (CameraConfig).
func calibrationRules() config.Rules {
	return config.Rules{
		"top.roll":        config.Range(-0.2, 0.2).Doc("rad", "the top camera's roll calibration offset"),
		"top.pitch":       config.Range(-0.2, 0.2).Doc("rad", "the top camera's pitch calibration offset"),
		"top.yaw":         config.Range(-0.2, 0.2).Doc("rad", "the top camera's yaw calibration offset"),
		"top.focal_x":     config.Range(0, 10_000).Doc("px", "the top camera's focal length along x (0: nominal)"),
		"top.focal_y":     config.Range(0, 10_000).Doc("px", "the top camera's focal length along y (0: nominal)"),
		"top.centre_x":    config.Range(0, 10_000).Doc("px", "the top camera's optical centre along x (0: nominal)"),
		"top.centre_y":    config.Range(0, 10_000).Doc("px", "the top camera's optical centre along y (0: nominal)"),
		"bottom.roll":     config.Range(-0.2, 0.2).Doc("rad", "the bottom camera's roll calibration offset"),
		"bottom.pitch":    config.Range(-0.2, 0.2).Doc("rad", "the bottom camera's pitch calibration offset"),
		"bottom.yaw":      config.Range(-0.2, 0.2).Doc("rad", "the bottom camera's yaw calibration offset"),
		"bottom.focal_x":  config.Range(0, 10_000).Doc("px", "the bottom camera's focal length along x (0: nominal)"),
		"bottom.focal_y":  config.Range(0, 10_000).Doc("px", "the bottom camera's focal length along y (0: nominal)"),
		"bottom.centre_x": config.Range(0, 10_000).Doc("px", "the bottom camera's optical centre along x (0: nominal)"),
		"bottom.centre_y": config.Range(0, 10_000).Doc("px", "the bottom camera's optical centre along y (0: nominal)"),
	}
}

// cameraRules are the rules of one camera's capture settings
// (v4l2.Config), by key within its section.
func cameraRules() config.Rules {
	return config.Rules{
		"device":                      config.Text(0, 4096).Doc("", "the video device; \"\" turns the camera off"),
		"width":                       config.Int(16, 4096).Doc("px", "the capture width"),
		"height":                      config.Int(16, 4096).Doc("px", "the capture height"),
		"fps":                         config.Int(1, 120).Doc("1/s", "the frame rate asked of the driver"),
		"buffers":                     config.Int(2, 32).Doc("", "how many capture buffers the driver fills in turn"),
		"stall_timeout":               config.Durations(time.Millisecond, time.Minute).Doc("", "how long without a frame before the camera counts as stalled and is reopened"),
		"backoff":                     config.Durations(time.Millisecond, time.Minute).Doc("", "the wait before reopening a failed camera"),
		"flip":                        config.OneOf(v4l2.FlipNone, v4l2.FlipXU, v4l2.FlipControls).Doc("", "how an upside-down image is turned upright: not at all, by the NAO camera's extension unit, or by the V4L2 flip controls"),
		"controls.auto_exposure":      config.Bool().Doc("", "lets the camera choose its exposure"),
		"controls.exposure":           config.Int(v4l2.MinExposure, v4l2.MaxExposure).Doc("100 µs", "the exposure time without auto exposure"),
		"controls.gain":               config.Int(v4l2.MinGain, v4l2.MaxGain).Doc("", "the sensor gain"),
		"controls.auto_white_balance": config.Bool().Doc("", "lets the camera choose its white balance"),
		"controls.white_balance":      config.Int(v4l2.MinWhiteBalance, v4l2.MaxWhiteBalance).Doc("K", "the white balance without auto white balance"),
	}
}
