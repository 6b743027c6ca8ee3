//go:build !sim

package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// The default build without robot hardware refuses to start, clearly.
func TestRealBuildWithoutHardware(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, `{"real": {"lola_socket": "`+filepath.Join(dir, "robocup")+`", "serial_glob": "`+filepath.Join(dir, "tty*")+`"}}`)
	var errOut bytes.Buffer
	code := run(context.Background(), []string{"-config", cfg}, &bytes.Buffer{}, &errOut)
	if code != exitFailed || !strings.Contains(errOut.String(), "no robot hardware found") {
		t.Fatalf("exit %d, stderr %q; want exit 1 and 'no robot hardware found'", code, errOut.String())
	}
}
