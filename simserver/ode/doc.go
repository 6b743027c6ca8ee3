// Package ode steps a SimSpark-like scene (robots of hinged rigid bodies,
// a ball, the field plane) with the Open Dynamics Engine, through a small
// cgo layer of its own: one C call per cycle, no callbacks into Go, no Go
// pointers kept by C. Only the embedded simulator's physics mode imports
// it; the robot build never does.
//
// The C side (scene.c) follows SimSpark's cycle (rcssserver3d's UNSW fork,
// spark/lib/oxygen/simulationserver and spark/plugin/odeimps): motor
// velocities set (dParamVel, clamped, the child body woken), drag and the
// accelerometer (PrePhysicsUpdate), collision into a contact group
// (dHashSpace per robot, inner collision off, at most 4 contacts per geom
// pair, surfaces mixed per pair), dWorldStep, then the senses: joint
// angles, gyro, accelerometer and the feet's force resistance perceptors.
//
// It needs libode (Debian: libode-dev, 0.16.2, double precision) and a C
// compiler, and is built only with the build tag "ode" and cgo; without
// them New returns ErrNoODE.
//
// Determinism: one scene stepped single-threaded with dWorldStep is a pure
// function of its inputs on one binary, libm and CPU: the same robots added
// in the same order and the same velocities give the same numbers bit for
// bit. ODE promises nothing across builds (compiler, FMA, vectorisation,
// library version) or across machines, and neither does this package.
package ode
