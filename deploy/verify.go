package deploy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Limits on what is read from a robot into memory.
const (
	// maxUnitBytes bounds the installed unit file (robotd deploy's is
	// under 1 KiB).
	maxUnitBytes = 64 << 10
	// maxManifestBytes bounds a version's MANIFEST (a line per file).
	maxManifestBytes = 1 << 20
	// maxOwnerBytes bounds the deploy lock's owner file.
	maxOwnerBytes = 1 << 10
)

// tooLargeError is a remote file past its read limit.
type tooLargeError struct {
	path  string
	limit int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s: not read (robotd deploy writes none that large)", e.path, mib(e.limit))
}

// readFile reads the remote file p, at most limit bytes: a larger one is
// a *tooLargeError. A file that does not exist reads as nil, nil.
func readFile(c *conn, p string, limit int64) ([]byte, error) {
	f, err := c.sftp.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", p, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	if int64(len(b)) > limit {
		return nil, &tooLargeError{path: p, limit: limit}
	}
	return b, nil
}

// remoteVersion is a version directory's MANIFEST on the robot.
type remoteVersion struct {
	name  string
	files []file // nil when the MANIFEST is not trusted
	// distrust says why the MANIFEST is not trusted ("" when it is): a
	// MANIFEST is trusted when it parses and hashes to its version's name
	// (see versionOf).
	distrust string
}

// readManifest reads version v's MANIFEST on the robot ("" reads as an
// empty, trusted version).
func readManifest(c *conn, t *Target, v string) (remoteVersion, error) {
	rv := remoteVersion{name: v}
	if v == "" {
		return rv, nil
	}
	p := t.remote(t.Dir, "versions", v, manifestName)
	data, err := readFile(c, p, maxManifestBytes)
	var tl *tooLargeError
	switch {
	case errors.As(err, &tl):
		rv.distrust = tl.Error()
		return rv, nil
	case err != nil:
		return rv, err
	case data == nil:
		rv.distrust = p + " is missing"
		return rv, nil
	case versionOf(data) != v:
		rv.distrust = fmt.Sprintf("%s hashes to %s, not to its version's name", p, versionOf(data))
		return rv, nil
	}
	files, err := parseManifest(data)
	if err != nil {
		rv.distrust = fmt.Sprintf("%s: %v", p, err)
		return rv, nil
	}
	rv.files = files
	return rv, nil
}

// verifyFiles checks the files of a version in dir on the robot against
// want (names, sizes, modes and SHA-256): it returns each file that does
// not match with what is wrong, none when all match.
func verifyFiles(c *conn, dir string, want []file) (map[string]string, error) {
	bad := map[string]string{}
	var hash []file
	for _, f := range want {
		p := path.Join(dir, f.Name)
		st, err := c.sftp.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			bad[f.Name] = "missing"
		case err != nil:
			return nil, fmt.Errorf("stat %s: %w", p, err)
		case !st.Mode().IsRegular():
			bad[f.Name] = fmt.Sprintf("not a regular file (%s)", st.Mode().Type())
		case st.Size() != f.Size:
			bad[f.Name] = fmt.Sprintf("%d bytes, want %d", st.Size(), f.Size)
		case st.Mode().Perm() != f.Mode.Perm():
			bad[f.Name] = fmt.Sprintf("mode %o, want %o", st.Mode().Perm(), f.Mode.Perm())
		default:
			hash = append(hash, f)
		}
	}
	got, err := remoteSums(c, dir, hash)
	if err != nil {
		return nil, err
	}
	for _, f := range hash {
		if got[f.Name] != f.SHA256 {
			bad[f.Name] = "SHA-256 differs from the MANIFEST"
		}
	}
	return bad, nil
}

// describeBad is verifyFiles' result on one line, sorted by name.
func describeBad(bad map[string]string) string {
	var s []string
	for name, why := range bad {
		s = append(s, fmt.Sprintf("%s: %s", name, why))
	}
	slices.Sort(s)
	return strings.Join(s, "; ")
}

// remoteSums returns the SHA-256 of each file in dir on the robot: by
// running sha256sum there (coreutils or BusyBox), and for files it does not
// report (no sha256sum, an unreadable file) by reading them over SFTP.
func remoteSums(c *conn, dir string, files []file) (map[string]string, error) {
	got := map[string]string{}
	if len(files) == 0 {
		return got, nil
	}
	byPath := map[string]string{}
	cmd := []string{"sha256sum", "--"}
	for _, f := range files {
		p := path.Join(dir, f.Name)
		byPath[p] = f.Name
		cmd = append(cmd, shellQuote(p))
	}
	// A line is the hash, two characters ("  ", or " *" for binary mode) and
	// the path.
	limit := int64(0)
	for p := range byPath {
		limit += int64(sha256.Size*2 + 3 + len(p))
	}
	out, _, _ := c.output(strings.Join(cmd, " "), limit)
	for line := range strings.Lines(string(out)) {
		line = strings.TrimSuffix(line, "\n")
		if len(line) < sha256.Size*2+3 || line[sha256.Size*2] != ' ' {
			continue
		}
		sum, p := line[:sha256.Size*2], line[sha256.Size*2+2:]
		if name, ok := byPath[p]; ok && strings.Trim(sum, "0123456789abcdef") == "" {
			got[name] = sum
		}
	}
	for _, f := range files {
		if _, ok := got[f.Name]; ok {
			continue
		}
		sum, err := sftpSum(c, path.Join(dir, f.Name), f.Size)
		if err != nil {
			return nil, err
		}
		got[f.Name] = sum
	}
	return got, nil
}

// sftpSum hashes a remote file over SFTP, reading at most size+1 bytes (a
// longer file does not match anyway).
func sftpSum(c *conn, p string, size int64) (string, error) {
	f, err := c.sftp.Open(p)
	if err != nil {
		return "", fmt.Errorf("opening %s: %w", p, err)
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, 1<<20)
	if _, err := io.CopyBuffer(h, io.LimitReader(f, size+1), buf); err != nil {
		return "", fmt.Errorf("reading %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sameManifest reports whether the MANIFEST in dir on the robot is want.
func sameManifest(c *conn, dir string, want []byte) (bool, error) {
	got, err := readFile(c, path.Join(dir, manifestName), maxManifestBytes)
	var tl *tooLargeError
	if errors.As(err, &tl) {
		return false, nil
	}
	return bytes.Equal(got, want), err
}
