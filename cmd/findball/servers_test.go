package main

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/robotd/robotd/simrun"
)

// TestParseServers: -server and $ROBOTD_SIMSPARK name one server or
// several, separated by ';' and (the flag) repeated; a malformed entry or
// a port two entries share is refused, naming the entry.
func TestParseServers(t *testing.T) {
	tg := func(agent, trainer string) simrun.Target { return simrun.Target{Agent: agent, Trainer: trainer} }
	for _, tc := range []struct {
		name   string
		values []string
		want   []simrun.Target
		err    string // the error contains it
	}{
		{name: "none", values: nil},
		{name: "empty", values: []string{""}},
		{name: "one", values: []string{"127.0.0.1:3100,127.0.0.1:3200"}, want: []simrun.Target{tg("127.0.0.1:3100", "127.0.0.1:3200")}},
		{name: "two in one value", values: []string{"127.0.0.1:3100,127.0.0.1:3200;127.0.0.1:3110,127.0.0.1:3210"},
			want: []simrun.Target{tg("127.0.0.1:3100", "127.0.0.1:3200"), tg("127.0.0.1:3110", "127.0.0.1:3210")}},
		{name: "repeated, spaces and empty entries", values: []string{" a:3100 , a:3200 ;", "b:3100,b:3200;;a:3110,a:3210"},
			want: []simrun.Target{tg("a:3100", "a:3200"), tg("b:3100", "b:3200"), tg("a:3110", "a:3210")}},
		{name: "no trainer", values: []string{"127.0.0.1:3100,127.0.0.1:3200;127.0.0.1:3110"}, err: `server 2 ("127.0.0.1:3110")`},
		{name: "no port", values: []string{"127.0.0.1,127.0.0.1:3200"}, err: `server 1 ("127.0.0.1,127.0.0.1:3200")`},
		{name: "bad port", values: []string{"h:3100,h:32x0"}, err: `server 1 ("h:3100,h:32x0"): trainer port "32x0" is not a port number`},
		{name: "port 0", values: []string{"h:0,h:3200"}, err: `agent port "0"`},
		{name: "one port for both", values: []string{"h:3100,h:3100"}, err: `server 1 ("h:3100,h:3100"): its trainer port h:3100 is server 1's agent port too`},
		{name: "two servers on one port", values: []string{"127.0.0.1:3100,127.0.0.1:3200", "localhost:3110,localhost:3200"},
			err: `server 2 ("localhost:3110,localhost:3200"): its trainer port localhost:3200 is server 1's trainer port too`},
		{name: "the same server twice", values: []string{"h:3100,h:3200;h:3100,h:3200"}, err: "server 2"},
		{name: "one port on two hosts", values: []string{"a:3100,a:3200;b:3100,b:3200"}, want: []simrun.Target{tg("a:3100", "a:3200"), tg("b:3100", "b:3200")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseServers("-server", tc.values)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "-server: ") {
					t.Fatalf("error %v, want one from -server with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("servers %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestServerFlagSource: findball run reads $ROBOTD_SIMSPARK unless
// -server is given (an empty -server: the embedded simulator), and says
// which of them held a malformed entry.
func TestServerFlagSource(t *testing.T) {
	const bad = "127.0.0.1:3100,127.0.0.1:3200;nonsense"
	for _, tc := range []struct {
		name string
		args []string
		env  string
		err  string
	}{
		{name: "environment", env: bad, err: "$" + simrun.EnvVar + `: server 2 ("nonsense")`},
		{name: "flag", args: []string{"-server", bad}, env: "127.0.0.1:3100,127.0.0.1:3200", err: `-server: server 2 ("nonsense")`},
		{name: "repeated flag", args: []string{"-server", "127.0.0.1:3100,127.0.0.1:3200", "-server", "127.0.0.1:3100,127.0.0.1:3210"},
			err: `-server: server 2 ("127.0.0.1:3100,127.0.0.1:3210"): its agent port 127.0.0.1:3100 is server 1's agent port too`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "-db", filepath.Join(t.TempDir(), "x.db")}, tc.args...)
			err := run(context.Background(), args, &bytes.Buffer{}, &bytes.Buffer{}, env(map[string]string{simrun.EnvVar: tc.env}))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one with %q", err, tc.err)
			}
		})
	}
}
