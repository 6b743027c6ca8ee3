// Package simserver is robotd's embedded SimSpark-compatible simulator: a
// server that speaks the rcssserver3d agent protocol (port 3100) and the
// trainer/monitor protocol (port 3200) with the names, units, delays,
// gains, clamps and noise measured on the rUNSWift SPL fork
// (internal/traces/testdata), so that robotd's sim build, CI and newcomers
// can run without rcssserver3d.
//
// Config.Physics chooses the world model. PhysicsODE (a build with -tags
// ode) steps rigid bodies with ODE as rcssserver3d does (package
// simserver/ode, built from the body table hal/body); see physics.go. The
// default, PhysicsKinematic, is NOT a physics engine: the world is
// deterministic and kinematic:
//
//   - joints integrate commanded motor velocities exactly as the fork does
//     (angle += v·dt, |v| ≤ 6.1395 rad/s, a command answering message k
//     shows in message k+2, one cycle later when the robot had come to
//     rest, the knee's overshoot at its stop);
//   - the body is carried by the supporting foot (the one bearing the
//     weight, flat on the ground, no slip), so a walking gait moves the
//     robot and a swinging foot pushes the ball; there are no forces,
//     torques or friction;
//   - a robot whose zero-moment point (centre of mass less the torso's
//     filtered acceleration times h/g) leaves its support polygon by more
//     than FallMargin tips over the polygon's edge like an inverted
//     pendulum, pivoting on the other foot if it comes down, and lies at
//     the torso angles of the recorded falls until a get-up squats deeply
//     (knees ≥ 110°, hips ≤ -60°) with the centre of mass over the feet,
//     or the trainer moves it (or lays it down: (rot x y z));
//   - the ball rolls with the fork's strong damping and is pushed by feet
//     and shins; robots do not collide with each other or the ball with
//     their bodies above the shins.
//
// What the kinematic model cannot give: closed-chain effects of double
// support (a hip yaw with both feet down turns nothing), dynamic rocking
// (a robot lifting one foot by rolling both hips leans on the other
// instead of swinging over, as in imu_fall_left/right.txt), and the bounce
// of a falling body. Play modes change only by trainer command: the fork's
// automatic rules are switched off too.
//
// The wire format comes from package proto/simspark. A Server runs the
// network side around a World; a World can also be stepped directly
// (tests, benchmarks, scenario runners). Every random draw comes from one
// math/rand/v2 generator seeded by Config.Seed, so in sync mode, with the
// same seed and the same agent messages, the perceptor streams are
// byte-identical.
//
// In-process use (robotd's sim build, tests):
//
//	cfg := simserver.DefaultConfig()
//	cfg.AgentAddr, cfg.MonitorAddr = "127.0.0.1:0", "127.0.0.1:0"
//	cfg.Sync = true
//	srv, err := simserver.New(cfg) // binds the ports
//	...
//	go srv.Run(ctx)                // until ctx is cancelled
//	// connect the SimSpark client to srv.AgentAddr()
//
// Camera images: package render draws a robot's NAO v6 top and bottom
// camera images (YUYV) of the true scene. They are not sent over the
// agent port, whose protocol stays the fork's: with Config.CameraViews the
// server keeps every robot's camera poses and scene after each cycle, and
// an in-process consumer (a sim backend) renders them with Cameras:
//
//	cfg.CameraViews = true
//	srv, _ := simserver.New(cfg)
//	cams, _ := simserver.NewCameras(srv, "robotd", 2, render.NAOIntrinsics(640, 480),
//		render.NAOIntrinsics(320, 240), render.DefaultOptions())
//	f := render.NewFrame(render.NAOIntrinsics(640, 480)) // f.Camera = render.Top
//	view, ok, err := cams.Capture(f) // the latest cycle's image, and its poses
//
// The real rcssserver3d remains a first-class target: robotd connects to
// either the same way.
package simserver
