package nao

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/tinylib/msgp/msgp"

	"github.com/robotd/robotd/proto/lola"
)

// Identify connects to LoLA at socket, reads one sensor map and returns the
// body and head IDs of its RobotConfig (protocols.md §1.3), for choosing the
// robot's configuration layer before the backend starts.
func Identify(ctx context.Context, socket string, timeout time.Duration) (body, head string, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		return "", "", fmt.Errorf("nao: asking LoLA for the robot's IDs: %w", err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	// One msgpack object is one map, whatever its size (a robot's 896
	// bytes, an emulator's float64 maps).
	buf := make([]byte, 0, 2*lola.SensorPacketSize)
	for {
		if len(buf) > 0 {
			rest, err := msgp.Skip(buf)
			if err == nil {
				var s lola.Sensors
				if err := lola.DecodeSensors(buf[:len(buf)-len(rest)], &s); err != nil {
					return "", "", fmt.Errorf("nao: the sensor map from %s: %w", socket, err)
				}
				return s.RobotConfig[lola.ConfigBodyID].String(), s.RobotConfig[lola.ConfigHeadID].String(), nil
			}
			if !errors.Is(err, msgp.ErrShortBytes) {
				return "", "", fmt.Errorf("nao: reading from %s: corrupt msgpack stream: %w", socket, err)
			}
		}
		if len(buf) >= 64<<10 {
			return "", "", fmt.Errorf("nao: reading from %s: no complete map in %d bytes", socket, len(buf))
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := c.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil && !(errors.Is(err, io.EOF) && n > 0) {
			return "", "", fmt.Errorf("nao: reading a sensor map from %s for the robot's IDs: %w", socket, err)
		}
	}
}
