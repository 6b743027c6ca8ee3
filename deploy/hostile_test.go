package deploy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robotd/robotd/deploy/deploytest"
)

// The tests here run robotd deploy, pull and logs against a hostile robot:
// an in-process SSH server (deploytest.Hostile) whose SFTP listings, files
// and command output the test writes. Each is bounded by a short timeout.

// recordings is where a NAO's recordings are, by the default deploy file.
const recordings = "/home/nao/robotd/current/recordings"

// hostileConfig is a deploy file for one robot on h.
func hostileConfig(t *testing.T, h *deploytest.Hostile) (*Config, *Target) {
	t.Helper()
	c := DefaultConfig()
	c.DialTimeout = 5e9
	c.HealthTimeout = 2e9
	c.Robots = []Target{{Name: "nao21", Host: h.Addr, User: h.User, Key: h.Key, KnownHosts: h.KnownHosts}}
	dir := t.TempDir()
	c.Binary = filepath.Join(dir, "robotd")
	c.Config = filepath.Join(dir, "robotd.json")
	for _, f := range []string{c.Binary, c.Config} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	ts, err := c.Targets()
	if err != nil {
		t.Fatal(err)
	}
	return &c, &ts[0]
}

// dirStat says every path is a directory.
func dirStat(p string) (os.FileInfo, error) {
	return deploytest.Entry{EntryName: path.Base(p), Dir: true}, nil
}

// files lists what is under dir, relative to it.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// errLines splits a joined error into its lines.
func errLines(err error) []string {
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}

// TestPullStaysUnderOut: a robot lists names that are not file names
// ("x/..", which pkg/sftp turns into "..", "a/b", "", NUL, an escape
// sequence) next to a good file. Each is refused on a line of its own that
// names it, nothing lands outside -out/nao21 and the good file is fetched.
func TestPullStaysUnderOut(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := deploytest.StartHostile(t, t.TempDir(), deploytest.HostileFS{
		Stat: dirStat,
		List: func(dir string) ([]os.FileInfo, error) {
			if dir == recordings {
				return []os.FileInfo{
					deploytest.Entry{EntryName: "x/..", Dir: true},
					deploytest.Entry{EntryName: "ok.rec", EntrySize: 5},
					deploytest.Entry{EntryName: "a/b", EntrySize: 5},
					deploytest.Entry{EntryName: "", Dir: true},
					deploytest.Entry{EntryName: "x/.", Dir: true},
					deploytest.Entry{EntryName: "\x00.rec", EntrySize: 5},
					deploytest.Entry{EntryName: "\x1b[2J.rec", EntrySize: 5},
				}, nil
			}
			// Every directory above: a file to plant, and a way further up.
			return []os.FileInfo{
				deploytest.Entry{EntryName: "evil.rec", EntrySize: 5},
				deploytest.Entry{EntryName: "x/..", Dir: true},
			}, nil
		},
		Open: func(string) (io.ReaderAt, error) { return strings.NewReader("hello"), nil },
	})
	c, tg := hostileConfig(t, h)
	top := t.TempDir()
	out := filepath.Join(top, "out")
	got, err := Pull(ctx, c, tg, out)
	if want := filepath.Join(out, "nao21", "ok.rec"); len(got) != 1 || got[0] != want {
		t.Errorf("fetched %q, want %q", got, want)
	}
	if fs := files(t, top); len(fs) != 1 || fs[0] != filepath.Join("out", "nao21", "ok.rec") {
		t.Errorf("files written: %q", fs)
	}
	lines := errLines(err)
	for _, name := range []string{`"x/.."`, `"a/b"`, `""`, `"x/."`, `"\x00.rec"`, `"\x1b[2J.rec"`} {
		found := false
		for _, l := range lines {
			found = found || (strings.HasPrefix(l, "nao21: refused an entry of "+recordings+": the name "+name))
		}
		if !found {
			t.Errorf("no line refuses %s:\n%v", name, err)
		}
	}
	if len(lines) != 6 {
		t.Errorf("%d lines, want 6 refusals:\n%v", len(lines), err)
	}
	if n := h.Listings.Load(); n != 1 {
		t.Errorf("%d listings, want 1", n)
	}
}

// TestPullLimits: a robot whose files never end, are larger than the
// limit or shorter than listed, whose directories nest without end, list
// too many entries or add up to too much, or whose reads return no data.
func TestPullLimits(t *testing.T) {
	lim := PullLimits{MaxFileBytes: 1 << 20, MaxTotalBytes: 4 << 20, MaxDepth: 3, MaxEntries: 100}
	pull := func(t *testing.T, fs deploytest.HostileFS, lim PullLimits) (*deploytest.Hostile, string, []string, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		fs.Stat = dirStat
		h := deploytest.StartHostile(t, t.TempDir(), fs)
		c, tg := hostileConfig(t, h)
		c.Pull = lim
		out := t.TempDir()
		start := time.Now()
		got, err := Pull(ctx, c, tg, out)
		if ctx.Err() != nil {
			t.Fatalf("the pull ran into its 10 s timeout: %v", err)
		}
		t.Logf("pull: %s, %d listings, %d bytes sent\n%v", time.Since(start).Round(time.Millisecond), h.Listings.Load(), h.Served.Load(), err)
		for _, f := range files(t, out) {
			if strings.HasSuffix(f, ".part") {
				t.Errorf("%s left behind", f)
			}
		}
		return h, filepath.Join(out, "nao21"), got, err
	}
	hasLine := func(t *testing.T, err error, want string) {
		t.Helper()
		for _, l := range errLines(err) {
			if strings.Contains(l, want) {
				return
			}
		}
		t.Errorf("no line says %q:\n%v", want, err)
	}

	t.Run("files", func(t *testing.T) {
		h, out, got, err := pull(t, deploytest.HostileFS{
			List: func(dir string) ([]os.FileInfo, error) {
				switch path.Base(dir) {
				case "recordings":
					return []os.FileInfo{
						deploytest.Entry{EntryName: "endless.rec", EntrySize: 1000},
						deploytest.Entry{EntryName: "huge.rec", EntrySize: 10 << 30},
						deploytest.Entry{EntryName: "short.rec", EntrySize: 1000},
						deploytest.Entry{EntryName: "d", Dir: true},
					}, nil
				}
				return []os.FileInfo{deploytest.Entry{EntryName: "d", Dir: true}}, nil
			},
			Open: func(p string) (io.ReaderAt, error) {
				switch path.Base(p) {
				case "short.rec":
					return shortFile(10), nil
				}
				return deploytest.Endless('x'), nil
			},
		}, lim)
		if len(got) != 1 {
			t.Errorf("fetched %q, want endless.rec", got)
		}
		if st, err := os.Stat(filepath.Join(out, "endless.rec")); err != nil || st.Size() != 1000 {
			t.Errorf("endless.rec: %v, %v: want its 1000 listed bytes", st, err)
		}
		if n := h.Served.Load(); n > 1<<20 {
			t.Errorf("the robot sent %d bytes", n)
		}
		hasLine(t, err, "nao21: refused "+recordings+"/huge.rec: 10737418240 bytes, more than pull.max_file_bytes (1048576)")
		hasLine(t, err, "nao21: refused "+recordings+"/short.rec: the robot sent 10 of the 1000 bytes it listed")
		hasLine(t, err, "nao21: refused the directory "+recordings+"/d/d/d/d: deeper than pull.max_depth (3)")
		if _, err := os.Stat(filepath.Join(out, "short.rec")); !os.IsNotExist(err) {
			t.Errorf("short.rec: %v", err)
		}
		if n := h.Listings.Load(); n != 4 {
			t.Errorf("%d listings, want 4 (the recordings and d three deep)", n)
		}
	})
	t.Run("entries", func(t *testing.T) {
		many := make([]os.FileInfo, 1000)
		for i := range many {
			many[i] = deploytest.Entry{EntryName: "d", Dir: true}
		}
		h, _, _, err := pull(t, deploytest.HostileFS{
			List: func(string) ([]os.FileInfo, error) { return many, nil },
		}, lim)
		hasLine(t, err, "the robot listed more than 100 entries (pull.max_entries)")
		if n := h.Listings.Load(); n != 1 {
			t.Errorf("%d listings, want 1", n)
		}
	})
	t.Run("total", func(t *testing.T) {
		var five []os.FileInfo
		for _, n := range []string{"1.rec", "2.rec", "3.rec", "4.rec", "5.rec"} {
			five = append(five, deploytest.Entry{EntryName: n, EntrySize: 900 << 10})
		}
		_, out, got, err := pull(t, deploytest.HostileFS{
			List: func(string) ([]os.FileInfo, error) { return five, nil },
			Open: func(string) (io.ReaderAt, error) { return deploytest.Endless('y'), nil },
		}, lim)
		if len(got) != 4 || len(files(t, out)) != 4 {
			t.Errorf("fetched %q, want four files of 900 KiB within 4 MiB", got)
		}
		hasLine(t, err, "nao21: "+recordings+"/5.rec (921600 bytes) would take the pull past pull.max_total_bytes (3686400 bytes fetched of 4194304): stopped")
	})
	t.Run("empty reads", func(t *testing.T) {
		_, out, got, err := pull(t, deploytest.HostileFS{
			List: func(string) ([]os.FileInfo, error) {
				return []os.FileInfo{deploytest.Entry{EntryName: "stall.rec", EntrySize: 1000}}, nil
			},
			Open: func(string) (io.ReaderAt, error) { return nothing{}, nil },
		}, lim)
		hasLine(t, err, "the robot answered a read with an empty SSH_FXP_DATA")
		if len(got) != 0 || len(files(t, out)) != 0 {
			t.Errorf("fetched %q", got)
		}
	})
}

// nothing answers every read with no bytes and no error.
type nothing struct{}

func (nothing) ReadAt([]byte, int64) (int, error) { return 0, nil }

// TestDryRunBoundedReads: a robot whose unit file or MANIFEST never ends.
// The dry run reads a bounded amount and says why it stopped.
func TestDryRunBoundedReads(t *testing.T) {
	const current = "v0123456789ab"
	for _, tc := range []struct {
		name, endless, want string
		fails               bool
	}{
		{"unit", "/etc/systemd/system/robotd.service", "the installed unit: /etc/systemd/system/robotd.service is larger than 64.0 KiB", true},
		{"manifest", "/home/nao/robotd/versions/" + current + "/MANIFEST", "current " + current + " is not trusted, nothing is reused from it: /home/nao/robotd/versions/" + current + "/MANIFEST is larger than 1.0 MiB", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			h := deploytest.StartHostile(t, t.TempDir(), deploytest.HostileFS{
				ReadLink: func(p string) (string, error) {
					if p == "/home/nao/robotd/current" {
						return "versions/" + current, nil
					}
					return "", os.ErrNotExist
				},
				Open: func(p string) (io.ReaderAt, error) {
					if p == tc.endless {
						return deploytest.Endless('#'), nil
					}
					return nil, os.ErrNotExist
				},
			})
			c, tg := hostileConfig(t, h)
			var out bytes.Buffer
			rs := Deploy(ctx, c, []Target{*tg}, Options{DryRun: true, Out: &out})
			if ctx.Err() != nil {
				t.Fatalf("the dry run ran into its timeout: %v", rs[0].Err)
			}
			if tc.fails {
				if err := rs[0].Err; err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("dry run: %v, want one line saying %q", err, tc.want)
				}
			} else if rs[0].Err != nil || !strings.Contains(out.String(), tc.want) || !strings.Contains(out.String(), "+ robotd\n") {
				t.Errorf("dry run: %v, want it to say %q and install everything:\n%s", rs[0].Err, tc.want, out.String())
			}
			if n := h.Served.Load(); n > 4<<20 {
				t.Errorf("read %d bytes of the robot's file", n)
			}
		})
	}
}

// TestLogsEscapesControlCharacters: the robot's journal holds terminal
// escape sequences, a carriage return, bytes that are not UTF-8 and a
// right-to-left override; robotd logs shows them escaped.
func TestLogsEscapesControlCharacters(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := deploytest.StartHostile(t, t.TempDir(), deploytest.HostileFS{
		Exec: func(cmd string, w io.Writer) uint32 {
			if cmd != "journalctl -o short-precise -fu robotd.service" {
				return 127
			}
			io.WriteString(w, "robotd running\x1b]0;pwned\x07\x1b[2J\rover\ttab\n\xff\xfe \u202eevil\u00e9\xe2")
			io.WriteString(w, "\x82\xac\n")
			return 0
		},
	})
	c, tg := hostileConfig(t, h)
	var out bytes.Buffer
	if err := Logs(ctx, c, tg, &out); err != nil {
		t.Fatal(err)
	}
	want := `robotd running\x1b]0;pwned\x07\x1b[2J\x0dover` + "\ttab\n" + `\xff\xfe \u202eevil` + "é€\n"
	if out.String() != want {
		t.Errorf("logs:\n%q\nwant\n%q", out.String(), want)
	}
}

// TestHostKeyOverride: insecure_ignore_host_key true in the defaults, an
// explicit false on one robot: that robot's host key is checked (and
// refused: it is not in the known_hosts file), the other's is not.
func TestHostKeyOverride(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := deploytest.StartHostile(t, t.TempDir(), deploytest.HostileFS{})
	c, _ := hostileConfig(t, h)
	empty := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	c.Defaults.InsecureIgnoreHostKey = &yes
	c.Robots[0].KnownHosts = empty
	c.Robots[0].InsecureIgnoreHostKey = &no
	lax := c.Robots[0]
	lax.Name, lax.InsecureIgnoreHostKey = "nao22", nil
	c.Robots = append(c.Robots, lax)
	ts, err := c.Targets()
	if err != nil {
		t.Fatal(err)
	}
	rs := Deploy(ctx, c, ts, Options{DryRun: true})
	if err := rs[0].Err; err == nil || !strings.Contains(err.Error(), "nao21: host key of "+h.Addr+" is not in "+empty) {
		t.Errorf("the robot with insecure_ignore_host_key false: %v", err)
	}
	if err := rs[1].Err; err != nil {
		t.Errorf("the robot with the default (true): %v", err)
	}
}

// TestRemoteSumsOverSFTP: a robot without sha256sum (exit status 127); the
// files are hashed over SFTP, and a changed one is found.
func TestRemoteSumsOverSFTP(t *testing.T) {
	content := map[string]string{"/v/robotd": "binary", "/v/robotd.json": "{}\n"}
	h := deploytest.StartHostile(t, t.TempDir(), deploytest.HostileFS{
		Stat: func(p string) (os.FileInfo, error) {
			if c, ok := content[p]; ok {
				return deploytest.Entry{EntryName: path.Base(p), EntrySize: int64(len(c))}, nil
			}
			return nil, os.ErrNotExist
		},
		Open: func(p string) (io.ReaderAt, error) { return strings.NewReader(content[p]), nil },
	})
	_, tg := hostileConfig(t, h)
	cn, err := dial(context.Background(), tg, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close()
	sum := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return hex.EncodeToString(h[:])
	}
	want := []file{
		{Name: "robotd", Mode: 0o644, Size: 6, SHA256: sum("binary")},
		{Name: "robotd.json", Mode: 0o644, Size: 3, SHA256: sum("[]\n")},
		{Name: "models/x", Mode: 0o644, Size: 1, SHA256: sum("x")},
	}
	bad, err := verifyFiles(cn, "/v", want)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 2 || bad["robotd.json"] != "SHA-256 differs from the MANIFEST" || bad["models/x"] != "missing" {
		t.Errorf("verify: %q", bad)
	}
}
