package main

import (
	"strings"
	"testing"
)

func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // in the error; "" for none
	}{
		{[]string{"-h"}, ""},
		{[]string{"-cycle", "0s", "-agent-addr", "127.0.0.1:0", "-monitor-addr", ""}, "cycle"},
		{[]string{"-log-level", "loud"}, "log-level"},
		{[]string{"-bogus"}, "bogus"},
	} {
		err := run(c.args)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: error %v, want one about %q", c.args, err, c.want)
		}
	}
}
