package deploy

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pkg/sftp"

	"github.com/robotd/robotd/deploy/deploytest"
)

// parseUnit reads a unit file the way systemd reads the lines robotd deploy
// writes (systemd.syntax(7)): "[Section]" headers, comments starting with
// '#' or ';', "Key=Value" with whitespace around key and value stripped.
// A line continued with a trailing backslash is an error: the writer never
// makes one. The result maps "Section.Key" to its values in order.
func parseUnit(s string) (map[string][]string, error) {
	m := map[string][]string{}
	section := ""
	for i, line := range strings.Split(s, "\n") {
		l := strings.Trim(line, " \t")
		switch {
		case l == "" || l[0] == '#' || l[0] == ';':
			continue
		case strings.HasSuffix(l, `\`):
			return nil, fmt.Errorf("line %d: %q continues on the next line", i+1, line)
		case l[0] == '[' && l[len(l)-1] == ']':
			section = l[1 : len(l)-1]
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not Key=Value", i+1, line)
		}
		key := section + "." + strings.Trim(k, " \t")
		m[key] = append(m[key], strings.Trim(v, " \t"))
	}
	return m, nil
}

// execWords splits an Exec*= command line into its words as systemd does:
// words separated by whitespace, a word wrapped in double or single quotes,
// C-style escapes (systemd.syntax(7), "Quoting"), then specifiers ("%%" is
// "%"; any other specifier is an error here) and "$" ("$$" is "$"; "$NAME"
// and "${NAME}" would be expanded, an error here; systemd.service(5),
// "Command lines").
func execWords(v string) ([]string, error) {
	var words []string
	i := 0
	for {
		for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
			i++
		}
		if i == len(v) {
			return words, nil
		}
		var w []byte
		var quote byte
		if v[i] == '"' || v[i] == '\'' {
			quote = v[i]
			i++
		}
		for {
			if i == len(v) {
				if quote != 0 {
					return nil, fmt.Errorf("%q: an unterminated quote", v)
				}
				break
			}
			c := v[i]
			if quote == 0 && (c == ' ' || c == '\t') {
				break
			}
			if quote != 0 && c == quote {
				i++
				if i < len(v) && v[i] != ' ' && v[i] != '\t' {
					return nil, fmt.Errorf("%q: text after a closing quote", v)
				}
				break
			}
			if c == '\\' {
				if i+1 == len(v) {
					return nil, fmt.Errorf("%q: a trailing backslash", v)
				}
				e, ok := map[byte]byte{'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v', '\\': '\\', '"': '"', '\'': '\'', 's': ' '}[v[i+1]]
				if !ok {
					return nil, fmt.Errorf("%q: the escape \\%c", v, v[i+1])
				}
				w = append(w, e)
				i += 2
				continue
			}
			w = append(w, c)
			i++
		}
		word, err := resolveWord(string(w))
		if err != nil {
			return nil, err
		}
		words = append(words, word)
	}
}

// resolveWord resolves "%%" and "$$" in an Exec word.
func resolveWord(w string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c == '%':
			if i+1 == len(w) || w[i+1] != '%' {
				return "", fmt.Errorf("%q: a specifier", w)
			}
			b.WriteByte('%')
			i++
		case c == '$' && i+1 < len(w) && w[i+1] == '$':
			b.WriteByte('$')
			i++
		case c == '$' && i+1 < len(w) && (w[i+1] == '{' || w[i+1] == '_' || w[i+1] >= 'a' && w[i+1] <= 'z' || w[i+1] >= 'A' && w[i+1] <= 'Z'):
			return "", fmt.Errorf("%q: an environment variable", w)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// resolvePath resolves "%%" in a path setting (WorkingDirectory=).
func resolvePath(v string) (string, error) {
	if strings.Contains(strings.ReplaceAll(v, "%%", ""), "%") {
		return "", fmt.Errorf("%q: a specifier", v)
	}
	return strings.ReplaceAll(v, "%%", "%"), nil
}

// unitSettings are the settings unitFile writes, each once.
var unitSettings = []string{
	"Unit.Description", "Unit.Wants", "Unit.After",
	"Service.Type", "Service.WorkingDirectory", "Service.ExecStartPre", "Service.TimeoutStartSec",
	"Service.ExecStart", "Service.KillSignal", "Service.TimeoutStopSec", "Service.Restart", "Service.RestartSec",
	"Install.WantedBy",
}

// checkUnit fails unless unit, read as systemd reads it, has exactly the
// settings unitFile writes, runs robotd from t's directory and waits for
// t.WaitFor with the fixed script.
func checkUnit(t *testing.T, tg *Target, unit string) {
	t.Helper()
	m, err := parseUnit(unit)
	if err != nil {
		t.Fatalf("%v in\n%s", err, unit)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
	if want := slices.Sorted(slices.Values(unitSettings)); !slices.Equal(keys, want) {
		t.Fatalf("settings %q, want %q in\n%s", keys, want, unit)
	}
	for k, v := range m {
		if len(v) != 1 {
			t.Fatalf("%s given %d times in\n%s", k, len(v), unit)
		}
	}
	cur := path.Join(tg.remote(tg.Dir), "current")
	if wd, err := resolvePath(m["Service.WorkingDirectory"][0]); err != nil || wd != cur {
		t.Fatalf("WorkingDirectory %q (%v), want %q", wd, err, cur)
	}
	pre, err := execWords(m["Service.ExecStartPre"][0])
	if want := []string{"/bin/sh", "-c", waitScript, waitArg0, tg.WaitFor}; err != nil || !slices.Equal(pre, want) {
		t.Fatalf("ExecStartPre %q (%v), want %q", pre, err, want)
	}
	start, err := execWords(m["Service.ExecStart"][0])
	if want := []string{cur + "/robotd", "-config", cur + "/robotd.json"}; err != nil || !slices.Equal(start, want) {
		t.Fatalf("ExecStart %q (%v), want %q", start, err, want)
	}
}

// FuzzUnitFile writes units for any directory, prefix and wait_for: either
// unitFile refuses them with a one-line error, or systemd reads back
// exactly the values given, and nothing else.
func FuzzUnitFile(f *testing.F) {
	f.Add("/home/nao/robotd", "", "/tmp/robocup", false)
	f.Add("/home/nao/my robotd", "/tmp/t 1", "/dev/ttyACM0", true)
	f.Add("/home/nao/robotd\nExecStartPost=/bin/touch /tmp/pwned", "", "/tmp/robocup", false)
	f.Add("/home/nao/100%h", "/x$y", `/tmp/x$(touch /tmp/pwned)"'`, false)
	f.Add("/a;b", "/p\\q", "/w\tx", false)
	f.Add("/a/../b", "rel", "/tmp/ok", false)
	f.Fuzz(func(t *testing.T, dir, prefix, waitFor string, robotino bool) {
		tg := Target{Dir: dir, Prefix: prefix, WaitFor: waitFor, Kind: KindNAO}
		if robotino {
			tg.Kind = KindRobotino
		}
		unit, err := unitFile(&tg)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a multi-line error: %v", err)
			}
			return
		}
		for _, check := range []error{checkPrefix("prefix", prefix), checkAbsPath("dir", dir), checkAbsPath("wait_for", waitFor)} {
			if check != nil {
				t.Fatalf("unitFile took what Validate refuses: %v", check)
			}
		}
		checkUnit(t, &tg, unit)
	})
}

// pipeConn is a conn whose SFTP session reaches fs through an in-memory
// pipe (no SSH), with the tap in between as dial sets it up.
func pipeConn(tb testing.TB, fs deploytest.HostileFS, stats *deploytest.Stats) *conn {
	tb.Helper()
	a, b := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		deploytest.ServeSFTP(b, fs, stats)
	}()
	tap := newSFTPTap()
	client, err := sftp.NewClientPipe(tap.reader(a), tap.writer(a))
	if err != nil {
		a.Close()
		b.Close()
		<-done
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		client.Close()
		a.Close()
		b.Close()
		<-done
	})
	return &conn{sftp: client, tap: tap}
}

// shortFile serves n bytes, then EOF.
type shortFile int64

func (s shortFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(s) {
		return 0, io.EOF
	}
	n := min(int64(len(p)), int64(s)-off)
	clear(p[:n])
	if off+n >= int64(s) {
		return int(n), io.EOF
	}
	return int(n), nil
}

// treeFS lists the same entries in every directory: names split at '|',
// entry i a directory if bit i of dirs is set; every file claims size
// bytes and sends them (or half of them if short) or, if endless, never
// stops.
func treeFS(names string, dirs uint64, size int64, short, endless bool) deploytest.HostileFS {
	var entries []os.FileInfo
	for i, n := range strings.SplitN(names, "|", 16) {
		entries = append(entries, deploytest.Entry{EntryName: n, EntrySize: size, Dir: dirs&(1<<i) != 0})
	}
	return deploytest.HostileFS{
		List: func(string) ([]os.FileInfo, error) { return entries, nil },
		Stat: func(p string) (os.FileInfo, error) {
			return deploytest.Entry{EntryName: path.Base(p), Dir: true}, nil
		},
		Open: func(string) (io.ReaderAt, error) {
			switch {
			case endless:
				return deploytest.Endless('x'), nil
			case short:
				return shortFile(size / 2), nil
			}
			return shortFile(size), nil
		},
	}
}

// FuzzPullWalk pulls from a robot that lists any names (as sent, '/', NUL
// and "" included) in every directory, and checks that nothing is written
// outside the pull's directory, no .part is left, the walk ends within its
// limits and every refusal is one line.
func FuzzPullWalk(f *testing.F) {
	f.Add("ok.rec|x/..|a/b||.|..|\x00|d|x/.", uint64(1<<1|1<<7|1<<8), uint16(100), false, false)
	f.Add("d", uint64(1), uint16(10), false, false)
	f.Add("../../../../etc/passwd|..\\x|\x1b[2J", uint64(0), uint16(1000), true, false)
	f.Add("endless.rec", uint64(0), uint16(1000), false, true)
	f.Fuzz(func(t *testing.T, names string, dirs uint64, size uint16, short, endless bool) {
		stats := &deploytest.Stats{}
		c := pipeConn(t, treeFS(names, dirs, int64(size), short, endless), stats)
		top := t.TempDir()
		out := filepath.Join(top, "out", "nao1")
		lim := PullLimits{MaxFileBytes: 1 << 20, MaxTotalBytes: 4 << 20, MaxDepth: 2, MaxEntries: 64}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		got, refused, err := pullTree(ctx, c, "/rec", out, lim)
		if ctx.Err() != nil {
			t.Fatalf("the pull did not end within its limits: %v", err)
		}
		for _, e := range append(refused, err) {
			if e != nil && strings.Contains(e.Error(), "\n") {
				t.Fatalf("a multi-line error: %v", e)
			}
		}
		if n := stats.Listings.Load(); n > int64(lim.MaxEntries)+1 {
			t.Fatalf("%d listings for at most %d entries", n, lim.MaxEntries)
		}
		if n := stats.Served.Load(); n > 2*lim.MaxTotalBytes+int64(len(names)+1)*(64<<10) {
			t.Fatalf("the robot sent %d bytes", n)
		}
		err = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != out && !strings.HasPrefix(p, out+string(filepath.Separator)) && !strings.HasPrefix(out, p+string(filepath.Separator)) && p != top {
				return fmt.Errorf("%q written outside %s", p, out)
			}
			if strings.HasSuffix(p, ".part") {
				return fmt.Errorf("%q left behind", p)
			}
			if d.Type().IsRegular() {
				st, err := d.Info()
				if err != nil {
					return err
				}
				if st.Size() != int64(size) {
					return fmt.Errorf("%q has %d bytes, the robot listed %d", p, st.Size(), size)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range got {
			if _, err := os.Stat(g); err != nil {
				t.Fatalf("reported %q: %v", g, err)
			}
		}
	})
}

// TestPipeConnListsRawNames checks the tap against pkg/sftp's ReadDir: the
// names as sent pair up with its entries.
func TestPipeConnListsRawNames(t *testing.T) {
	c := pipeConn(t, treeFS("a|x/..|.|..||b/c|\x00", 0, 1, false, false), &deploytest.Stats{})
	entries, names, err := c.readDir(context.Background(), "/rec", 100)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "x/..", "", "b/c", "\x00"}; !slices.Equal(names, want) || len(entries) != len(want) {
		t.Fatalf("names %q (%d entries), want %q", names, len(entries), want)
	}
	// pkg/sftp's own names hide what was sent.
	var base []string
	for _, e := range entries {
		base = append(base, e.Name())
	}
	if want := []string{"a", "..", ".", "c", "\x00"}; !slices.Equal(base, want) {
		t.Logf("pkg/sftp's names %q (this test assumes %q)", base, want)
	}
	_, _, err = c.readDir(context.Background(), "/rec", 3)
	if err == nil || !strings.Contains(err.Error(), "more than 3 entries") {
		t.Fatalf("a listing past its budget: %v", err)
	}
	if c.tap.cut() == nil {
		t.Fatalf("the stream was not cut: %v", err)
	}
	if _, _, err := c.readDir(context.Background(), "/rec", 100); err == nil {
		t.Fatal("a listing after the cut worked")
	}
}
