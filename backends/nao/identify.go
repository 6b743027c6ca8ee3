package nao

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

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
	buf := make([]byte, lola.SensorPacketSize)
	if _, err := io.ReadFull(c, buf); err != nil {
		return "", "", fmt.Errorf("nao: reading a sensor map from %s for the robot's IDs: %w", socket, err)
	}
	var s lola.Sensors
	if err := lola.DecodeSensors(buf, &s); err != nil {
		return "", "", fmt.Errorf("nao: the sensor map from %s: %w", socket, err)
	}
	return s.RobotConfig[lola.ConfigBodyID].String(), s.RobotConfig[lola.ConfigHeadID].String(), nil
}
