package deploy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// SFTP packet types (draft-ietf-secsh-filexfer-02, SFTP version 3, the
// version OpenSSH and pkg/sftp speak).
const (
	fxpVersion = 2
	fxpRead    = 5
	fxpReaddir = 12
	fxpData    = 103
	fxpName    = 104
)

// maxSFTPPacket is the largest packet pkg/sftp's client accepts
// (maxMsgLength in its packet.go).
const maxSFTPPacket = 256 << 10

// maxListingBytes bounds the SSH_FXP_NAME packets of one listing: the
// client holds a whole listing in memory before it returns it.
const maxListingBytes = 64 << 20

// maxRawName is how much of a listed name is kept for the checks: longer
// names are refused anyway (checkEntryName, NAME_MAX).
const maxRawName = 1024

// sftpTap sits between pkg/sftp's client and the SSH channel and reads the
// packets going by: pkg/sftp's ReadDir keeps only path.Base of each name a
// server lists, so "x/.." arrives as "..", "a/b" as "b" and "" as "."; the
// tap records the names as the server sent them, for checkEntryName. It
// also cuts the stream (the client then fails every request) when a
// listing exceeds its budget of entries, packets or bytes, and when the
// server answers a read with an empty SSH_FXP_DATA, on which pkg/sftp's
// read loop would retry for ever.
type sftpTap struct {
	mu    sync.Mutex
	kinds map[uint32]byte // request id → type, for READ and READDIR requests in flight

	// The listing under way (between startListing and endListing).
	listing   bool
	names     []string
	budget    int // entries the listing may have
	packets   int
	bytes     int
	malformed bool
	err       error // why the stream was cut

	// The outgoing stream's parse state: the header of the packet being
	// written (length, type, id) and the bytes of its body still to skip.
	hdr  [9]byte
	nhdr int
	skip int64
}

func newSFTPTap() *sftpTap { return &sftpTap{kinds: map[uint32]byte{}} }

// reader and writer wrap the channel's two directions.
func (t *sftpTap) reader(r io.Reader) io.Reader { return &tapReader{t: t, r: r} }

func (t *sftpTap) writer(w io.WriteCloser) io.WriteCloser { return &tapWriter{t: t, w: w} }

// startListing records the names of the READDIR answers from now on, and
// cuts the stream past budget entries.
func (t *sftpTap) startListing(budget int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.listing, t.names, t.budget, t.packets, t.bytes, t.malformed = true, nil, budget, 0, 0, false
}

// endListing returns the names listed since startListing, as sent, and the
// reason the stream was cut, if it was.
func (t *sftpTap) endListing() (names []string, malformed bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.listing = false
	return t.names, t.malformed, t.err
}

// cut returns why the stream was cut (nil if it was not).
func (t *sftpTap) cut() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

type tapWriter struct {
	t *sftpTap
	w io.WriteCloser
}

func (w *tapWriter) Write(p []byte) (int, error) {
	w.t.sent(p)
	return w.w.Write(p)
}

func (w *tapWriter) Close() error { return w.w.Close() }

// sent notes the id of every READ and READDIR request in the client's
// outgoing stream. Every client packet has at least 5 bytes after its
// length (type and id, or type and version for INIT).
func (t *sftpTap) sent(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(p) > 0 {
		if t.skip > 0 {
			n := min(int64(len(p)), t.skip)
			p, t.skip = p[n:], t.skip-n
			continue
		}
		n := copy(t.hdr[t.nhdr:], p)
		p, t.nhdr = p[n:], t.nhdr+n
		if t.nhdr < len(t.hdr) {
			return
		}
		length := binary.BigEndian.Uint32(t.hdr[0:4])
		typ, id := t.hdr[4], binary.BigEndian.Uint32(t.hdr[5:9])
		if typ == fxpRead || typ == fxpReaddir {
			t.kinds[id] = typ
		}
		t.nhdr, t.skip = 0, max(int64(length)-5, 0)
	}
}

type tapReader struct {
	t       *sftpTap
	r       io.Reader
	buf     []byte
	pending []byte
}

func (r *tapReader) Read(p []byte) (int, error) {
	if len(r.pending) == 0 {
		if err := r.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// next reads one whole packet from the server, inspects it and queues it
// for the client.
func (r *tapReader) next() error {
	if r.buf == nil {
		r.buf = make([]byte, 4+maxSFTPPacket)
	}
	if _, err := io.ReadFull(r.r, r.buf[:4]); err != nil {
		return err
	}
	length := binary.BigEndian.Uint32(r.buf[:4])
	if length == 0 || length > maxSFTPPacket {
		return r.t.fail(fmt.Errorf("the robot sent an SFTP packet of %d bytes (allowed 1..%d)", length, maxSFTPPacket))
	}
	if _, err := io.ReadFull(r.r, r.buf[4:4+length]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if err := r.t.received(r.buf[4 : 4+length]); err != nil {
		return r.t.fail(err)
	}
	r.pending = r.buf[:4+length]
	return nil
}

func (t *sftpTap) fail(err error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = err
	}
	return t.err
}

// received inspects one packet from the server (its body: type, id, ...).
func (t *sftpTap) received(body []byte) error {
	if body[0] == fxpVersion || len(body) < 5 {
		return nil // the client checks these
	}
	id := binary.BigEndian.Uint32(body[1:5])
	t.mu.Lock()
	defer t.mu.Unlock()
	kind := t.kinds[id]
	delete(t.kinds, id)
	switch {
	case kind == fxpRead && body[0] == fxpData:
		if len(body) >= 9 && binary.BigEndian.Uint32(body[5:9]) == 0 {
			return errors.New("the robot answered a read with an empty SSH_FXP_DATA (the client would ask again for ever)")
		}
	case kind == fxpReaddir && body[0] == fxpName && t.listing:
		t.packets++
		t.bytes += len(body)
		if t.packets > t.budget+1 {
			return fmt.Errorf("the robot sent more than %d directory listing packets for one directory", t.budget+1)
		}
		if t.bytes > maxListingBytes {
			return fmt.Errorf("the robot's listing of one directory is larger than %d MiB", maxListingBytes>>20)
		}
		names, ok := parseNames(body[5:])
		if !ok {
			t.malformed = true
		}
		for _, n := range names {
			if len(t.names) >= t.budget {
				return fmt.Errorf("the robot listed more than %d entries (pull.max_entries)", t.budget)
			}
			t.names = append(t.names, n)
		}
	}
	return nil
}

// parseNames reads the file names of an SSH_FXP_NAME packet after its id:
// count, then per name the name, the long name and the attributes. It
// returns what it could read, and false if the packet ended early.
func parseNames(b []byte) ([]string, bool) {
	u32 := func() (uint32, bool) {
		if len(b) < 4 {
			return 0, false
		}
		v := binary.BigEndian.Uint32(b)
		b = b[4:]
		return v, true
	}
	str := func() (string, bool) {
		n, ok := u32()
		if !ok || uint64(n) > uint64(len(b)) {
			return "", false
		}
		s := b[:n]
		b = b[n:]
		if len(s) > maxRawName {
			s = s[:maxRawName]
		}
		return string(s), true
	}
	skip := func(n int) bool {
		if len(b) < n {
			return false
		}
		b = b[n:]
		return true
	}
	count, ok := u32()
	if !ok {
		return nil, false
	}
	var names []string
	for range count {
		name, ok := str()
		if !ok {
			return names, false
		}
		if _, ok := str(); !ok { // the long name
			return names, false
		}
		flags, ok := u32()
		if !ok {
			return names, false
		}
		// Attribute flags (SSH_FILEXFER_ATTR_*): size 8 bytes, uid and
		// gid 8, permissions 4, atime and mtime 8, extended pairs.
		for _, f := range []struct {
			bit uint32
			n   int
		}{{0x1, 8}, {0x2, 8}, {0x4, 4}, {0x8, 8}} {
			if flags&f.bit != 0 && !skip(f.n) {
				return names, false
			}
		}
		if flags&0x80000000 != 0 {
			n, ok := u32()
			if !ok {
				return names, false
			}
			for range n {
				if _, ok := str(); !ok {
					return names, false
				}
				if _, ok := str(); !ok {
					return names, false
				}
			}
		}
		names = append(names, name)
	}
	return names, true
}

// listedNames pairs the entries pkg/sftp's ReadDir returned with the names
// the server sent: ReadDir drops exactly "." and ".." and keeps the rest
// in order. ok is false when they do not pair up.
func listedNames(entries []os.FileInfo, raw []string) ([]string, bool) {
	out := make([]string, 0, len(raw))
	for _, n := range raw {
		if n != "." && n != ".." {
			out = append(out, n)
		}
	}
	return out, len(out) == len(entries)
}
