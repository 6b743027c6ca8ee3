package findball

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// storedShard makes a shard database at path holding trials 0..n-1 of
// cfg's plan, with a few samples each, and closes it.
func storedShard(t *testing.T, cfg *Config, path string, n int) {
	t.Helper()
	ctx := context.Background()
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Begin(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	for _, tr := range cfg.Plan()[:n] {
		r := Result{Trial: tr, ConfigHash: "h", Found: tr.Index%2 == 0, Time: time.Duration(tr.Index+1) * time.Second, Finder: 1,
			Team:    TeamPlay{FirstStriker: -1},
			Samples: []Sample{{Player: 1, T: 0, X: 1, Y: 2}, {Player: 1, T: time.Second, X: 1.5, Y: 2}}}
		if err := st.Save(ctx, cfg, &r, All); err != nil {
			t.Fatal(err)
		}
	}
}

// trialIDs lists the trials the database at path holds.
func trialIDs(t *testing.T, path string) []string {
	t.Helper()
	ctx := context.Background()
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	done, err := st.Done(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for id := range done {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// files lists the files under dir, with their paths relative to it.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		out = append(out, rel)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOpenPathCharacters: '?', '#', '%', spaces and URI punctuation in a
// database's path are characters of the file's name, for absolute and
// relative paths: the database is that file and nothing else is written.
func TestOpenPathCharacters(t *testing.T) {
	ctx := context.Background()
	cfg := quickConfig(1, 3)
	for _, name := range []string{"m/a?b/x.db", "a#b.db", "a%20b.db", "a%zz.db", "a b'c.db", "x;y=z&w+v.db", "file:x.db", "m/a?mode=memory.db", "ü.db"} {
		for _, relative := range []bool{false, true} {
			t.Run(map[bool]string{false: "absolute", true: "relative"}[relative]+"/"+name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if relative {
					t.Chdir(dir)
					path = name
				}
				storedShard(t, &cfg, path, 2)
				if got := files(t, dir); !slices.Equal(got, []string{name}) {
					t.Fatalf("files %q, want only %q", got, name)
				}
				if ids := trialIDs(t, path); len(ids) != 2 {
					t.Fatalf("reopened, the database holds %q", ids)
				}
				merged := filepath.Join(t.TempDir(), "merged.db")
				st, err := Open(ctx, merged)
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				if ms, err := st.Merge(ctx, path); err != nil || ms.Trials != 2 {
					t.Fatalf("merging %s: %+v, %v", path, ms, err)
				}
			})
		}
	}
	t.Chdir(t.TempDir())
	if st, err := Open(ctx, "a\x00b.db"); err == nil || !strings.Contains(err.Error(), "NUL") {
		t.Errorf("a path with a NUL byte: %v", err)
		if err == nil {
			st.Close()
		}
	}
}

// journalMode reads a database file's journal mode from its header: bytes
// 18 and 19 (the file format write and read versions) are 1 for a
// rollback journal and 2 for the write-ahead log
// (https://www.sqlite.org/fileformat2.html#database_header).
func journalMode(t *testing.T, data []byte) string {
	t.Helper()
	if len(data) < 100 {
		t.Fatalf("a %d-byte database", len(data))
	}
	switch {
	case data[18] == 1 && data[19] == 1:
		return "rollback"
	case data[18] == 2 && data[19] == 2:
		return "wal"
	}
	return "unknown"
}

// TestMergeLeavesShardsAlone: merging reads the shards read-only: the
// shard file's bytes and journal mode (a rollback journal, the write-ahead
// log, a write-ahead log a killed process left unmerged) are as before,
// and so is a write-ahead log beside it, which is read and not merged into
// the file. The merged database holds the shards' trials. SQLite reads a
// database in write-ahead-log mode through its -wal and -shm files, and a
// read-only reader creates them where they are missing, the -wal empty
// (https://www.sqlite.org/wal.html#readonly); a reader may write to the
// -shm index (https://www.sqlite.org/walformat.html).
func TestMergeLeavesShardsAlone(t *testing.T) {
	ctx := context.Background()
	cfg := quickConfig(1, 3)
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string)
		mode string
	}{
		{"rollback journal", func(t *testing.T, path string) {
			storedShard(t, &cfg, path, 3)
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`PRAGMA journal_mode=DELETE`); err != nil {
				t.Fatal(err)
			}
		}, "rollback"},
		{"write-ahead log", func(t *testing.T, path string) { storedShard(t, &cfg, path, 3) }, "wal"},
		{"write-ahead log left by a killed process", func(t *testing.T, path string) {
			// A copy of an open database's files, as a process killed
			// after its commits leaves them: the trials are in the log.
			tmp := filepath.Join(t.TempDir(), "live.db")
			st, err := Open(ctx, tmp)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if _, err := st.db.ExecContext(ctx, `PRAGMA wal_autocheckpoint=0`); err != nil {
				t.Fatal(err)
			}
			if err := st.Begin(ctx, &cfg); err != nil {
				t.Fatal(err)
			}
			for _, tr := range cfg.Plan()[:3] {
				if err := st.Save(ctx, &cfg, &Result{Trial: tr, ConfigHash: "h", Team: TeamPlay{FirstStriker: -1}}, All); err != nil {
					t.Fatal(err)
				}
			}
			for _, suffix := range []string{"", "-wal", "-shm"} {
				data, err := os.ReadFile(tmp + suffix)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path+suffix, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}, "wal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			shard := filepath.Join(dir, "shard-0.db")
			tc.make(t, shard)
			before := map[string][32]byte{}
			for _, f := range files(t, dir) {
				data, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				before[f] = sha256.Sum256(data)
			}
			data, err := os.ReadFile(shard)
			if err != nil {
				t.Fatal(err)
			}
			if m := journalMode(t, data); m != tc.mode {
				t.Fatalf("the shard's journal mode is %s, want %s", m, tc.mode)
			}

			merged, err := Open(ctx, filepath.Join(t.TempDir(), "merged.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer merged.Close()
			ms, err := merged.Merge(ctx, shard)
			if err != nil || ms.Trials != 3 {
				t.Fatalf("merge: %+v, %v", ms, err)
			}

			for _, f := range files(t, dir) {
				data, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				sum, existed := before[f]
				switch {
				case f == "shard-0.db":
					if sha256.Sum256(data) != sum {
						t.Errorf("the merge changed the shard")
					}
					if m := journalMode(t, data); m != tc.mode {
						t.Errorf("the merge changed the shard's journal mode to %s", m)
					}
				case tc.mode == "wal" && f == "shard-0.db-shm":
				case tc.mode == "wal" && f == "shard-0.db-wal" && !existed:
					if len(data) != 0 {
						t.Errorf("the merge wrote %d bytes to a new -wal file", len(data))
					}
				case !existed:
					t.Errorf("the merge left %s beside the shard", f)
				case sha256.Sum256(data) != sum:
					t.Errorf("the merge changed %s", f)
				}
			}
		})
	}
}

// TestMergeNoCampaign: a file that holds no campaign is refused, and left
// as it was (an empty file stays empty).
func TestMergeNoCampaign(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, filepath.Join(t.TempDir(), "merged.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Merge(ctx, path); err == nil || !strings.Contains(err.Error(), path+" holds no campaign") {
		t.Fatalf("error %v", err)
	}
	if data, err := os.ReadFile(path); err != nil || !bytes.Equal(data, nil) {
		t.Fatalf("the file is now %d bytes (%v)", len(data), err)
	}
}
