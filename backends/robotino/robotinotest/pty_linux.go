package robotinotest

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// PTY is a pseudo-terminal pair: Master is the fake device's end, Path the
// slave end that the code under test opens as its serial device.
type PTY struct {
	Master *os.File
	Path   string
	slave  int
}

// OpenPTY opens a pseudo-terminal pair (from /dev/ptmx, with
// golang.org/x/sys/unix). The master is pollable (Close ends a blocked
// Read, deadlines work); the slave is held open in raw mode until Close so
// that the master stays usable while the code under test reopens it.
func OpenPTY() (*PTY, error) {
	m, path, s, err := openPTY()
	if err != nil {
		return nil, err
	}
	return &PTY{Master: m, Path: path, slave: s}, nil
}

// Close closes both ends.
func (p *PTY) Close() error {
	err := p.Master.Close()
	closeFD(p.slave)
	return err
}

// openPTY opens a pseudo-terminal pair: the master as a pollable *os.File
// (so that Close ends a blocked Read) and the slave's path. It also opens
// the slave once, in raw mode, and returns its descriptor: held open, it
// keeps the master readable while the backend closes and reopens its side.
func openPTY() (master *os.File, slavePath string, slave int, err error) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, "", -1, fmt.Errorf("robotinotest: opening /dev/ptmx: %w", err)
	}
	fail := func(what string, err error) (*os.File, string, int, error) {
		unix.Close(fd)
		return nil, "", -1, fmt.Errorf("robotinotest: %s: %w", what, err)
	}
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		return fail("unlocking the pty", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		return fail("reading the pty number", err)
	}
	slavePath = fmt.Sprintf("/dev/pts/%d", n)
	sfd, err := unix.Open(slavePath, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail("opening "+slavePath, err)
	}
	t, err := unix.IoctlGetTermios(sfd, unix.TCGETS)
	if err == nil {
		// cfmakeraw
		t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
		t.Oflag &^= unix.OPOST
		t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
		t.Cflag &^= unix.CSIZE | unix.PARENB
		t.Cflag |= unix.CS8
		err = unix.IoctlSetTermios(sfd, unix.TCSETS, t)
	}
	if err != nil {
		unix.Close(sfd)
		return fail("setting "+slavePath+" raw", err)
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), slavePath, sfd, nil
}

func closeFD(fd int) { unix.Close(fd) }
