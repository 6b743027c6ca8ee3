package config

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

type setTestConfig struct {
	Walk struct {
		Speed float64  `json:"speed"`
		Name  string   `json:"name"`
		Scan  Duration `json:"scan"`
	} `json:"walk"`
	Pose [3]float64 `json:"pose"`
	On   bool       `json:"on"`
}

func setTestDefaults() setTestConfig {
	var c setTestConfig
	c.Walk.Speed, c.Walk.Name, c.Walk.Scan = 0.2, "2016", Duration(time.Second)
	c.Pose = [3]float64{1, 2, 3}
	return c
}

func TestSet(t *testing.T) {
	for _, tc := range []struct {
		kv    string
		check func(c setTestConfig) bool
		err   string
	}{
		{kv: "walk.speed=0.3", check: func(c setTestConfig) bool { return c.Walk.Speed == 0.3 }},
		{kv: "walk.name=2017", check: func(c setTestConfig) bool { return c.Walk.Name == "2017" }},
		{kv: `walk.name="x y"`, check: func(c setTestConfig) bool { return c.Walk.Name == "x y" }},
		{kv: "walk.scan=2.5s", check: func(c setTestConfig) bool { return c.Walk.Scan.D() == 2500*time.Millisecond }},
		{kv: "pose.1=7", check: func(c setTestConfig) bool { return c.Pose == [3]float64{1, 7, 3} }},
		{kv: "on=true", check: func(c setTestConfig) bool { return c.On }},
		{kv: "walk.nope=1", err: `no setting "walk.nope"`},
		{kv: "walk.speed=fast", err: "walk"},
		{kv: "pose.3=1", err: "want an index 0..2"},
		{kv: "on.x=1", err: "is a value, not a section"},
		{kv: "walk.speed", err: "want key=value"},
	} {
		c := setTestDefaults()
		err := Set(&c, tc.kv, setTestDefaults)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Set %q: error %v, want one with %q", tc.kv, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("Set %q: %v", tc.kv, err)
		case tc.err == "" && !tc.check(c):
			t.Errorf("Set %q: got %+v", tc.kv, c)
		}
	}
}

func TestLayerCarriesTheNamedSettings(t *testing.T) {
	changed := setTestDefaults()
	keys := []string{"walk.name", "pose.2", "walk.speed"}
	for _, kv := range []string{"walk.name=2017", "pose.2=9", "walk.speed=0.2"} { // the last as the default
		if err := Set(&changed, kv, setTestDefaults); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Layer(changed, keys)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"pose":[1,2,9],"walk":{"name":"2017","speed":0.2}}`; string(d) != want {
		t.Errorf("Layer = %s, want %s", d, want)
	}
	other := setTestDefaults()
	other.Walk.Speed, other.On = 0.5, true
	if err := Decode(bytes.NewReader(d), &other); err != nil {
		t.Fatal(err)
	}
	if other.Walk.Name != "2017" || other.Pose != changed.Pose || other.Walk.Speed != 0.2 || !other.On {
		t.Errorf("another configuration with the layer = %+v", other)
	}
	if _, err := Layer(changed, []string{"walk.nope"}); err == nil {
		t.Error("Layer of an unknown key: no error")
	}
}
