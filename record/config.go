package record

import (
	"compress/flate"
	"fmt"
	"strings"
	"time"

	"github.com/robotd/robotd/config"
)

// Config configures a Recorder.
type Config struct {
	// Dir is the directory the segment files go to; it is created if need
	// be.
	Dir string `json:"dir"`
	// Prefix starts every segment file's name: <prefix>-<session>-<n>.rlog.
	// The disk bound applies to all files with this prefix in Dir, those of
	// earlier sessions included.
	Prefix string `json:"prefix"`
	// SegmentBytes bounds one segment file's size; a new segment, with its
	// own header, starts before it would be exceeded. At least 16 KiB.
	SegmentBytes int64 `json:"segment_bytes"`
	// MaxTotalBytes bounds the size of all segment files with Prefix in
	// Dir: the oldest are deleted before a new segment could exceed it.
	// 0 is no bound; else at least 2·SegmentBytes.
	MaxTotalBytes int64 `json:"max_total_bytes"`
	// FlushInterval is the longest a record handed to the writer stays in
	// memory before it reaches the file (a DEFLATE sync flush): what a crash
	// can lose. At most one second.
	FlushInterval config.Duration `json:"flush_interval"`
	// Queue is the number of records that may wait for the writer; when it
	// is full, records are dropped (and counted), never waited for.
	Queue int `json:"queue"`
	// Level is the DEFLATE level: 1 (fastest) to 9 (smallest), 0 none, -2
	// Huffman only.
	Level int `json:"level"`
	// Fsync syncs the file to the storage device at every flush (survives a
	// power loss, not only a crash), at the price of a write to the device
	// every FlushInterval.
	Fsync bool `json:"fsync"`
}

// DefaultConfig returns the defaults: 16 MiB segments, at most 1 GiB, a
// flush every 500 ms, two seconds of queue at 100 Hz, the fastest DEFLATE.
func DefaultConfig() Config {
	return Config{
		Dir:           "recordings",
		Prefix:        "robotd",
		SegmentBytes:  16 << 20,
		MaxTotalBytes: 1 << 30,
		FlushInterval: config.Duration(500 * time.Millisecond),
		Queue:         200,
		Level:         flate.BestSpeed,
	}
}

// minSegmentBytes leaves room for a header (the schema) and many records.
const minSegmentBytes = 16 << 10

// Rules returns the allowed values and the documentation of every
// setting, keyed within robotd's record section.
func (c *Config) Rules() config.Rules {
	return config.Rules{
		"dir":             config.Text(1, 4096).Doc("path", "the directory the recording files go to; it is created if need be"),
		"prefix":          config.Text(1, 64).Doc("", "the start of every recording file's name"),
		"segment_bytes":   config.Int(minSegmentBytes, 1<<40).Doc("bytes", "the largest size of one recording file; the next one starts before it would be exceeded"),
		"max_total_bytes": config.Int(0, 1<<50).Doc("bytes", "the largest size of all recording files with prefix in dir; the oldest are deleted to keep to it (0: no bound; else at least 2·segment_bytes)"),
		"flush_interval":  config.Durations(time.Millisecond, time.Second).Doc("", "the longest a record stays in memory before it is written to its file"),
		"queue":           config.Int(1, 1_000_000).Doc("", "how many records may wait for the writer; more are dropped"),
		"level":           config.Int(-2, 9).Doc("", "the DEFLATE level: 1 (fastest) to 9 (smallest), 0 none, −2 Huffman only"),
		"fsync":           config.Bool().Doc("", "syncs the file to the storage device at every flush"),
	}
}

// Validate checks the configuration against Rules, then what Rules do
// not say; it names the first bad setting.
func (c *Config) Validate() error {
	if err := config.CheckSection("record", c, c.Rules()); err != nil {
		return fmt.Errorf("record: config: %w", err)
	}
	switch {
	case strings.ContainsAny(c.Prefix, `/\`):
		return fmt.Errorf("record: config: prefix %q: want a name without path separators", c.Prefix)
	case c.MaxTotalBytes != 0 && c.MaxTotalBytes < 2*c.SegmentBytes:
		return fmt.Errorf("record: config: max_total_bytes %d: want 0 (no bound) or at least 2·segment_bytes (%d)", c.MaxTotalBytes, 2*c.SegmentBytes)
	}
	return nil
}
