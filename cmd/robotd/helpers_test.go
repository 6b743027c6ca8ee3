package main

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/msg"
)

// freePort returns a TCP port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// standState is what the daemon's blackboard says about standing.
type standState struct {
	Connected, Truth, Upright, Stand bool
	X, Y                             float64
}

func (s standState) ok() bool {
	return s.Connected && s.Truth && s.Upright && s.Stand && math.Hypot(s.X+2, s.Y) < 0.05
}

// readStand reads the daemon's blackboard snapshot.
func readStand(t *testing.T, url string) standState {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	var snap struct {
		Entries map[string]struct {
			Value json.RawMessage
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&snap); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	var gt struct {
		Valid bool
		Pose  struct{ X, Y float64 }
	}
	var body struct {
		Fall      int
		Connected bool
	}
	var ms struct {
		Active  int
		Settled bool
	}
	_ = json.Unmarshal(snap.Entries["hal.ground_truth"].Value, &gt)
	_ = json.Unmarshal(snap.Entries["perception.body"].Value, &body)
	_ = json.Unmarshal(snap.Entries["motion.state"].Value, &ms)
	return standState{
		Connected: body.Connected, Truth: gt.Valid, Upright: body.Fall == int(msg.Upright),
		Stand: ms.Active == int(msg.MotionStand) && ms.Settled, X: gt.Pose.X, Y: gt.Pose.Y,
	}
}

// scrape returns the value of the metric line starting with name.
func scrape(t *testing.T, url, name string) float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, name+" ") {
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(l, name)), 64)
			if err != nil {
				t.Fatalf("metric line %q: %v", l, err)
			}
			return v
		}
	}
	t.Fatalf("metric %s not in /metrics:\n%.2000s", name, body)
	return 0
}

// onlyInRealBuild skips a test in the sim build (-tags sim): for a test
// whose code under test is the same in both builds (no file of it is
// build-tagged), so that the sim build's run of it would repeat the
// default build's. why names what the sim build has of its own instead.
func onlyInRealBuild(t *testing.T, why string) {
	t.Helper()
	if buildName == "sim" {
		t.Skip("the default build's run covers this test (its code is the same in the sim build); " + why)
	}
}
