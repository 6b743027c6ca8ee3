package simserver

import (
	"math"

	"github.com/robotd/robotd/proto/simspark"
)

// The NAO model of rsg/agent/nao/nao.rsg (type 0, no toes) as the embedded
// simulator sees it: 22 hinge joints in the order the fork reports them,
// their limits in the simulator's sign convention, and NAO v6 link lengths
// for the kinematics.

// numJoints is the number of hinge joints of the type-0 NAO.
const numJoints = 22

// Joint indices in the order of the fork's HJ perceptors: head, right arm,
// left arm, right leg, left leg.
const (
	jHeadYaw = iota
	jHeadPitch
	jRArm // raj1..raj4
	_
	_
	_
	jLArm // laj1..laj4
	_
	_
	_
	jRLeg // rlj1..rlj6
	_
	_
	_
	_
	_
	jLLeg // llj1..llj6
	_
	_
	_
	_
	_
)

// MaxJointSpeed is the motor velocity clamp of every joint: 351.77 deg/s.
const MaxJointSpeed = math.Pi * 351.77 / 180

type jointSpec struct {
	id       simspark.JointID
	min, max float64 // radians; limited only if min < max
	rest     float64 // angle at creation
}

func (j *jointSpec) limited() bool { return j.min < j.max }

// joints is the joint table (limits from nao_hetero.rsg / the traces README).
var joints = [numJoints]jointSpec{
	{id: simspark.HJ1, min: -119.5 * rad, max: 119.5 * rad},
	{id: simspark.HJ2, min: 29.5 * rad, max: -38.5 * rad}, // min > max: no limit, as in the model
	{id: simspark.RAJ1, min: -119.5 * rad, max: 119.5 * rad},
	{id: simspark.RAJ2, min: -76 * rad, max: 18 * rad},
	{id: simspark.RAJ3, min: -119.5 * rad, max: 119.5 * rad},
	{id: simspark.RAJ4, min: 2 * rad, max: 88.5 * rad, rest: 2 * rad},
	{id: simspark.LAJ1, min: -119.5 * rad, max: 119.5 * rad},
	{id: simspark.LAJ2, min: -18 * rad, max: 76 * rad},
	{id: simspark.LAJ3, min: -119.5 * rad, max: 119.5 * rad},
	{id: simspark.LAJ4, min: -88.5 * rad, max: -2 * rad, rest: -2 * rad},
	{id: simspark.RLJ1, min: -65.62 * rad, max: 42.44 * rad},
	{id: simspark.RLJ2, min: -45.29 * rad, max: 21.74 * rad},
	{id: simspark.RLJ3, min: -27.73 * rad, max: 88 * rad},
	{id: simspark.RLJ4, min: -121.04 * rad, max: 5.29 * rad},
	{id: simspark.RLJ5, min: -52.86 * rad, max: 68.15 * rad},
	{id: simspark.RLJ6, min: -22.79 * rad, max: 44.06 * rad},
	{id: simspark.LLJ1, min: -65.62 * rad, max: 42.44 * rad},
	{id: simspark.LLJ2, min: -21.74 * rad, max: 45.29 * rad},
	{id: simspark.LLJ3, min: -27.73 * rad, max: 88 * rad},
	{id: simspark.LLJ4, min: -121.04 * rad, max: 5.29 * rad},
	{id: simspark.LLJ5, min: -52.86 * rad, max: 68.15 * rad},
	{id: simspark.LLJ6, min: -44.06 * rad, max: 22.79 * rad},
}

// jointOf maps the codec's joint IDs to our indices (-1: not in this model).
var jointOf = func() (m [simspark.NumJoints]int8) {
	for i := range m {
		m[i] = -1
	}
	for i, j := range joints {
		m[j.id] = int8(i)
	}
	return m
}()

// Link geometry, NAO v6 lengths, in the simulator's body frame (x right,
// y forward, z up), relative to the torso origin (85 mm above the hips).
const (
	neckZ       = 0.1265  // torso to the head joints
	camZ        = 0.08041 // head joints to the camera point reported as mypos: 0.54 m when standing
	shoulderX   = 0.098
	shoulderZ   = 0.100
	upperArmLen = 0.105
	lowerArmC   = 0.05 // elbow to the lower arm's centre (the seen "lowerarm")
	hipX        = 0.050
	hipZ        = 0.085
	thighLen    = 0.100
	tibiaLen    = 0.1029
	footHeight  = 0.04519
	soleFwd     = 0.03 // sole centre ahead of the ankle
	soleHalfW   = 0.04 // sole 0.08 m wide
	soleHalfL   = 0.08 // and 0.16 m long, as the simulator's foot box
	torsoComZ   = 0.04
)

// Masses of the simulator's model (kg); 4.607 in all.
const (
	mTorso    = 1.2171
	mNeck     = 0.05
	mHead     = 0.35
	mShoulder = 0.07
	mUpperArm = 0.15
	mElbow    = 0.035
	mLowerArm = 0.2
	mHip      = 0.09 + 0.125
	mThigh    = 0.275
	mShank    = 0.225
	mAnkle    = 0.125
	mFoot     = 0.2
	totalMass = mTorso + mNeck + mHead + 2*(mShoulder+mUpperArm+mElbow+mLowerArm) + 2*(mHip+mThigh+mShank+mAnkle+mFoot)
	gravity   = 9.81
)

var hipAxis = [2]vec3{
	vec3{-1, 0, 1}.unit(),  // right: (-0.7071, 0, 0.7071)
	vec3{-1, 0, -1}.unit(), // left
}

// kinematics is the body's shape for one set of joint angles, relative to
// the torso. Index 0 is right, 1 left.
type kinematics struct {
	head     mat3 // camera orientation
	cam      vec3 // camera (head centre)
	lowerArm [2]vec3
	footR    [2]mat3 // sole orientation
	sole     [2]vec3 // sole centre, on the ground plane of the foot
	footObj  [2]vec3 // the foot's centre, the seen "rfoot"/"lfoot"
	knee     [2]vec3
	ankle    [2]vec3
	com      vec3
}

// compute fills k from the joint angles q (radians).
func (k *kinematics) compute(q *[numJoints]float64) {
	neck := vec3{0, 0, neckZ}
	ry := rotZ(q[jHeadYaw])
	k.head = ry.mulRotX(q[jHeadPitch])
	k.cam = neck.add(k.head.apply(vec3{0, 0, camZ}))
	com := vec3{0, 0, torsoComZ}.scale(mTorso).add(neck.scale(mNeck)).add(k.cam.scale(mHead))
	for i := 0; i < 2; i++ {
		s := 1.0
		if i == 1 {
			s = -1
		}
		b := jRArm + 4*i
		sh := vec3{s * shoulderX, 0, shoulderZ}
		r1 := rotX(q[b])
		r2 := r1.mulRotZ(q[b+1])
		elbow := sh.add(r2.apply(vec3{0, upperArmLen, 0}))
		r3 := r2.mulRotY(q[b+2])
		r4 := r3.mulRotZ(q[b+3])
		k.lowerArm[i] = elbow.add(r4.apply(vec3{0, lowerArmC, 0}))
		com = com.add(sh.scale(mShoulder)).
			add(sh.add(r2.apply(vec3{0, upperArmLen / 2, 0})).scale(mUpperArm)).
			add(elbow.scale(mElbow)).add(k.lowerArm[i].scale(mLowerArm))

		b = jRLeg + 6*i
		hip := vec3{s * hipX, 0, -hipZ}
		l1 := rotAxis(hipAxis[i], q[b])
		l2 := l1.mulRotY(q[b+1])
		l3 := l2.mulRotX(q[b+2])
		knee := hip.add(l3.apply(vec3{0, 0, -thighLen}))
		l4 := l3.mulRotX(q[b+3])
		ankle := knee.add(l4.apply(vec3{0, 0, -tibiaLen}))
		l5 := l4.mulRotX(q[b+4])
		k.footR[i] = l5.mulRotY(q[b+5])
		k.sole[i] = ankle.add(k.footR[i].apply(vec3{0, soleFwd, -footHeight}))
		k.footObj[i] = k.sole[i].add(k.footR[i].apply(vec3{0, 0, 0.01}))
		k.knee[i], k.ankle[i] = knee, ankle
		com = com.add(hip.scale(mHip)).
			add(hip.add(l3.apply(vec3{0, 0, -thighLen / 2})).scale(mThigh)).
			add(knee.add(l4.apply(vec3{0, 0, -tibiaLen / 2})).scale(mShank)).
			add(ankle.scale(mAnkle)).add(k.footObj[i].scale(mFoot))
	}
	k.com = com.scale(1 / totalMass)
}
