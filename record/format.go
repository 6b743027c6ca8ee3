// Package record records robotd's ticks to disk and reads them back: every
// tick's blackboard (the HAL inputs, "hal.*", and everything the modules
// wrote, after the commands were handed to the backend) as one record, in a
// compact, self-describing, crash-tolerant log of bounded size.
//
// # Format
//
// A recording is a session of segment files in one directory, named
// <prefix>-<session>-<n>.rlog, where session is the UTC start time
// (20060102T150405.000000000Z) and n counts segments from 0. Every segment
// is readable on its own:
//
//	magic    8 bytes "ROBOTDRL"
//	version  uint16 little-endian (FormatVersion)
//	flags    uint16 little-endian (0: the rest is raw DEFLATE, RFC 1951)
//	DEFLATE stream of frames:
//	  frame := uvarint(len(body)) body crc32c(body) (uint32 little-endian)
//	  body  := 'H' Header as JSON                      (first frame only)
//	         | 'T' wall int64 (Unix ns, little-endian)
//	               dropped uvarint (records dropped in the session so far)
//	               a blackboard record (codec.Schema)
//
// The header carries the blackboard schema, the robot's configuration as
// JSON, the build flavour and the session's start time. The writer
// sync-flushes the DEFLATE stream at least every Config.FlushInterval, so a
// process killed at any moment leaves a file whose stream is readable up to
// the last flush; a reader reports such a truncated tail (Reader.Truncated)
// and is not in error.
package record

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
	"time"

	"github.com/robotd/robotd/record/codec"
)

// FormatVersion is the version of the file format this package writes.
const FormatVersion = 1

const (
	magic      = "ROBOTDRL"
	fileHeader = len(magic) + 4
	frameHead  = 'H'
	frameTick  = 'T'
	ext        = ".rlog"
	// sessionLayout names a session by its UTC start time; it sorts in time
	// order and contains no '-'.
	sessionLayout = "20060102T150405.000000000Z"
	// maxFrame bounds a frame's length, so a corrupt length cannot ask for
	// an absurd allocation.
	maxFrame = 64 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Header is a segment's first frame.
type Header struct {
	// Version is FormatVersion.
	Version int `json:"version"`
	// Session names the recording: the UTC start time.
	Session string `json:"session"`
	// Segment is the segment's number in the session, from 0.
	Segment int `json:"segment"`
	// Start is the session's start; Created the segment's.
	Start   time.Time `json:"start"`
	Created time.Time `json:"created"`
	// Build is the build flavour that recorded ("real", "sim").
	Build string `json:"build,omitempty"`
	// Config is the robot's configuration as JSON.
	Config json.RawMessage `json:"config,omitempty"`
	// Schema describes the records.
	Schema *codec.Schema `json:"schema"`
}

// appendFrame appends body as a frame.
func appendFrame(dst, body []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(body)))
	dst = append(dst, body...)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(body, castagnoli))
}

// segmentName is the file name of segment n of a session.
func segmentName(prefix, session string, n int) string {
	return fmt.Sprintf("%s-%s-%06d%s", prefix, session, n, ext)
}

// segmentID identifies a segment file by its name.
type segmentID struct {
	name, prefix, session string
	n                     int
}

// parseSegmentName parses a name made by segmentName.
func parseSegmentName(name string) (segmentID, bool) {
	base, ok := strings.CutSuffix(name, ext)
	if !ok {
		return segmentID{}, false
	}
	i := strings.LastIndexByte(base, '-')
	if i < 0 {
		return segmentID{}, false
	}
	n, err := strconv.Atoi(base[i+1:])
	if err != nil || n < 0 {
		return segmentID{}, false
	}
	rest := base[:i]
	j := strings.LastIndexByte(rest, '-')
	if j <= 0 {
		return segmentID{}, false
	}
	session := rest[j+1:]
	if _, err := time.Parse(sessionLayout, session); err != nil {
		return segmentID{}, false
	}
	return segmentID{name: name, prefix: rest[:j], session: session, n: n}, true
}

// compare orders segments by session (time), then number.
func (a segmentID) compare(b segmentID) int {
	if c := strings.Compare(a.session, b.session); c != 0 {
		return c
	}
	return a.n - b.n
}
