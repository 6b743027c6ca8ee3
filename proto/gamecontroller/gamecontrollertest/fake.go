// Package gamecontrollertest has a fake GameController source for tests.
package gamecontrollertest

import (
	"net"
	"sync"
	"time"

	"github.com/robotd/robotd/proto/gamecontroller"
)

// Source is a fake gamecontroller.Source: Deliver hands it a packet as if
// it had arrived from a GameController at from.
type Source struct {
	mu    sync.Mutex
	data  gamecontroller.Data
	at    time.Time
	from  *net.UDPAddr
	have  bool
	stats gamecontroller.ClientStats
}

// Deliver takes packet d from from, counting it like a Client: a packet
// from another address than the previous one counts as a second source.
func (s *Source) Deliver(d gamecontroller.Data, from *net.UDPAddr) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.from != nil && !s.from.IP.Equal(from.IP) {
		s.stats.OtherSources++
	}
	s.data, s.at, s.from, s.have = d, time.Unix(0, 0), from, true
	s.stats.Packets++
}

// Latest implements gamecontroller.Source.
func (s *Source) Latest() (gamecontroller.Data, time.Time, *net.UDPAddr, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data, s.at, s.from, s.have
}

// Stats implements gamecontroller.Source.
func (s *Source) Stats() gamecontroller.ClientStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}
