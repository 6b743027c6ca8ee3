// Package udpshare opens UDP ports that several processes on one machine
// can share: the GameController's and the team's broadcast ports, which
// every robotd of a team run on one laptop (several simulated robots)
// listens on. With SO_REUSEADDR and SO_REUSEPORT set, each of them
// receives every broadcast datagram.
package udpshare

import (
	"context"
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// Listen listens on the UDP (IPv4) address addr, shared with the other
// processes that listen on it the same way.
func Listen(addr *net.UDPAddr) (*net.UDPConn, error) {
	lc := net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
			if serr == nil {
				serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
			}
		}); err != nil {
			return err
		}
		if serr != nil {
			return fmt.Errorf("udpshare: sharing the port: %w", serr)
		}
		return nil
	}}
	pc, err := lc.ListenPacket(context.Background(), "udp4", addr.String())
	if err != nil {
		return nil, err
	}
	return pc.(*net.UDPConn), nil
}
