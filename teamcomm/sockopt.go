package teamcomm

import (
	"fmt"
	"net"
	"syscall"
)

// setBroadcast allows sending to broadcast addresses.
func setBroadcast(conn *net.UDPConn) error {
	raw, err := conn.SyscallConn()
	if err != nil {
		return fmt.Errorf("teamcomm: socket: %w", err)
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_BROADCAST, 1)
	}); err != nil {
		return fmt.Errorf("teamcomm: socket: %w", err)
	}
	if serr != nil {
		return fmt.Errorf("teamcomm: enabling broadcast: %w", serr)
	}
	return nil
}
