package hal

import "context"

// Clock paces the control loop: Next blocks until the next sensor packet has
// arrived (or, while disconnected, until the next nominal cycle) and returns
// its tick. Time is a capability: in tests a fake clock runs the daemon for N
// ticks instantly, in sync-mode simulation it runs as fast as the simulator.
type Clock interface {
	Next(ctx context.Context) (Tick, error)
}

// Device is the lifecycle every backend has, in the read → update → write
// shape of ros2_control: Next (read), the modules' tick (update), Commit
// (write).
type Device interface {
	Clock
	// Commit sends everything written through the actuator capabilities
	// since the last Commit.
	Commit(ctx context.Context) error
	// SafeState puts the hardware into a state where it cannot hurt itself or
	// anyone: joints limp (stiffness 0) or the base stopped. It sends at once.
	SafeState(ctx context.Context) error
	// Close releases the hardware. It does not imply SafeState.
	Close() error
}

// JointSensor reads the measured joint state of the last packet.
type JointSensor interface{ ReadJoints(*JointSensors) }

// JointActuator takes the joint targets to send at the next Commit.
type JointActuator interface{ WriteJoints(*JointCommand) }

// IMUSensor reads gyroscope and accelerometer.
type IMUSensor interface{ ReadIMU(*IMU) }

// BodyAngleSensor reads the torso's roll and pitch.
type BodyAngleSensor interface{ ReadBodyAngles(*BodyAngles) }

// SonarSensor reads the sonars.
type SonarSensor interface{ ReadSonar(*Sonar) }

// FSRSensor reads the foot force sensors.
type FSRSensor interface{ ReadFSR(*FSR) }

// ButtonSensor reads buttons, touch pads and bumpers.
type ButtonSensor interface{ ReadButtons(*Buttons) }

// LEDActuator takes the LED state to send at the next Commit.
type LEDActuator interface{ WriteLEDs(*LEDs) }

// BatterySensor reads the battery.
type BatterySensor interface{ ReadBattery(*Battery) }

// OmniBase takes an omnidirectional base velocity to send at the next Commit.
type OmniBase interface{ WriteBaseVelocity(*BaseVelocity) }

// BaseSensor reads an omnidirectional base's odometry, bumper and e-stop.
type BaseSensor interface{ ReadBase(*BaseState) }

// VisionSensor reads this tick's vision observations.
type VisionSensor interface{ ReadVision(*Vision) }

// GameStateSensor reads the game state (from the GameController or the
// simulator).
type GameStateSensor interface{ ReadGameState(*GameState) }

// GroundTruthSensor reads a simulator's true poses. Only simulators have it.
type GroundTruthSensor interface{ ReadGroundTruth(*GroundTruth) }

// StatsReporter reports a backend's error and reconnect counters.
type StatsReporter interface{ Stats() BackendStats }
