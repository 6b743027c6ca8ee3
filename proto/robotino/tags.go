package robotino

import "strconv"

// Tag is a command id of the Robotino 3 serial protocol (protocols.md §2.3;
// identical in Fawkes' command_id_t and the firmware's tagenum.h). Every
// command in a frame's payload is tag (1 byte), length (1 byte), value.
type Tag uint8

// Command ids (protocols.md §2.3). "Get…" tags are requests without data;
// the base answers with the tag named without "Get".
const (
	TagGetHWVersion               Tag = 1   // request the hardware version
	TagHWVersion                  Tag = 2   // ASCII, e.g. "3.0.0"
	TagGetSWVersion               Tag = 3   // request the firmware version
	TagSWVersion                  Tag = 4   // ASCII, e.g. "2.1.0"
	TagGetDistanceSensorReadings  Tag = 5   // request the 9 IR distance sensors
	TagDistanceSensorReadings     Tag = 6   // 9 × float32 V (36)
	TagGetADCParameters           Tag = 7   // request ADC parameters (Fawkes enum only)
	TagADCParameters              Tag = 8   // ADC parameters (Fawkes enum only)
	TagSetMotorSpeed              Tag = 9   // motor uint8, rpm int16 (3)
	TagGetAllMotorSpeeds          Tag = 10  // request all motor speeds
	TagAllMotorSpeeds             Tag = 11  // 4 × int16 rpm (8)
	TagSetMotorPosition           Tag = 12  // motor uint8, position int32 (5)
	TagGetAllMotorPositions       Tag = 13  // request all encoder positions
	TagAllMotorPositions          Tag = 14  // 4 × int32 ticks (16)
	TagSetMotorPIDParameters      Tag = 15  // motor uint8, kp, ki, kd float32 (13)
	TagGetAllMotorPIDParameters   Tag = 16  // request PID parameters
	TagAllMotorPIDParameters      Tag = 17  // 4 × (kp, ki, kd) float32 (48)
	TagSetAllDigitalOutputs       Tag = 18  // uint8 mask, bit i = DO(i+1) (1)
	TagSetAllRelays               Tag = 19  // uint8, bits 0–1 (1)
	TagSetOdometry                Tag = 20  // x, y (m), phi (rad) float32 (12)
	TagSetOdometryRotation        Tag = 21  // phi float32 (4)
	TagGetOdometry                Tag = 22  // request odometry
	TagOdometry                   Tag = 23  // x, y (m), phi (rad) float32 (12)
	TagGetAllMotorCurrentReadings Tag = 26  // request motor currents
	TagAllMotorCurrentReadings    Tag = 27  // 4 × float32 A (16)
	TagGetAllAnalogInputs         Tag = 32  // request analog inputs
	TagAllAnalogInputs            Tag = 33  // 8 × float32 V (32)
	TagGetAllDigitalInputs        Tag = 34  // request digital inputs
	TagAllDigitalInputs           Tag = 35  // uint8 mask, bit i = DI(i+1) (1)
	TagGetBumper                  Tag = 36  // request the bumper state
	TagBumper                     Tag = 37  // uint8 0 or 1 (1)
	TagGetPowerButton             Tag = 38  // request the power button state
	TagPowerButton                Tag = 39  // uint8 (1), appended to every reply
	TagSetFPGAPower               Tag = 40  // uint8
	TagGetFPGAPower               Tag = 41  // request FPGA power state
	TagFPGAPower                  Tag = 42  // uint8
	TagGetPwrOkState              Tag = 43  // request PWR_OK state
	TagPwrOkState                 Tag = 44  // uint8
	TagSetPwrOkState              Tag = 45  // uint8
	TagSetPWM                     Tag = 46  // channel uint8 (1–6), ratio uint8 (2)
	TagSetMotorOn                 Tag = 47  // motor uint8, on uint8 (2)
	TagSetPwrBtn                  Tag = 48  // uint8
	TagSetSysReset                Tag = 49  // uint8
	TagGetComExpressStates        Tag = 50  // request COM Express states
	TagComExpressStates           Tag = 51  // 5 × uint8
	TagGetAllMotorReadings        Tag = 52  // request speeds, positions, currents
	TagAllMotorReadings           Tag = 53  // 4 × int16 rpm, 4 × int32 ticks, 4 × float32 A (40)
	TagGetIPAddress               Tag = 54  // request IP address
	TagIPAddress                  Tag = 55  // 2 × uint32 (8)
	TagSetIPAddress               Tag = 56  // 2 × uint32 (8)
	TagSetEmergencyBumper         Tag = 57  // uint8 enable (1)
	TagSetMotorMode               Tag = 58  // not examined
	TagResetLPC                   Tag = 59  // reset the microcontroller
	TagPowerOff                   Tag = 60  // power off
	TagSetSafetyVelocity          Tag = 61  // float32 (SET_SAFTEY_VELOCITY)
	TagGetSafetyVelocity          Tag = 62  // request the safety velocity
	TagSafetyVelocity             Tag = 63  // float32
	TagPowerSourceReadings        Tag = 65  // 16 bytes, appended to every reply
	TagSetMotorAccelLimits        Tag = 66  // motor uint8, min, max float32 (9)
	TagMotorAccelLimits           Tag = 67  // motor uint8, min, max float32 (9)
	TagGetMotorAccelLimits        Tag = 68  // request acceleration limits
	TagGetGyroZAngle              Tag = 69  // request gyro z angle and rate (fw 1.x)
	TagGyroZAngle                 Tag = 70  // angle, rate float32 (8)
	TagGetCANMsg                  Tag = 71  // request CAN messages
	TagCANMsg                     Tag = 72  // id uint16, dlc uint8, 8 data bytes (11)
	TagSetNRST                    Tag = 73  // uint8
	TagGetNRST                    Tag = 74  // request NRST
	TagNRST                       Tag = 75  // uint8
	TagSetBoot                    Tag = 76  // uint8
	TagGetBoot                    Tag = 77  // request BOOT
	TagBoot                       Tag = 78  // uint8
	TagConfigReset                Tag = 79  // base → host
	TagChargerInfo                Tag = 80  // charger information
	TagChargerEvent               Tag = 81  // charger event
	TagChargerVersion             Tag = 82  // charger version
	TagChargerGetVersion          Tag = 83  // request charger version
	TagChargerClearError          Tag = 84  // clear charger error
	TagChargerError               Tag = 85  // charger id uint8, time uint32, ASCII
	TagSetBatteryMin              Tag = 86  // float32 V
	TagGetBatteryMin              Tag = 87  // request the minimum battery voltage
	TagBatteryMin                 Tag = 88  // float32 V
	TagGetGyroData                Tag = 89  // request gyro samples
	TagGyroData                   Tag = 90  // n × (timestamp uint32, omega float32)
	TagGetGPAIN                   Tag = 91  // channel uint8
	TagGPAIN                      Tag = 92  // channel uint8, float32
	TagGetVersionBits             Tag = 93  // request version bits
	TagVersionBits                Tag = 94  // 2 × uint8
	TagGyroSetParam               Tag = 95  // gyro parameter
	TagGyroGetParam               Tag = 96  // request gyro parameter
	TagGyroParam                  Tag = 97  // gyro parameter
	TagFestoolChargerInfo         Tag = 98  // fw 2.x
	TagFestoolChargerHotswapStart Tag = 99  // fw 2.x
	TagMotorDebug                 Tag = 100 // fw 2.x
	TagSetMotorDebug              Tag = 101 // fw 2.x
	TagInfo                       Tag = 250 // ASCII text
	TagWarning                    Tag = 251 // ASCII text
	TagError                      Tag = 252 // ASCII text (e.g. invalid tag lengths)
	TagLingoA                     Tag = 253 // LINGO_A
	TagLingoB                     Tag = 254 // LINGO_B
	TagLingoC                     Tag = 255 // LINGO_C
)

// String returns the tag's protocol name (e.g. "SET_MOTOR_SPEED"), or
// "TAG_<n>" for ids §2.3 does not list.
func (t Tag) String() string {
	switch t {
	case TagGetHWVersion:
		return "GET_HW_VERSION"
	case TagHWVersion:
		return "HW_VERSION"
	case TagGetSWVersion:
		return "GET_SW_VERSION"
	case TagSWVersion:
		return "SW_VERSION"
	case TagGetDistanceSensorReadings:
		return "GET_DISTANCE_SENSOR_READINGS"
	case TagDistanceSensorReadings:
		return "DISTANCE_SENSOR_READINGS"
	case TagGetADCParameters:
		return "GET_ADC_PARAMETERS"
	case TagADCParameters:
		return "ADC_PARAMETERS"
	case TagSetMotorSpeed:
		return "SET_MOTOR_SPEED"
	case TagGetAllMotorSpeeds:
		return "GET_ALL_MOTOR_SPEEDS"
	case TagAllMotorSpeeds:
		return "ALL_MOTOR_SPEEDS"
	case TagSetMotorPosition:
		return "SET_MOTOR_POSITION"
	case TagGetAllMotorPositions:
		return "GET_ALL_MOTOR_POSITIONS"
	case TagAllMotorPositions:
		return "ALL_MOTOR_POSITIONS"
	case TagSetMotorPIDParameters:
		return "SET_MOTOR_PID_PARAMETERS"
	case TagGetAllMotorPIDParameters:
		return "GET_ALL_MOTOR_PID_PARAMETERS"
	case TagAllMotorPIDParameters:
		return "ALL_MOTOR_PID_PARAMETERS"
	case TagSetAllDigitalOutputs:
		return "SET_ALL_DIGITAL_OUTPUTS"
	case TagSetAllRelays:
		return "SET_ALL_RELAYS"
	case TagSetOdometry:
		return "SET_ODOMETRY"
	case TagSetOdometryRotation:
		return "SET_ODOMETRY_ROTATION"
	case TagGetOdometry:
		return "GET_ODOMETRY"
	case TagOdometry:
		return "ODOMETRY"
	case TagGetAllMotorCurrentReadings:
		return "GET_ALL_MOTOR_CURRENT_READINGS"
	case TagAllMotorCurrentReadings:
		return "ALL_MOTOR_CURRENT_READINGS"
	case TagGetAllAnalogInputs:
		return "GET_ALL_ANALOG_INPUTS"
	case TagAllAnalogInputs:
		return "ALL_ANALOG_INPUTS"
	case TagGetAllDigitalInputs:
		return "GET_ALL_DIGITAL_INPUTS"
	case TagAllDigitalInputs:
		return "ALL_DIGITAL_INPUTS"
	case TagGetBumper:
		return "GET_BUMPER"
	case TagBumper:
		return "BUMPER"
	case TagGetPowerButton:
		return "GET_POWER_BUTTON"
	case TagPowerButton:
		return "POWER_BUTTON"
	case TagSetFPGAPower:
		return "SET_FPGA_POWER"
	case TagGetFPGAPower:
		return "GET_FPGA_POWER"
	case TagFPGAPower:
		return "FPGA_POWER"
	case TagGetPwrOkState:
		return "GET_PWR_OK_STATE"
	case TagPwrOkState:
		return "PWR_OK_STATE"
	case TagSetPwrOkState:
		return "SET_PWR_OK_STATE"
	case TagSetPWM:
		return "SET_PWM"
	case TagSetMotorOn:
		return "SET_MOTOR_ON"
	case TagSetPwrBtn:
		return "SET_PWRBTN"
	case TagSetSysReset:
		return "SET_SYS_RESET"
	case TagGetComExpressStates:
		return "GET_COM_EXPRESS_STATES"
	case TagComExpressStates:
		return "COM_EXPRESS_STATES"
	case TagGetAllMotorReadings:
		return "GET_ALL_MOTOR_READINGS"
	case TagAllMotorReadings:
		return "ALL_MOTOR_READINGS"
	case TagGetIPAddress:
		return "GET_IP_ADDRESS"
	case TagIPAddress:
		return "IP_ADDRESS"
	case TagSetIPAddress:
		return "SET_IP_ADDRESS"
	case TagSetEmergencyBumper:
		return "SET_EMERGENCY_BUMPER"
	case TagSetMotorMode:
		return "SET_MOTOR_MODE"
	case TagResetLPC:
		return "RESET_LPC"
	case TagPowerOff:
		return "POWER_OFF"
	case TagSetSafetyVelocity:
		return "SET_SAFTEY_VELOCITY"
	case TagGetSafetyVelocity:
		return "GET_SAFTEY_VELOCITY"
	case TagSafetyVelocity:
		return "SAFTEY_VELOCITY"
	case TagPowerSourceReadings:
		return "POWER_SOURCE_READINGS"
	case TagSetMotorAccelLimits:
		return "SET_MOTOR_ACCEL_LIMITS"
	case TagMotorAccelLimits:
		return "MOTOR_ACCEL_LIMITS"
	case TagGetMotorAccelLimits:
		return "GET_MOTOR_ACCEL_LIMITS"
	case TagGetGyroZAngle:
		return "GET_GYRO_Z_ANGLE"
	case TagGyroZAngle:
		return "GYRO_Z_ANGLE"
	case TagGetCANMsg:
		return "GET_CAN_MSG"
	case TagCANMsg:
		return "CAN_MSG"
	case TagSetNRST:
		return "SET_NRST"
	case TagGetNRST:
		return "GET_NRST"
	case TagNRST:
		return "NRST"
	case TagSetBoot:
		return "SET_BOOT"
	case TagGetBoot:
		return "GET_BOOT"
	case TagBoot:
		return "BOOT"
	case TagConfigReset:
		return "CONFIG_RESET"
	case TagChargerInfo:
		return "CHARGER_INFO"
	case TagChargerEvent:
		return "CHARGER_EVENT"
	case TagChargerVersion:
		return "CHARGER_VERSION"
	case TagChargerGetVersion:
		return "CHARGER_GET_VERSION"
	case TagChargerClearError:
		return "CHARGER_CLEAR_ERROR"
	case TagChargerError:
		return "CHARGER_ERROR"
	case TagSetBatteryMin:
		return "SET_BATTERY_MIN"
	case TagGetBatteryMin:
		return "GET_BATTERY_MIN"
	case TagBatteryMin:
		return "BATTERY_MIN"
	case TagGetGyroData:
		return "GET_GYRODATA"
	case TagGyroData:
		return "GYRODATA"
	case TagGetGPAIN:
		return "GET_GPAIN"
	case TagGPAIN:
		return "GPAIN"
	case TagGetVersionBits:
		return "GET_VERSIONBITS"
	case TagVersionBits:
		return "VERSIONBITS"
	case TagGyroSetParam:
		return "GYRO_SET_PARAM"
	case TagGyroGetParam:
		return "GYRO_GET_PARAM"
	case TagGyroParam:
		return "GYRO_PARAM"
	case TagFestoolChargerInfo:
		return "FESTOOL_CHARGER_INFO"
	case TagFestoolChargerHotswapStart:
		return "FESTOOL_CHARGER_HOTSWAP_START"
	case TagMotorDebug:
		return "MOTOR_DEBUG"
	case TagSetMotorDebug:
		return "SET_MOTOR_DEBUG"
	case TagInfo:
		return "INFO"
	case TagWarning:
		return "WARNING"
	case TagError:
		return "ERROR"
	case TagLingoA:
		return "LINGO_A"
	case TagLingoB:
		return "LINGO_B"
	case TagLingoC:
		return "LINGO_C"
	}
	return "TAG_" + strconv.Itoa(int(t))
}
