package nao_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/backends/nao"
	"github.com/robotd/robotd/backends/nao/naotest"
	"github.com/robotd/robotd/proto/lola"
)

// Identify reads the body and head IDs from LoLA's first map; garbage or
// no LoLA is an error that says where.
func TestIdentify(t *testing.T) {
	dir, err := os.MkdirTemp("", "robotd")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sample, err := naotest.Sample()
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "robocup")
	startServer(t, sock, naotest.Options{})
	body, head, err := nao.Identify(context.Background(), sock, guard)
	if err != nil {
		t.Fatal(err)
	}
	if body != sample.RobotConfig[lola.ConfigBodyID].String() || head != sample.RobotConfig[lola.ConfigHeadID].String() || len(body) != 20 {
		t.Errorf("body %q head %q", body, head)
	}

	bad := filepath.Join(dir, "garbage")
	startServer(t, bad, naotest.Options{Raw: func(uint64) []byte { return []byte{0xc1, 0xc1, 0xc1} }})
	if _, _, err := nao.Identify(context.Background(), bad, guard); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("garbage: %v", err)
	}
	if _, _, err := nao.Identify(context.Background(), filepath.Join(dir, "none"), time.Second); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("no LoLA: %v", err)
	}
}
