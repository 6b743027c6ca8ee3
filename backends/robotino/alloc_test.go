package robotino_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/robotd/robotd/backends/robotino"
	"github.com/robotd/robotd/backends/robotino/robotinotest"
	"github.com/robotd/robotd/hal"
	proto "github.com/robotd/robotd/proto/robotino"
)

// quietPeer is an allocation-free base controller on the pty's master: it
// answers the version requests and every sensor request with fixed
// replies.
func quietPeer(t testing.TB, link string) {
	t.Helper()
	pty, err := robotinotest.OpenPTY()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(pty.Path, link); err != nil {
		t.Fatal(err)
	}
	var p proto.Payload
	p.ReplyText(proto.TagHWVersion, "3.0.0")
	p.ReplyText(proto.TagSWVersion, "1.1.1")
	versions, _ := p.AppendFrame(nil)
	p.Reset()
	p.ReplyMotorReadings(proto.MotorReadings{Speed: [4]int16{100, 0, -100}})
	p.ReplyFlag(proto.TagBumper, 0)
	p.ReplyOdometry(proto.Odometry{X: 1})
	p.ReplyPowerSource(proto.PowerSource{BatteryVoltage: 24})
	p.ReplyFlag(proto.TagPowerButton, 0)
	readings, _ := p.AppendFrame(nil)
	done := make(chan struct{})
	t.Cleanup(func() { pty.Close(); <-done })
	go func() {
		defer close(done)
		dec := proto.NewDecoder(nil, proto.DecoderOptions{})
		buf := make([]byte, 1024)
		for {
			n, err := pty.Master.Read(buf)
			for in := buf[:n]; len(in) > 0; {
				k, pl, _ := dec.Feed(in)
				in = in[k:]
				if len(pl) >= 2 {
					switch proto.Tag(pl[0]) {
					case proto.TagGetHWVersion:
						pty.Master.Write(versions)
					case proto.TagGetAllMotorReadings:
						pty.Master.Write(readings)
					}
				}
			}
			if err != nil {
				return
			}
		}
	}()
}

// TestTickAllocations: a whole tick (Commit, Next, every Read and Write)
// allocates nothing in the backend. The count includes the reading
// goroutine, so it also shows what go.bug.st/serial's Read allocates.
func TestTickAllocations(t *testing.T) {
	link := filepath.Join(t.TempDir(), "tty")
	quietPeer(t, link)
	r := &rig{t: t, ctx: ctxGuard(t), link: link}
	b, err := robotino.New(testConfig(link), nil, robotino.Options{GPIO: &robotinotest.GPIO{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	r.b = b
	r.until(true, nil)
	var (
		bs   hal.BaseState
		imu  hal.IMU
		bat  hal.Battery
		btn  hal.Buttons
		v    = hal.BaseVelocity{VX: 0.1, Omega: 0.2}
		leds = hal.LEDs{Chest: hal.RGB{G: 1}}
	)
	tick := func() {
		r.tick(&v)
		b.ReadBase(&bs)
		b.ReadIMU(&imu)
		b.ReadBattery(&bat)
		b.ReadButtons(&btn)
		b.WriteLEDs(&leds)
	}
	for range 20 {
		tick()
	}
	a := testing.AllocsPerRun(200, tick)
	t.Logf("%v allocations per tick", a)
	if a != 0 {
		t.Fatalf("%v allocations per tick, want 0", a)
	}
}

// BenchmarkTick measures one tick's round trip through the pty (at the
// benchmark's period of 2 ms, so this is mostly waiting: see ns/op minus
// the period).
func BenchmarkTick(b *testing.B) {
	link := filepath.Join(b.TempDir(), "tty")
	quietPeer(b, link)
	cfg := testConfig(link)
	dev, err := robotino.New(cfg, nil, robotino.Options{GPIO: &robotinotest.GPIO{}})
	if err != nil {
		b.Fatal(err)
	}
	defer dev.Close()
	ctx := b.Context()
	v := hal.BaseVelocity{VX: 0.1}
	b.ReportAllocs()
	for b.Loop() {
		dev.WriteBaseVelocity(&v)
		if err := dev.Commit(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := dev.Next(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
