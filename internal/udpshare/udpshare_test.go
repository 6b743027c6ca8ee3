package udpshare

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

// TestSharedPortHearsBroadcasts opens one port twice, as two robotd on one
// machine do, and sends a broadcast to it: both listeners receive it.
func TestSharedPortHearsBroadcasts(t *testing.T) {
	a, err := Listen(&net.UDPAddr{Port: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	port := a.LocalAddr().(*net.UDPAddr).Port
	b, err := Listen(&net.UDPAddr{Port: port})
	if err != nil {
		t.Fatalf("the second listener on port %d: %v", port, err)
	}
	defer b.Close()
	// A plain listener is refused: the port is shared only by consent.
	if c, err := net.ListenUDP("udp4", &net.UDPAddr{Port: port}); err == nil {
		c.Close()
		t.Fatal("a plain listener got the shared port")
	}

	s, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	raw, err := s.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_BROADCAST, 1)
	}); err != nil {
		t.Fatal(err)
	}
	// The loopback network's broadcast address reaches every socket bound
	// to the port on this machine.
	dst := &net.UDPAddr{IP: net.IPv4(127, 255, 255, 255), Port: port}
	if _, err := s.WriteToUDP([]byte("hello"), dst); err != nil {
		t.Fatalf("broadcasting to %v: %v", dst, err)
	}
	for i, c := range []*net.UDPConn{a, b} {
		buf := make([]byte, 16)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, _, err := c.ReadFromUDP(buf)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("listener %d did not receive the broadcast", i)
		}
		if err != nil || string(buf[:n]) != "hello" {
			t.Fatalf("listener %d: %q, %v", i, buf[:n], err)
		}
	}
}
