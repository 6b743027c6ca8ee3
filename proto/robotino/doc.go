// Package robotino implements the serial protocol between a host and the
// Festo Robotino 3 base controller (LPC2300 + FPGA, USB CDC-ACM), the one
// Festo's controld3 and Fawkes' "direct" driver speak, protocols.md §2. It
// has no I/O policy: the backend opens the port, paces requests, applies
// the dead-man timeout and reconnects; this package encodes and decodes.
//
//   - Framing (§2.2): [AppendFrame] builds a frame (start byte 0xAA,
//     little-endian length, byte stuffing, checksum); [Decoder] is a
//     streaming decoder that resynchronises after garbage, bad lengths,
//     bad escapes, truncated frames and checksum errors, counts each kind
//     ([Stats]) and allocates nothing per frame.
//   - Commands (§2.3): [Tag] names every command id; [Payload] builds the
//     host → base commands the backend needs (motor speeds, odometry reset,
//     digital outputs, emergency bumper, acceleration limits, the periodic
//     sensor request); [Readings] decodes the base → host replies (motor
//     speeds, encoder positions and currents, odometry, gyro, bumper, power
//     source, inputs, version strings and INFO/WARNING/ERROR texts).
//   - Kinematics (§2.5): [Kinematics] converts between body velocity
//     (vx, vy, ω) and the three omni-wheel motor speeds, with speed limits.
//
// Keep-alive (§2.3, §2.4): the base only answers requests (every reply
// carries POWER_SOURCE_READINGS and POWER_BUTTON), and the firmware keeps
// the last motor set-points; nothing in §2 stops the wheels when the host
// goes quiet. The backend must therefore send the periodic request frame
// ([Payload.SensorRequests], Fawkes: every 5 ms) and set-points
// (Fawkes: every 20 ms while moving), and zero the speeds itself when its
// commands are older than its dead-man time (Fawkes: 0.5 s).
//
// Unconfirmed points of §2 ([U]) and how they are handled:
//   - Serial line settings (§2.1): [BaudRate] 115200 8N1 as Fawkes and
//     OpenRobotino use; probably irrelevant on CDC-ACM.
//   - Gyro tag 69/70 (§2.3): requested by default in the periodic frame as
//     Fawkes does ([PollOptions.NoGyro] turns it off); firmware ≥ 2.0
//     ignores it. Units presumably rad and rad/s (see [GyroZ]).
//   - Encoder ticks per motor revolution (§2.6): unknown; positions are
//     reported as raw ticks, no conversion is offered.
//   - Motor acceleration limit units (§2.4): passed through unchanged
//     ([Payload.SetMotorAccelLimits], Fawkes default ±11500).
//   - Maximum payload: §2 states none; [DefaultMaxPayload] (1024) covers the
//     firmware's 1015-byte producer buffer and is an option of [Decoder].
//   - Battery type codes and power values (§2.3) are passed through.
package robotino
