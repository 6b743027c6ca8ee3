package gamecontroller

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestSenderLayouts sends a game state from a Sender in each layout to
// two clients configured for that layout over real UDP: each client keeps
// the packet as sent (the fields both layouts carry).
func TestSenderLayouts(t *testing.T) {
	for _, layout := range []Layout{LayoutSPL, LayoutHSL} {
		t.Run(layout.String(), func(t *testing.T) {
			s, err := NewSender("127.0.0.1:0", layout)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			defer wg.Wait()
			defer cancel()
			var clients []*Client
			for player := uint8(1); player <= 2; player++ {
				c, err := NewClient(ClientConfig{Listen: "127.0.0.1:0", Team: 5, Player: player, Layout: layout}, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				wg.Go(func() { _ = c.Run(ctx) })
				s.AddDestination(c.Addr())
				clients = append(clients, c)
			}
			d := Data{Version: 18, PacketNumber: 7, PlayersPerTeam: 5, State: StatePlaying, SetPlay: SetPlayCornerKick,
				FirstHalf: true, KickingTeam: 6, SecsRemaining: 300, SecondaryTime: 30,
				Teams: [2]TeamInfo{{TeamNumber: 5, Goalkeeper: 1, Score: 2, MessageBudget: 1200}, {TeamNumber: 6, Goalkeeper: 1, Score: 1, MessageBudget: 1200}}}
			d.Teams[0].Players[2] = RobotInfo{Penalty: PenaltyLeavingTheField, SecsTillUnpenalised: 40}
			if err := s.Send(&d); err != nil {
				t.Fatal(err)
			}
			for _, c := range clients {
				deadline := time.Now().Add(5 * time.Second)
				for c.Stats().Packets == 0 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				got, _, from, ok := c.Latest()
				if !ok {
					t.Fatal("no packet arrived")
				}
				if from.Port != s.Addr().Port {
					t.Errorf("packet from %v, want the sender %v", from, s.Addr())
				}
				if got.State != d.State || got.SetPlay != d.SetPlay || got.KickingTeam != d.KickingTeam || got.SecsRemaining != d.SecsRemaining ||
					got.SecondaryTime != d.SecondaryTime || got.Teams[0].Score != 2 || got.Teams[1].Score != 1 ||
					got.Teams[0].Players[2] != d.Teams[0].Players[2] || got.FirstHalf != d.FirstHalf {
					t.Errorf("%v: got %+v, sent %+v", layout, got, d)
				}
			}
		})
	}
}
