package pacing

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/config"
)

func ms(n int) config.Duration { return config.Duration(time.Duration(n) * time.Millisecond) }

// validLink is a link every Spec below accepts but for the optional
// settings, which each case sets as its Spec has them.
func validLink() Link {
	return Link{Period: ms(10), ReadTimeout: ms(100), DeadTimeout: ms(2000), BackoffMin: ms(50), BackoffMax: ms(2000)}
}

func TestLinkValidate(t *testing.T) {
	nao := Spec{Name: "nao", Write: true, ReadCoversPeriod: true}
	sim := Spec{Name: "sim", Dial: true, Handshake: true, ReadCoversPeriod: true}
	robotino := Spec{Name: "robotino", Handshake: true}
	withOpt := func(s Spec, l Link) Link {
		if s.Dial {
			l.DialTimeout = ms(1000)
		}
		if s.Write {
			l.WriteTimeout = ms(50)
		}
		if s.Handshake {
			l.HandshakeTimeout = ms(1000)
		}
		return l
	}
	for _, tc := range []struct {
		name string
		spec Spec
		edit func(*Link)
		want []string // substrings of the error; none: valid
	}{
		{"nao valid", nao, func(*Link) {}, nil},
		{"sim valid", sim, func(*Link) {}, nil},
		{"robotino valid", robotino, func(*Link) {}, nil},
		{"zero period", robotino, func(l *Link) { l.Period = 0 }, []string{"robotino: period 0s must be positive"}},
		{"negative read", nao, func(l *Link) { l.ReadTimeout = -ms(1) }, []string{"nao: read_timeout -1ms must be positive"}},
		{"period below range", sim, func(l *Link) { l.Period = config.Duration(time.Microsecond) }, []string{"sim: period 1µs is outside 1ms..1s"}},
		{"period above range", sim, func(l *Link) { l.Period = ms(1001) }, []string{"period 1.001s is outside 1ms..1s"}},
		{"range ends included", sim, func(l *Link) {
			l.Period, l.ReadTimeout, l.DeadTimeout, l.HandshakeTimeout = ms(1), config.Duration(time.Minute), config.Duration(time.Hour), config.Duration(time.Hour)
		}, nil},
		{"read above range", robotino, func(l *Link) {
			l.ReadTimeout, l.DeadTimeout = config.Duration(time.Minute+1), config.Duration(time.Hour)
		}, []string{"read_timeout 1m0.000000001s is outside 1ms..1m0s"}},
		{"dead above range", nao, func(l *Link) { l.DeadTimeout = config.Duration(time.Hour + time.Second) }, []string{"dead_timeout 1h0m1s is outside 1ms..1h0m0s"}},
		{"write missing", nao, func(l *Link) { l.WriteTimeout = 0 }, []string{"nao: write_timeout 0s must be positive"}},
		{"handshake missing", sim, func(l *Link) { l.HandshakeTimeout = 0 }, []string{"sim: handshake_timeout 0s must be positive"}},
		{"dial not nao's", nao, func(l *Link) { l.DialTimeout = ms(5) }, []string{"nao: dial_timeout is not a nao setting"}},
		{"write not robotino's", robotino, func(l *Link) { l.WriteTimeout = ms(5) }, []string{"robotino: write_timeout is not a robotino setting"}},
		{"handshake not nao's", nao, func(l *Link) { l.HandshakeTimeout = ms(5) }, []string{"handshake_timeout is not a nao setting"}},
		{"backoff order", sim, func(l *Link) { l.BackoffMax = l.BackoffMin / 2 }, []string{"sim: backoff_max 25ms is below backoff_min 50ms"}},
		{"read below period", nao, func(l *Link) { l.ReadTimeout = l.Period / 2 }, []string{"nao: read_timeout 5ms is shorter than one period 10ms"}},
		{"read below period allowed", robotino, func(l *Link) { l.ReadTimeout = l.Period / 2 }, nil},
		{"dead below read", robotino, func(l *Link) { l.DeadTimeout = ms(50) }, []string{"robotino: dead_timeout 50ms is shorter than read_timeout 100ms"}},
		{"every problem", nao, func(l *Link) { l.Period, l.BackoffMin = 0, ms(3000) }, []string{"period 0s must be positive", "backoff_max 2s is below backoff_min 3s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := withOpt(tc.spec, validLink())
			tc.edit(&l)
			err := l.Validate(tc.spec)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate: nil, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate: %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

// TestLinkJSON: the keys come in the fields' order, and a backend's link
// without an optional setting has no key for it.
func TestLinkJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Link)
		want string
	}{
		{"common", func(*Link) {},
			`{"period":"10ms","read_timeout":"100ms","dead_timeout":"2s","backoff_min":"50ms","backoff_max":"2s"}`},
		{"nao", func(l *Link) { l.WriteTimeout = ms(50) },
			`{"period":"10ms","read_timeout":"100ms","dead_timeout":"2s","write_timeout":"50ms","backoff_min":"50ms","backoff_max":"2s"}`},
		{"sim", func(l *Link) { l.DialTimeout, l.HandshakeTimeout = ms(1000), ms(5000) },
			`{"period":"10ms","dial_timeout":"1s","read_timeout":"100ms","dead_timeout":"2s","handshake_timeout":"5s","backoff_min":"50ms","backoff_max":"2s"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := validLink()
			tc.edit(&l)
			b, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("JSON\n%s\nwant\n%s", b, tc.want)
			}
			var back Link
			if err := json.Unmarshal(b, &back); err != nil || back != l {
				t.Errorf("decoded %+v, %v; want %+v", back, err, l)
			}
		})
	}
}

func TestLinkBackoff(t *testing.T) {
	b := validLink().Backoff()
	if b.Min != 50*time.Millisecond || b.Max != 2*time.Second {
		t.Errorf("Backoff %+v: want 50ms..2s", b)
	}
}
