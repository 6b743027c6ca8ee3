package gamecontroller

import (
	"errors"
	"fmt"
	"net"
)

// Sender is a simulated GameController's network side: it sends control
// packets in one layout (SPL or HSL) over UDP to a list of addresses, as
// the GameController broadcasts them to the robots. Each game of a
// simulation run gets its own sender and its robots their own ports, so
// games run side by side on one machine.
type Sender struct {
	conn   *net.UDPConn
	to     []*net.UDPAddr
	layout Layout
	buf    []byte
}

// NewSender opens a UDP socket on listen (e.g. "127.0.0.1:0") that sends
// packets in layout.
func NewSender(listen string, layout Layout) (*Sender, error) {
	addr, err := net.ResolveUDPAddr("udp4", listen)
	if err != nil {
		return nil, fmt.Errorf("gamecontroller: sender address %q: %w", listen, err)
	}
	conn, err := net.ListenUDP("udp4", addr)
	if err != nil {
		return nil, fmt.Errorf("gamecontroller: sender on %v: %w", addr, err)
	}
	return &Sender{conn: conn, layout: layout}, nil
}

// AddDestination adds an address every packet goes to.
func (s *Sender) AddDestination(to *net.UDPAddr) { s.to = append(s.to, to) }

// Addr returns the address packets come from.
func (s *Sender) Addr() *net.UDPAddr { return s.conn.LocalAddr().(*net.UDPAddr) }

// Send encodes d in the sender's layout and sends it to every destination.
func (s *Sender) Send(d *Data) error {
	s.buf = AppendLayout(s.buf[:0], d, s.layout)
	var errs []error
	for _, to := range s.to {
		if _, err := s.conn.WriteToUDP(s.buf, to); err != nil {
			errs = append(errs, fmt.Errorf("gamecontroller: sending to %v: %w", to, err))
		}
	}
	return errors.Join(errs...)
}

// Close closes the socket.
func (s *Sender) Close() error { return s.conn.Close() }
