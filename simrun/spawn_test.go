package simrun

import (
	"context"
	"fmt"
	"math"
	"net"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/sim"
	"github.com/robotd/robotd/internal/leaktest"
	"github.com/robotd/robotd/msg"
	"github.com/robotd/robotd/proto/simspark"
)

// spawnOnly connects one agent that sends its scene and init and leaves
// two cycles later: it uses up one of the side's spawn slots.
func spawnOnly(ctx context.Context, addr, team string, sync bool) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		if err := c.SetDeadline(dl); err != nil {
			return err
		}
	}
	syn := ""
	if sync {
		syn = "(syn)"
	}
	fr := simspark.NewFrameReader(c, 1<<20)
	send := func(m string) error {
		_, err := c.Write(simspark.AppendFrame(nil, []byte(m+syn)))
		return err
	}
	for _, m := range []string{"(scene rsg/agent/nao/nao.rsg)", "(init (unum 2)(teamname " + team + "))", "", ""} {
		if m != "" || sync {
			if err := send(m); err != nil {
				return err
			}
		}
		if _, err := fr.Next(); err != nil {
			return err
		}
	}
	return nil
}

// TestRobotStandsAfterSeventyAgents: a server places a side's n-th agent
// at init at its n-th spawn slot, and the slots of agents 70–74 of a
// server's life lie inside the right side wall (see backends/sim's
// handshake). A robot that connects after 70 agents of its side stands
// where it beamed, upright, like the first. With ROBOTD_SIMSPARK set it
// runs against that server (a fresh one: the test counts on the server
// having had no agents of its side before).
func TestRobotStandsAfterSeventyAgents(t *testing.T) {
	defer leaktest.Check(t)()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w, stop := startWorld(ctx, t)
	defer stop()
	// One robot first, so that the side is robotd's for the whole test
	// (a side whose agents all left is free for the next team).
	first, err := w.AddRobot(RobotConfig{Team: "robotd", Player: 5, Beam: sim.Beam{X: -4, Y: -2.5}})
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n < 70; n++ {
		if err := spawnOnly(ctx, w.Target().Agent, "robotd", w.Sync()); err != nil {
			t.Fatalf("agent %d: %v", n, err)
		}
	}
	beams := []sim.Beam{{X: -1.5, Y: 0.5, Deg: 30}, {X: -2, Y: -1}, {X: -3, Y: 1.5, Deg: -45}}
	robots := make([]*Robot, len(beams))
	for i, b := range beams {
		if robots[i], err = w.AddRobot(RobotConfig{Team: "robotd", Player: 2 + i, Beam: b}); err != nil {
			t.Fatal(err)
		}
	}
	last := robots[len(robots)-1]
	start := last.Elapsed()
	if _, err := last.WaitFor(ctx, time.Hour, func() bool { return last.Elapsed() > start+3*time.Second }); err != nil {
		t.Fatal(err)
	}
	for i, r := range append(robots, first) {
		b := sim.Beam{X: -4, Y: -2.5}
		if i < len(beams) {
			b = beams[i]
		}
		name := fmt.Sprintf("robot beamed to (%.1f, %.1f)", b.X, b.Y)
		gt, _ := r.Truth()
		if !gt.Valid {
			t.Errorf("%s: no ground truth", name)
			continue
		}
		if d := math.Hypot(float64(gt.Pose.X)-b.X, float64(gt.Pose.Y)-b.Y); d > 0.05 {
			t.Errorf("%s: ground truth (%.2f, %.2f), %.2f m away", name, gt.Pose.X, gt.Pose.Y, d)
		}
		if body, _ := r.Body(); body.Fall != msg.Upright {
			t.Errorf("%s: %v, want upright", name, body.Fall)
		}
	}
}
