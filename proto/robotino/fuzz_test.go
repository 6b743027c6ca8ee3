package robotino

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecoder: the Decoder never panics; it produces the same frames,
// errors and counters whether the input arrives at once or byte by byte;
// it accounts for every byte; every frame it accepts re-encodes to a frame
// that decodes to the same payload; Readings.Parse copes with any payload;
// and any payload survives AppendFrame + decoding. Seed corpus:
// testdata/fuzz/FuzzDecoder.
func FuzzDecoder(f *testing.F) {
	for _, s := range []string{
		"aa 02 00 34 00 ca ff",
		"aa 05 00 09 03 00 55 75 00 9a ff",
		"aa 01 00 55 8a 55 75 ff",
		"00 11 aa 02 00 34 00 cb ff aa 05 00 09 aa 02 00 34 00 ca ff",
	} {
		f.Add(hx(f, s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 300 // small limit so that ErrBadLength is reachable
		whole := NewDecoder(nil, DecoderOptions{MaxPayload: max})
		evs := feedAll(whole, data, 0)
		single := NewDecoder(nil, DecoderOptions{MaxPayload: max})
		evs1 := feedAll(single, data, 1)
		if len(evs) != len(evs1) {
			t.Fatalf("whole %v\nbyte-wise %v", evs, evs1)
		}
		for i := range evs {
			if evs[i] != evs1[i] {
				t.Fatalf("whole %v\nbyte-wise %v", evs, evs1)
			}
		}
		st := whole.Stats()
		if st != single.Stats() || st.Bytes != uint64(len(data)) {
			t.Fatalf("stats %+v vs %+v (len %d)", st, single.Stats(), len(data))
		}
		frames := 0
		var r Readings
		for _, e := range evs {
			if e.kind != nil {
				continue
			}
			frames++
			payload := []byte(e.payload) // hex
			raw := make([]byte, len(payload)/2)
			for i := range raw {
				raw[i] = unhex(payload[2*i])<<4 | unhex(payload[2*i+1])
			}
			err := r.Parse(raw)
			var tle *TagLengthError
			if err != nil && !errors.Is(err, ErrTLV) && !errors.As(err, &tle) {
				t.Fatalf("Parse error %v of unexpected type", err)
			}
			checkRoundTrip(t, raw, max)
		}
		if uint64(frames) != st.Frames {
			t.Fatalf("%d frames, stats say %d", frames, st.Frames)
		}
		if len(data) <= max {
			checkRoundTrip(t, data, max)
		}
	})
}

// checkRoundTrip encodes payload as a frame, preceded by garbage, and
// checks that it decodes back.
func checkRoundTrip(t *testing.T, payload []byte, max int) {
	t.Helper()
	frame, err := AppendFrame([]byte{0x00, 0x55}, payload)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.IndexByte(frame[3:], StartByte) >= 0 {
		t.Fatalf("unescaped start byte in % x", frame)
	}
	d := NewDecoder(nil, DecoderOptions{MaxPayload: max})
	n, p, err := d.Feed(frame)
	if !errors.Is(err, ErrGarbage) || n != 3 {
		t.Fatalf("garbage prefix: n=%d err %v", n, err)
	}
	n2, p, err := d.Feed(frame[n:])
	if err != nil || p == nil || !bytes.Equal(p, payload) || n+n2 != len(frame) {
		t.Fatalf("round trip of % x: got % x, err %v", payload, p, err)
	}
}

func unhex(c byte) byte {
	if c >= 'a' {
		return c - 'a' + 10
	}
	return c - '0'
}
