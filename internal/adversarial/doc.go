// Package adversarial holds robotd's adversarial tests: the daemon's
// backends and modules against hostile peers on loopback (a SimSpark
// server sending garbage, huge and non-finite values, truncated frames and
// floods; a LoLA peer and a Robotino base controller doing the same; a
// flood of GameController packets and spoofed team messages). Each test
// runs for a bounded time and asserts that the robot stays safe (no
// non-zero command out of bad input), nothing panics, the blackboard never
// holds NaN or ±Inf, and the heap stays bounded. The package has no
// non-test code besides this file.
package adversarial
