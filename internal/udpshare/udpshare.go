// Package udpshare opens UDP ports that several processes on one machine
// can share: the GameController's and the team's broadcast ports, which
// every robotd of a team run on one laptop (several simulated robots)
// listens on. With SO_REUSEADDR and SO_REUSEPORT set, each of them
// receives every broadcast datagram.
package udpshare

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"

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

// Receive reads datagrams on conn into buf and hands each, with its
// sender, to handle, until ctx is done or conn is closed (then it returns
// nil) or a read fails (that error, wrapped with what). The end of ctx
// unblocks a waiting read by a read deadline in the past. The datagram
// handle gets is valid until it returns.
func Receive(ctx context.Context, conn *net.UDPConn, buf []byte, what string, handle func(d []byte, from netip.AddrPort)) error {
	stop := context.AfterFunc(ctx, func() { conn.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	for {
		n, from, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("%s: receiving: %w", what, err)
		}
		handle(buf[:n], from)
	}
}
