package record

import (
	"bytes"
	"compress/flate"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recordSegments records ticks into several segments of one session and
// returns the segment files, in order, and each one's records.
func recordSegments(t *testing.T) ([]string, [][][]byte) {
	t.Helper()
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.SegmentBytes = 16 << 10
	cfg.MaxTotalBytes = 1 << 30
	cfg.Level = flate.NoCompression
	f := newFakeRobot(t)
	rec, err := Start(context.Background(), cfg, f.board, Info{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 400 {
		f.step()
		rec.RecordTick(f.seq)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	files, err := sessionFiles(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 4 {
		t.Fatalf("%d segments, want at least 4", len(files))
	}
	per := make([][][]byte, len(files))
	for i, p := range files {
		r, err := OpenFiles(p)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			per[i] = append(per[i], slices.Clone(r.Record().Data))
		}
		if r.Err() != nil || len(r.Skipped()) != 0 {
			t.Fatalf("%s: %v, skipped %v", p, r.Err(), r.Skipped())
		}
		r.Close()
	}
	return files, per
}

// TestDamagedSegments damages one segment of a recording in the ways a
// full disk, a crash or a stray write do, and reads the whole session:
// every record of the intact segments is read, in order, and the damaged
// segment is named with the reason; nothing panics.
func TestDamagedSegments(t *testing.T) {
	files, per := recordSegments(t)
	last := len(files) - 1
	orig := make([][]byte, len(files))
	for i, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		orig[i] = b
	}
	garbage := bytes.Repeat([]byte("garbage!"), 300)
	cases := []struct {
		name   string
		seg    int
		data   func(b []byte) []byte
		kept   int // records of the damaged segment still read; -1: a prefix, at least one
		reason string
	}{
		{"last empty", last, func([]byte) []byte { return nil }, 0, "empty"},
		{"middle empty", 1, func([]byte) []byte { return nil }, 0, "empty"},
		{"first empty", 0, func([]byte) []byte { return nil }, 0, "empty"},
		{"middle cut in the file header", 1, func(b []byte) []byte { return b[:5] }, 0, "file header"},
		{"middle cut in the header", 1, func(b []byte) []byte { return b[:fileHeader+20] }, 0, "header"},
		{"middle cut mid-stream", 2, func(b []byte) []byte { return b[:len(b)/2] }, -1, ""},
		{"middle garbage", 1, func([]byte) []byte { return garbage }, 0, "not a robotd recording"},
		{"first garbage", 0, func([]byte) []byte { return garbage }, 0, "not a robotd recording"},
		{"middle garbage after the magic", 2, func(b []byte) []byte {
			return append(slices.Clone(b[:fileHeader]), garbage...)
		}, 0, ""},
		{"middle corrupt frame", 2, func(b []byte) []byte {
			c := slices.Clone(b)
			for i := len(c) / 2; i < len(c)/2+64; i++ {
				c[i] ^= 0x5a
			}
			return c
		}, -1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, p := range files {
				b := orig[i]
				if i == tc.seg {
					b = tc.data(b)
				}
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var got [][]byte
			for r.Next() {
				got = append(got, slices.Clone(r.Record().Data))
			}
			if err := r.Err(); err != nil {
				t.Fatalf("error %v: the intact segments must be read", err)
			}
			var want [][]byte
			for i := range files {
				if i != tc.seg {
					want = append(want, per[i]...)
					continue
				}
				// The damaged segment contributes a prefix of its
				// records: check it below.
				k := 0
				if tc.kept < 0 {
					for k < len(per[i]) && len(got) > len(want)+k && bytes.Equal(got[len(want)+k], per[i][k]) {
						k++
					}
					if k == 0 || k == len(per[i]) {
						t.Fatalf("kept %d of the damaged segment's %d records, want a proper prefix", k, len(per[i]))
					}
				}
				want = append(want, per[i][:k]...)
			}
			if len(got) != len(want) {
				t.Fatalf("read %d records, want %d", len(got), len(want))
			}
			for i := range got {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("record %d differs", i)
				}
			}
			sk := r.Skipped()
			if len(sk) != 1 || filepath.Base(sk[0].Path) != filepath.Base(files[tc.seg]) || !strings.Contains(sk[0].Reason, tc.reason) {
				t.Fatalf("skipped %v, want %s (%s)", sk, filepath.Base(files[tc.seg]), tc.reason)
			}
			t.Logf("skipped %v", sk[0])
		})
	}
}

// TestAllSegmentsDamaged: a recording with no readable segment is an error
// naming every segment, not a panic.
func TestAllSegmentsDamaged(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b"} {
		p := filepath.Join(dir, segmentName("robotd", "20260101T000000.000000000Z", len(n)+int(n[0]-'a')))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Open(dir)
	if err == nil || !strings.Contains(err.Error(), "no readable segment") || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("error %v", err)
	}
}
