package body

import "github.com/robotd/robotd/hal"

// NAO v6 camera and neck facts (Aldebaran's NAO v6 documentation, "Video
// camera" and "Links"): two OV5640 sensors with a field of view of
// 56.3° × 43.7°, in the head at (58.71, 0, 63.64) mm tilted 1.2° down
// (top) and (50.71, 0, 17.74) mm tilted 39.7° down (bottom), relative to
// the head joints, which are 126.5 mm above the torso origin (NeckOffsetZ).
const (
	naoCameraHFOV = 56.3
	naoCameraVFOV = 43.7
	naoNeckOffset = 0.1265
)

// NAOCamera returns the nominal model of a NAO v6 camera at 640 × 480
// (hal.Intrinsics.Scaled gives other resolutions). Its NeckHeight, the
// head joints above the hip joints, is 211.5 mm: the neck offset above the
// torso origin plus the hips' offset below it (Leg.HipOffsetZ).
func NAOCamera(id hal.CameraID) hal.CameraInfo {
	info := hal.CameraInfo{
		Camera:     id,
		Intrinsics: hal.FromFOV(640, 480, hal.Deg(naoCameraHFOV), hal.Deg(naoCameraVFOV)),
		NeckHeight: hal.Metres(naoNeckOffset - NAO().Leg.HipOffsetZ),
	}
	if id == hal.CameraBottom {
		info.Mounting = hal.Mounting{Pos: hal.Vec3{X: 0.05071, Z: 0.01774}, Pitch: hal.Deg(39.7)}
	} else {
		info.Mounting = hal.Mounting{Pos: hal.Vec3{X: 0.05871, Z: 0.06364}, Pitch: hal.Deg(1.2)}
	}
	return info
}
