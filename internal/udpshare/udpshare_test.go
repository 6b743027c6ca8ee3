package udpshare

import (
	"context"
	"errors"
	"net"
	"net/netip"
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

func TestReceive(t *testing.T) {
	conn, err := Listen(&net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- Receive(ctx, conn, make([]byte, 64), "test", func(d []byte, from netip.AddrPort) {
			got <- string(d) + " from " + from.Addr().String()
		})
	}()
	out, err := net.DialUDP("udp4", nil, conn.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := out.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "hello from 127.0.0.1" {
			t.Errorf("handled %q", s)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no datagram handled")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Receive after cancel: %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Receive did not return after cancel")
	}
}
