package robotino

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// hx parses space-separated hex, e.g. "aa 02 00".
func hx(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

// TestWorkedExamples builds the four frames of protocols.md §2.2's worked
// examples with Payload and compares them with the doc's bytes.
func TestWorkedExamples(t *testing.T) {
	tests := []struct {
		name  string
		build func(*Payload)
		wire  string
	}{
		{"request all motor readings", func(p *Payload) { p.Request(TagGetAllMotorReadings) }, "aa 02 00 34 00 ca ff"},
		{"motor 0 to +100 rpm", func(p *Payload) { p.SetMotorSpeed(0, 100) }, "aa 05 00 09 03 00 64 00 8b ff"},
		{"motor 0 to +85 rpm (escape)", func(p *Payload) { p.SetMotorSpeed(0, 85) }, "aa 05 00 09 03 00 55 75 00 9a ff"},
		{"motors 0,1,2 to -100, 0, +100", func(p *Payload) { p.SetDriveSpeeds([3]int16{-100, 0, 100}) },
			"aa 0f 00 09 03 00 9c ff 09 03 01 00 00 09 03 02 64 00 cb fd"},
	}
	var p Payload
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p.Reset()
			tc.build(&p)
			got, err := p.AppendFrame(nil)
			if err != nil {
				t.Fatal(err)
			}
			want := hx(t, tc.wire)
			if !bytes.Equal(got, want) {
				t.Fatalf("frame % x\n want % x", got, want)
			}
			d := NewDecoder(nil, DecoderOptions{})
			n, payload, err := d.Feed(want)
			if err != nil || n != len(want) || !bytes.Equal(payload, p.Bytes()) {
				t.Fatalf("decode: n=%d payload % x err %v", n, payload, err)
			}
		})
	}
}

func TestChecksum(t *testing.T) {
	// (sum of length bytes and payload + checksum) mod 65536 == 0.
	for _, payload := range [][]byte{nil, {0x34, 0}, bytes.Repeat([]byte{0xff}, 300), bytes.Repeat([]byte{0xaa}, 0x1aa)} {
		n := len(payload)
		sum := uint16(n&0xff) + uint16(n>>8)
		for _, c := range payload {
			sum += uint16(c)
		}
		if sum+Checksum(payload) != 0 {
			t.Errorf("payload of %d bytes: checksum %#04x does not complete %#04x", n, Checksum(payload), sum)
		}
	}
	if _, err := AppendFrame(nil, make([]byte, MaxPayloadLen+1)); !errors.Is(err, ErrPayloadTooLarge) {
		t.Errorf("oversized payload: %v", err)
	}
}

// event is what the decoder produced: a payload or an error kind.
type event struct {
	payload string // hex without spaces, for frames
	kind    error  // for errors
}

func (e event) String() string {
	if e.kind != nil {
		return e.kind.Error()
	}
	return "frame " + e.payload
}

// feedAll runs the whole input through Feed in chunks of size chunk (0 =
// all at once) and returns the events.
func feedAll(d *Decoder, in []byte, chunk int) []event {
	var evs []event
	for len(in) > 0 {
		c := in
		if chunk > 0 && len(c) > chunk {
			c = c[:chunk]
		}
		in = in[len(c):]
		for len(c) > 0 {
			n, payload, err := d.Feed(c)
			c = c[n:]
			switch {
			case err != nil:
				var fe *FrameError
				if !errors.As(err, &fe) {
					panic("framing error is not a *FrameError: " + err.Error())
				}
				evs = append(evs, event{kind: fe.Kind})
			case payload != nil:
				evs = append(evs, event{payload: hex.EncodeToString(payload)})
			}
		}
	}
	return evs
}

// TestDecoderTable feeds frames built by hand from the §2.2 byte layout.
func TestDecoderTable(t *testing.T) {
	const good = "aa 02 00 34 00 ca ff" // request all motor readings
	fr := func(p string) event { return event{payload: strings.ReplaceAll(p, " ", "")} }
	er := func(k error) event { return event{kind: k} }
	tests := []struct {
		name  string
		wire  string
		want  []event
		stats Stats
	}{
		{
			name: "one frame", wire: good,
			want:  []event{fr("34 00")},
			stats: Stats{Bytes: 7, Frames: 1},
		},
		{
			name: "escaped 0x55 in the payload", wire: "aa 05 00 09 03 00 55 75 00 9a ff",
			want:  []event{fr("09 03 00 55 00")},
			stats: Stats{Bytes: 11, Frames: 1},
		},
		{
			// payload [0xaa]: length 1, checksum 0x10000-0xab = 0xff55, so
			// the payload and the checksum's low byte are escaped.
			name: "escaped 0xAA payload and 0x55 checksum", wire: "aa 01 00 55 8a 55 75 ff",
			want:  []event{fr("aa")},
			stats: Stats{Bytes: 8, Frames: 1},
		},
		{
			name: "empty payload", wire: "aa 00 00 00 00",
			want:  []event{fr("")},
			stats: Stats{Bytes: 5, Frames: 1},
		},
		{
			name: "bad checksum then a good frame", wire: "aa 02 00 34 00 cb ff " + good,
			want:  []event{er(ErrChecksum), fr("34 00")},
			stats: Stats{Bytes: 14, Frames: 1, BadChecksum: 1},
		},
		{
			name: "garbage prefix", wire: "00 11 55 ff 75 " + good,
			want:  []event{er(ErrGarbage), fr("34 00")},
			stats: Stats{Bytes: 12, Frames: 1, GarbageBytes: 5, GarbageRuns: 1},
		},
		{
			name: "truncated frame then a good one", wire: "aa 05 00 09 03 " + good,
			want:  []event{er(ErrTruncated), fr("34 00")},
			stats: Stats{Bytes: 12, Frames: 1, Truncated: 1},
		},
		{
			name: "truncated inside the length", wire: "aa 05 " + good,
			want:  []event{er(ErrTruncated), fr("34 00")},
			stats: Stats{Bytes: 9, Frames: 1, Truncated: 1},
		},
		{
			name: "bad length, its body is garbage, then a good frame", wire: "aa ff 7f 01 02 " + good,
			want:  []event{er(ErrBadLength), er(ErrGarbage), fr("34 00")},
			stats: Stats{Bytes: 12, Frames: 1, BadLength: 1, GarbageBytes: 2, GarbageRuns: 1},
		},
		{
			name: "bad escape", wire: "aa 02 00 55 00 00 ca ff " + good,
			want:  []event{er(ErrBadEscape), er(ErrGarbage), fr("34 00")},
			stats: Stats{Bytes: 15, Frames: 1, BadEscape: 1, GarbageBytes: 3, GarbageRuns: 1},
		},
		{
			name: "two frames back to back", wire: good + " aa 05 00 09 03 00 64 00 8b ff",
			want:  []event{fr("34 00"), fr("09 03 00 64 00")},
			stats: Stats{Bytes: 17, Frames: 2},
		},
		{
			name: "trailing partial frame", wire: good + " aa 05 00 09",
			want:  []event{fr("34 00")},
			stats: Stats{Bytes: 11, Frames: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := hx(t, tc.wire)
			for _, chunk := range []int{0, 1, 2, 3} {
				d := NewDecoder(nil, DecoderOptions{})
				got := feedAll(d, in, chunk)
				if len(got) != len(tc.want) {
					t.Fatalf("chunk %d: events %v, want %v", chunk, got, tc.want)
				}
				for i := range got {
					if got[i] != tc.want[i] {
						t.Fatalf("chunk %d: events %v, want %v", chunk, got, tc.want)
					}
				}
				if s := d.Stats(); s != tc.stats {
					t.Errorf("chunk %d: stats %+v\nwant %+v", chunk, s, tc.stats)
				}
			}
		})
	}
}

func TestFrameErrorDetails(t *testing.T) {
	d := NewDecoder(nil, DecoderOptions{MaxPayload: 16})
	check := func(wire string, kind error, msg string) *FrameError {
		t.Helper()
		_, _, err := d.Feed(hx(t, wire))
		var fe *FrameError
		if !errors.As(err, &fe) || !errors.Is(err, kind) || err.Error() != msg {
			t.Fatalf("%s: got %v, want %v %q", wire, err, kind, msg)
		}
		return fe
	}
	fe := check("aa 02 00 34 00 cb ff", ErrChecksum, "robotino: checksum mismatch: computed 0xffca, received 0xffcb (length 2)")
	if fe.Want != 0xffca || fe.Got != 0xffcb || fe.Length != 2 {
		t.Errorf("%+v", fe)
	}
	check("aa 11 00", ErrBadLength, "robotino: bad frame length: 17") // limit 16
	check("01 02 aa", ErrGarbage, "robotino: garbage before start byte: 2 bytes skipped")
	check("03 00 34 aa", ErrTruncated, "robotino: truncated frame: 3 bytes received, length 3")
	check("55 00", ErrBadEscape, "robotino: bad escape sequence: 0x55 0x00")
	if d.InFrame() {
		t.Error("InFrame after a bad escape")
	}
	d.Feed(hx(t, "aa 02"))
	if !d.InFrame() {
		t.Error("not InFrame after a start byte")
	}
	d.Reset()
	if d.InFrame() {
		t.Error("InFrame after Reset")
	}
	check("aa 05 aa", ErrTruncated, "robotino: truncated frame: 1 bytes received, inside the length field")
}

// TestEscapedLength: a 170-byte payload has length byte 0xAA, which must be
// escaped; payload bytes 0xAA/0x55 too.
func TestEscapedLength(t *testing.T) {
	payload := bytes.Repeat([]byte{0x55, 0xaa}, 85)
	frame, err := AppendFrame(nil, payload)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(frame[:4], []byte{0xaa, 0x55, 0x8a, 0x00}) {
		t.Fatalf("frame starts % x, want aa 55 8a 00", frame[:4])
	}
	if bytes.IndexByte(frame[1:], StartByte) >= 0 {
		t.Fatal("unescaped 0xAA after the start byte")
	}
	if len(frame) != 1+1+2+2*len(payload)+2 && len(frame) != 1+1+2+2*len(payload)+3 && len(frame) != 1+1+2+2*len(payload)+4 {
		t.Fatalf("frame length %d", len(frame))
	}
	d := NewDecoder(nil, DecoderOptions{})
	n, got, err := d.Feed(frame)
	if err != nil || n != len(frame) || !bytes.Equal(got, payload) {
		t.Fatalf("n %d err %v", n, err)
	}
}

// TestNext reads through an io.Reader: one byte at a time, with errors
// reported to OnError, io.EOF at a clean end.
func TestNext(t *testing.T) {
	wire := hx(t, "00 01 aa 02 00 34 00 cb ff aa 02 00 34 00 ca ff aa 05 00 09 03 00 55 75 00 9a ff")
	var errs []error
	d := NewDecoder(iotest.OneByteReader(bytes.NewReader(wire)), DecoderOptions{OnError: func(err error) { errs = append(errs, err) }})
	p, err := d.Next()
	if err != nil || !bytes.Equal(p, []byte{0x34, 0}) {
		t.Fatalf("first: % x %v", p, err)
	}
	p, err = d.Next()
	if err != nil || !bytes.Equal(p, []byte{9, 3, 0, 0x55, 0}) {
		t.Fatalf("second: % x %v", p, err)
	}
	if _, err = d.Next(); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
	if len(errs) != 2 || !errors.Is(errs[0], ErrGarbage) || !errors.Is(errs[1], ErrChecksum) {
		t.Errorf("OnError got %v", errs)
	}
	if s := d.Stats(); s.Frames != 2 || s.Bytes != uint64(len(wire)) || s.BadChecksum != 1 || s.GarbageBytes != 2 || s.Errors() != 1 {
		t.Errorf("stats %+v", s)
	}
}

func TestNextEndsInsideFrame(t *testing.T) {
	// Data and io.EOF in the same Read: the data is used first.
	d := NewDecoder(iotest.DataErrReader(bytes.NewReader(hx(t, "aa 02 00 34 00 ca ff aa 02 00"))), DecoderOptions{})
	if p, err := d.Next(); err != nil || len(p) != 2 {
		t.Fatalf("%v %v", p, err)
	}
	_, err := d.Next()
	if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, ErrTruncated) {
		t.Fatalf("got %v, want ErrUnexpectedEOF and ErrTruncated", err)
	}
	if s := d.Stats(); s.Truncated != 1 {
		t.Errorf("stats %+v", s)
	}
	if _, err := d.Next(); err != io.EOF {
		t.Errorf("after the end: %v", err)
	}
}

type funcReader func([]byte) (int, error)

func (f funcReader) Read(p []byte) (int, error) { return f(p) }

func TestNextReaderErrors(t *testing.T) {
	// go.bug.st/serial returns (0, nil) when its read timeout expires.
	d := NewDecoder(funcReader(func([]byte) (int, error) { return 0, nil }), DecoderOptions{})
	if _, err := d.Next(); !errors.Is(err, ErrNoData) {
		t.Errorf("timeout read: %v", err)
	}
	boom := errors.New("boom")
	d = NewDecoder(funcReader(func([]byte) (int, error) { return 0, boom }), DecoderOptions{})
	if _, err := d.Next(); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "robotino: read: ") {
		t.Errorf("read error: %v", err)
	}
	d = NewDecoder(funcReader(func([]byte) (int, error) { return -1, nil }), DecoderOptions{})
	if _, err := d.Next(); err == nil {
		t.Error("invalid count accepted")
	}
	if _, err := NewDecoder(nil, DecoderOptions{}).Next(); !errors.Is(err, ErrNoReader) {
		t.Errorf("no reader: %v", err)
	}
}

// repeatReader serves the same bytes forever, without allocating.
type repeatReader struct {
	b   []byte
	off int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.b[r.off:])
		n += c
		r.off = (r.off + c) % len(r.b)
	}
	return n, nil
}

func TestDecoderAllocs(t *testing.T) {
	var p Payload
	p.ReplyMotorReadings(MotorReadings{Speed: [4]int16{85, -86, 170, 0}})
	p.ReplyOdometry(Odometry{X: 1, Y: 2, Phi: 3})
	p.ReplyPowerSource(PowerSource{BatteryVoltage: 24})
	frame, _ := p.AppendFrame(nil)
	d := NewDecoder(nil, DecoderOptions{})
	if n := testing.AllocsPerRun(1000, func() {
		if _, payload, err := d.Feed(frame); err != nil || payload == nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Feed allocates %v times per frame", n)
	}
	dn := NewDecoder(&repeatReader{b: frame}, DecoderOptions{ReadBuffer: 100})
	var r Readings
	if n := testing.AllocsPerRun(1000, func() {
		payload, err := dn.Next()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Parse(payload); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Next+Parse allocates %v times per frame", n)
	}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(1000, func() {
		p.Reset()
		p.SetDriveSpeeds([3]int16{100, -200, 300})
		p.SensorRequests(PollOptions{})
		buf, _ = p.AppendFrame(buf[:0])
	}); n != 0 {
		t.Errorf("building a frame allocates %v times", n)
	}
}

// TestStatsConcurrent reads Stats while decoding (run with -race).
func TestStatsConcurrent(t *testing.T) {
	frame := hx(t, "00 aa 02 00 34 00 ca ff")
	d := NewDecoder(&repeatReader{b: frame}, DecoderOptions{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 1000 {
			_ = d.Stats()
		}
	}()
	for range 1000 {
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if s := d.Stats(); s.Frames != 1000 {
		t.Errorf("frames %d", s.Frames)
	}
}
