package deploy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"time"
)

// The deploy lock is a directory on the robot, <dir>/.deploy.lock: mkdir
// is atomic and fails when it exists, so one deploy (or rollback) at a
// time changes a robot. Its owner file names the holder and is rewritten
// every lockBeat while the deploy runs; a lock whose owner file is older
// than lockStale by the robot's clock is stale (its deploy was killed) and
// is removed.
const (
	lockName  = ".deploy.lock"
	lockOwner = "owner"
	lockBeat  = 5 * time.Second
	lockStale = time.Minute
)

// robotLock is a held deploy lock.
type robotLock struct {
	c     *conn
	dir   string
	token string
	stop  context.CancelFunc
	wg    sync.WaitGroup
}

// acquireLock takes the robot's deploy lock, removing a stale one.
func acquireLock(ctx context.Context, c *conn, t *Target, p *printer) (*robotLock, error) {
	base := t.remote(t.Dir)
	if err := c.sftp.MkdirAll(base); err != nil {
		return nil, fmt.Errorf("creating %s: %w", base, err)
	}
	dir := path.Join(base, lockName)
	var tok [8]byte
	_, _ = rand.Read(tok[:])
	token := hex.EncodeToString(tok[:])
	host, _ := os.Hostname()
	owner := fmt.Sprintf("robotd deploy on %s, pid %d, token %s\n", host, os.Getpid(), token)
	for range 2 {
		mkErr := c.sftp.Mkdir(dir)
		if mkErr == nil {
			l := &robotLock{c: c, dir: dir, token: token}
			if err := writeRemote(c, path.Join(dir, lockOwner), []byte(owner), 0o644); err != nil {
				_ = c.sftp.RemoveAll(dir)
				return nil, fmt.Errorf("writing the lock %s: %w", dir, err)
			}
			l.beat(ctx, owner)
			return l, nil
		}
		// SFTP v3 reports an existing directory as a generic failure.
		who, age, held, err := lockAge(c, base, dir, token)
		switch {
		case err != nil:
			return nil, err
		case !held:
			if _, serr := c.sftp.Lstat(dir); errors.Is(serr, fs.ErrNotExist) {
				return nil, fmt.Errorf("creating the lock %s: %w", dir, mkErr)
			}
			continue
		case age < lockStale:
			return nil, fmt.Errorf("another deploy holds the lock %s (%q, last heartbeat %s ago); it goes when that deploy ends, or is stale after %s without a heartbeat",
				dir, who, age.Round(time.Second), lockStale)
		}
		aside := dir + ".stale-" + token
		if err := c.sftp.PosixRename(dir, aside); err != nil {
			return nil, fmt.Errorf("moving the stale lock %s aside: %w", dir, err)
		}
		_ = c.sftp.RemoveAll(aside)
		p.say(t.Name, "removed a stale lock %s (%q, no heartbeat for %s)", dir, who, age.Round(time.Second))
	}
	return nil, fmt.Errorf("could not take the lock %s: it came back after the stale one was removed", dir)
}

// lockAge returns the lock's holder and the time since its last heartbeat
// by the robot's clock (the modification time of a file created now), and
// held false if the lock is gone.
func lockAge(c *conn, base, dir, token string) (who string, age time.Duration, held bool, err error) {
	st, err := c.sftp.Lstat(path.Join(dir, lockOwner))
	if errors.Is(err, fs.ErrNotExist) {
		st, err = c.sftp.Lstat(dir) // taken a moment ago, owner not yet written
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0, false, nil
	}
	if err != nil {
		return "", 0, false, fmt.Errorf("stat %s: %w", dir, err)
	}
	b, _ := readFile(c, path.Join(dir, lockOwner), maxOwnerBytes)
	who = strings.TrimSpace(string(b))
	probe := path.Join(base, ".deploy.clock-"+token)
	if err := writeRemote(c, probe, nil, 0o644); err != nil {
		return "", 0, false, fmt.Errorf("reading the robot's clock: %w", err)
	}
	now, err := c.sftp.Lstat(probe)
	_ = c.sftp.Remove(probe)
	if err != nil {
		return "", 0, false, fmt.Errorf("reading the robot's clock: %w", err)
	}
	return who, now.ModTime().Sub(st.ModTime()), true, nil
}

// beat rewrites the owner file every lockBeat until release.
func (l *robotLock) beat(ctx context.Context, owner string) {
	ctx, l.stop = context.WithCancel(ctx)
	l.wg.Go(func() {
		tick := time.NewTicker(lockBeat)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				_ = writeRemote(l.c, path.Join(l.dir, lockOwner), []byte(owner), 0o644)
			}
		}
	})
}

// release removes the lock if it is still this deploy's.
func (l *robotLock) release() error {
	l.stop()
	l.wg.Wait()
	b, err := readFile(l.c, path.Join(l.dir, lockOwner), maxOwnerBytes)
	if err != nil {
		return fmt.Errorf("reading the lock %s: %w", l.dir, err)
	}
	if !strings.Contains(string(b), "token "+l.token+"\n") {
		return fmt.Errorf("the lock %s was taken over by %q", l.dir, strings.TrimSpace(string(b)))
	}
	if err := l.c.sftp.RemoveAll(l.dir); err != nil {
		return fmt.Errorf("removing the lock %s: %w", l.dir, err)
	}
	return nil
}
