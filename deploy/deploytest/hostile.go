package deploytest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"path"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// HostileFS is what a Hostile server serves; the test writes it. Paths
// are absolute and cleaned (pkg/sftp's request server cleans them). A nil
// function serves nothing: every path is missing, every command exits 127.
type HostileFS struct {
	// List returns a directory's entries; their names go out as they are
	// (any bytes, "/" and "" included).
	List func(dir string) ([]os.FileInfo, error)
	// Stat returns a path's attributes (for stat and lstat).
	Stat func(p string) (os.FileInfo, error)
	// Open returns a file's contents (see Endless).
	Open func(p string) (io.ReaderAt, error)
	// ReadLink returns a symbolic link's target.
	ReadLink func(p string) (string, error)
	// Exec runs a command line: it writes the command's standard output
	// to stdout and returns its exit status.
	Exec func(cmd string, stdout io.Writer) uint32
}

// Entry is an os.FileInfo a test lists: any name, any size.
type Entry struct {
	EntryName string
	EntrySize int64
	Dir       bool
}

func (e Entry) Name() string { return e.EntryName }
func (e Entry) Size() int64  { return e.EntrySize }
func (e Entry) Mode() os.FileMode {
	if e.Dir {
		return os.ModeDir | 0o755
	}
	return 0o644
}
func (e Entry) ModTime() time.Time { return time.Unix(1_700_000_000, 0) }
func (e Entry) IsDir() bool        { return e.Dir }
func (e Entry) Sys() any           { return nil }

// Endless is a file that never ends: every read fills its buffer with the
// byte.
type Endless byte

// ReadAt implements io.ReaderAt.
func (e Endless) ReadAt(p []byte, _ int64) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// Stats counts what a HostileFS served: the directory listings opened and
// the file bytes sent.
type Stats struct {
	Listings atomic.Int64
	Served   atomic.Int64
}

// ServeSFTP serves fs over SFTP (pkg/sftp's request server) on rwc until
// rwc is closed, counting into stats.
func ServeSFTP(rwc io.ReadWriteCloser, fs HostileFS, stats *Stats) {
	h := &handler{fs: fs, stats: stats}
	srv := sftp.NewRequestServer(rwc, sftp.Handlers{FileGet: h, FilePut: h, FileCmd: h, FileList: h})
	_ = srv.Serve()
	srv.Close()
}

// Hostile is an in-process SSH server on loopback with an SFTP subsystem
// (pkg/sftp's request server) and exec requests, both answered from a
// HostileFS: a robot that lists and sends what the test wants. It counts
// what it served.
type Hostile struct {
	Addr       string
	User       string
	Key        string // the accepted private key
	KnownHosts string

	Stats

	fs  HostileFS
	cfg *ssh.ServerConfig
	ln  net.Listener
	wg  sync.WaitGroup
	mu  sync.Mutex
	cs  map[net.Conn]bool
}

// StartHostile starts a Hostile server serving fs, with its keys in dir,
// and stops it (closing every connection) when the test ends.
func StartHostile(t testing.TB, dir string, fs HostileFS) *Hostile {
	t.Helper()
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	hostSigner, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "hostile_user_key")
	userPub := WriteKey(t, key)
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
			if bytes.Equal(k.Marshal(), userPub.Marshal()) {
				return nil, nil
			}
			return nil, errors.New("unknown key")
		},
	}
	cfg.AddHostKey(hostSigner)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &Hostile{
		Addr: ln.Addr().String(), User: "hostile", Key: key,
		KnownHosts: filepath.Join(dir, "hostile_known_hosts"),
		fs:         fs, cfg: cfg, ln: ln, cs: map[net.Conn]bool{},
	}
	kh := knownhosts.Line([]string{knownhosts.Normalize(h.Addr)}, hostSigner.PublicKey())
	if err := os.WriteFile(h.KnownHosts, []byte(kh+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.wg.Go(h.accept)
	t.Cleanup(h.stop)
	return h
}

func (h *Hostile) accept() {
	for {
		nc, err := h.ln.Accept()
		if err != nil {
			return
		}
		h.mu.Lock()
		if h.cs == nil {
			h.mu.Unlock()
			nc.Close()
			return
		}
		h.cs[nc] = true
		h.mu.Unlock()
		h.wg.Go(func() { h.serve(nc) })
	}
}

func (h *Hostile) stop() {
	h.ln.Close()
	h.mu.Lock()
	for nc := range h.cs {
		nc.Close()
	}
	h.cs = nil
	h.mu.Unlock()
	h.wg.Wait()
}

func (h *Hostile) serve(nc net.Conn) {
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	sc, chans, reqs, err := ssh.NewServerConn(nc, h.cfg)
	if err != nil {
		return
	}
	_ = nc.SetDeadline(time.Time{})
	defer sc.Close()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { ssh.DiscardRequests(reqs) })
	for nch := range chans {
		if nch.ChannelType() != "session" {
			_ = nch.Reject(ssh.UnknownChannelType, "sessions only")
			continue
		}
		ch, creqs, err := nch.Accept()
		if err != nil {
			continue
		}
		wg.Go(func() { h.session(ch, creqs) })
	}
}

func (h *Hostile) session(ch ssh.Channel, reqs <-chan *ssh.Request) {
	var wg sync.WaitGroup
	defer wg.Wait()
	defer ch.Close()
	for req := range reqs {
		arg := ""
		if len(req.Payload) >= 4 {
			if n := binary.BigEndian.Uint32(req.Payload); int(n) <= len(req.Payload)-4 {
				arg = string(req.Payload[4 : 4+n])
			}
		}
		switch {
		case req.Type == "subsystem" && arg == "sftp":
			_ = req.Reply(true, nil)
			wg.Go(func() { ServeSFTP(ch, h.fs, &h.Stats) })
		case req.Type == "exec":
			_ = req.Reply(true, nil)
			status := uint32(127)
			if h.fs.Exec != nil {
				status = h.fs.Exec(arg, ch)
			}
			_, _ = ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{status}))
			ch.Close()
		default:
			_ = req.Reply(false, nil)
		}
	}
}

// handler answers SFTP requests from a HostileFS.
type handler struct {
	fs    HostileFS
	stats *Stats
}

// Fileread implements sftp.FileReader.
func (h *handler) Fileread(r *sftp.Request) (io.ReaderAt, error) {
	if h.fs.Open == nil {
		return nil, os.ErrNotExist
	}
	ra, err := h.fs.Open(path.Clean(r.Filepath))
	if err != nil {
		return nil, err
	}
	return countingReaderAt{ra, &h.stats.Served}, nil
}

type countingReaderAt struct {
	r io.ReaderAt
	n *atomic.Int64
}

func (c countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// Filewrite implements sftp.FileWriter: nothing can be written.
func (h *handler) Filewrite(*sftp.Request) (io.WriterAt, error) { return nil, os.ErrPermission }

// Filecmd implements sftp.FileCmder: nothing can be changed.
func (h *handler) Filecmd(*sftp.Request) error { return os.ErrPermission }

// Filelist implements sftp.FileLister.
func (h *handler) Filelist(r *sftp.Request) (sftp.ListerAt, error) {
	p := path.Clean(r.Filepath)
	switch r.Method {
	case "List":
		h.stats.Listings.Add(1)
		if h.fs.List == nil {
			return nil, os.ErrNotExist
		}
		fis, err := h.fs.List(p)
		return lister(fis), err
	case "Stat":
		return h.stat(p)
	case "Readlink":
		target, err := h.Readlink(p)
		if err != nil {
			return nil, err
		}
		return lister{Entry{EntryName: target}}, nil
	}
	return nil, os.ErrInvalid
}

// Lstat implements sftp.LstatFileLister.
func (h *handler) Lstat(r *sftp.Request) (sftp.ListerAt, error) {
	return h.stat(path.Clean(r.Filepath))
}

func (h *handler) stat(p string) (sftp.ListerAt, error) {
	if h.fs.Stat == nil {
		return nil, os.ErrNotExist
	}
	fi, err := h.fs.Stat(p)
	if err != nil {
		return nil, err
	}
	return lister{fi}, nil
}

// Readlink implements sftp.ReadlinkFileLister.
func (h *handler) Readlink(p string) (string, error) {
	if h.fs.ReadLink == nil {
		return "", os.ErrNotExist
	}
	return h.fs.ReadLink(path.Clean(p))
}

type lister []os.FileInfo

func (l lister) ListAt(out []os.FileInfo, off int64) (int, error) {
	if off >= int64(len(l)) {
		return 0, io.EOF
	}
	n := copy(out, l[off:])
	if off+int64(n) >= int64(len(l)) {
		return n, io.EOF
	}
	return n, nil
}
