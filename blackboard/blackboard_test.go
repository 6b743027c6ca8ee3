package blackboard_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotd/robotd/blackboard"
)

type small struct {
	X, Y float64
	N    int
}

type joints25 struct{ A [25]float64 }

func TestWriteReadStampsTick(t *testing.T) {
	b := blackboard.New()
	k := blackboard.NewKey[small]("test.small")
	w, err := blackboard.Write(b, "producer", k)
	if err != nil {
		t.Fatal(err)
	}
	r, err := blackboard.Read(b, "consumer", k)
	if err != nil {
		t.Fatal(err)
	}
	if v, m := r.Get(); m.Valid() || m.Fresh || v != (small{}) {
		t.Fatalf("before any write: got %+v %+v, want zero and invalid", v, m)
	}
	b.BeginTick(1, 10*time.Millisecond)
	w.Set(small{1, 2, 3})
	v, m := r.Get()
	if v != (small{1, 2, 3}) || m.Tick != 1 || m.Time != 10*time.Millisecond || !m.Fresh || !m.Valid() {
		t.Fatalf("got %+v %+v", v, m)
	}
	b.BeginTick(2, 20*time.Millisecond)
	v, m = r.Get()
	if v != (small{1, 2, 3}) || m.Tick != 1 || m.Fresh {
		t.Fatalf("next tick without write: got %+v %+v, want the old value, not fresh", v, m)
	}
}

func TestDuplicateWriter(t *testing.T) {
	b := blackboard.New()
	k := blackboard.NewKey[small]("motion.request")
	if _, err := blackboard.Write(b, "behaviour", k); err != nil {
		t.Fatal(err)
	}
	_, err := blackboard.Write(b, "perception", k)
	var dup *blackboard.DuplicateWriterError
	if !errors.As(err, &dup) {
		t.Fatalf("second writer: err = %v, want DuplicateWriterError", err)
	}
	for _, want := range []string{"motion.request", "behaviour", "perception"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

func TestTypeChecks(t *testing.T) {
	type withSlice struct{ S []int }
	type withPtr struct{ P *int }
	type nested struct{ In [2]struct{ M map[string]int } }
	tests := []struct {
		name string
		reg  func(b *blackboard.Board) error
		want string
	}{
		{"slice", func(b *blackboard.Board) error {
			_, err := blackboard.Write(b, "m", blackboard.NewKey[withSlice]("a"))
			return err
		}, "withSlice.S is a slice"},
		{"pointer", func(b *blackboard.Board) error {
			_, err := blackboard.Read(b, "m", blackboard.NewKey[withPtr]("a"))
			return err
		}, "withPtr.P is a ptr"},
		{"nested map", func(b *blackboard.Board) error {
			_, err := blackboard.Write(b, "m", blackboard.NewKey[nested]("a"))
			return err
		}, ".M is a map"},
		{"type mismatch", func(b *blackboard.Board) error {
			if _, err := blackboard.Write(b, "m", blackboard.NewKey[small]("a")); err != nil {
				return err
			}
			_, err := blackboard.Read(b, "n", blackboard.NewKey[joints25]("a"))
			return err
		}, "exists with type blackboard_test.small"},
		{"empty name", func(b *blackboard.Board) error {
			_, err := blackboard.Write(b, "m", blackboard.NewKey[small](""))
			return err
		}, "empty entry name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.reg(blackboard.New())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestValidateMissingWriter(t *testing.T) {
	b := blackboard.New()
	if _, err := blackboard.Read(b, "behaviour", blackboard.NewKey[small]("world.ball")); err != nil {
		t.Fatal(err)
	}
	if _, err := blackboard.ReadOptional(b, "debug", blackboard.NewKey[small]("cmd.leds")); err != nil {
		t.Fatal(err)
	}
	err := b.Validate()
	var miss *blackboard.MissingWriterError
	if !errors.As(err, &miss) || miss.Entry != "world.ball" || len(miss.Readers) != 1 || miss.Readers[0] != "behaviour" {
		t.Fatalf("Validate = %v, want missing producer for world.ball read by behaviour", err)
	}
	if _, err := blackboard.Write(b, "perception", blackboard.NewKey[small]("world.ball")); err != nil {
		t.Fatal(err)
	}
	if err := b.Validate(); err != nil {
		t.Fatalf("Validate after adding the writer: %v", err)
	}
}

func TestIntrospection(t *testing.T) {
	b := blackboard.New()
	w, _ := blackboard.Write(b, "perception", blackboard.NewKey[small]("world.small"))
	_, _ = blackboard.Read(b, "behaviour", blackboard.NewKey[small]("world.small"))
	_, _ = blackboard.Write(b, "motion", blackboard.NewKey[joints25]("cmd.joints"))
	b.BeginTick(7, 70*time.Millisecond)
	w.Set(small{X: 0.5, N: 4})

	es := b.Entries()
	if len(es) != 2 || es[0].Name != "world.small" || es[0].Writer != "perception" ||
		es[0].Type != "blackboard_test.small" || len(es[0].Readers) != 1 || es[0].Readers[0] != "behaviour" {
		t.Fatalf("Entries = %+v", es)
	}
	var buf bytes.Buffer
	if err := b.Snapshot().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tick    uint64
		Entries map[string]struct {
			Type  string
			Tick  uint64
			Value json.RawMessage
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("snapshot is not JSON: %v\n%s", err, buf.String())
	}
	if got.Tick != 7 || got.Entries["world.small"].Tick != 7 || got.Entries["cmd.joints"].Tick != 0 {
		t.Fatalf("snapshot ticks wrong: %s", buf.String())
	}
	var v small
	if err := json.Unmarshal(got.Entries["world.small"].Value, &v); err != nil || v != (small{X: 0.5, N: 4}) {
		t.Fatalf("snapshot value = %s (%v)", got.Entries["world.small"].Value, err)
	}
	decl := b.Declarations()
	if len(decl) != 3 || decl[0].Module != "perception" || decl[1].Module != "behaviour" || decl[1].Reads[0] != "world.small" {
		t.Fatalf("Declarations = %+v", decl)
	}
}

// TestConcurrentReadsAreConsistent hammers one entry with a writer and
// several readers; every value read must be one that was written whole. Run
// with -race.
func TestConcurrentReadsAreConsistent(t *testing.T) {
	b := blackboard.New()
	k := blackboard.NewKey[joints25]("hal.joints")
	w, _ := blackboard.Write(b, "hal", k)
	const readers = 4
	rs := make([]*blackboard.Reader[joints25], readers)
	for i := range rs {
		rs[i], _ = blackboard.Read(b, "reader", k)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan string, readers)
	for _, r := range rs {
		wg.Go(func() {
			var v joints25
			for {
				select {
				case <-stop:
					return
				default:
				}
				m := r.Load(&v)
				for i := range v.A {
					if v.A[i] != v.A[0] || (m.Valid() && v.A[0] != float64(m.Tick)) {
						errs <- "torn read"
						return
					}
				}
			}
		})
	}
	for i := uint64(1); i <= 20000; i++ {
		b.BeginTick(i, 0)
		var v joints25
		for j := range v.A {
			v.A[j] = float64(i)
		}
		w.Set(v)
	}
	close(stop)
	wg.Wait()
	select {
	case e := <-errs:
		t.Fatal(e)
	default:
	}
}

func TestSteadyStateAllocs(t *testing.T) {
	b := blackboard.New()
	k := blackboard.NewKey[joints25]("hal.joints")
	w, _ := blackboard.Write(b, "hal", k)
	r, _ := blackboard.Read(b, "m", k)
	var v joints25
	w.Set(v)
	w.Set(v)
	if n := testing.AllocsPerRun(1000, func() {
		v.A[0]++
		w.Set(v)
		r.Load(&v)
	}); n != 0 {
		t.Fatalf("write+read allocates %v per run, want 0", n)
	}
}

// TestSnapshotJSONNonFinite: a NaN or ±Inf in one entry does not fail the
// snapshot; those numbers become strings and the other entries are intact.
func TestSnapshotJSONNonFinite(t *testing.T) {
	type vec struct {
		X, Y float64
		F    float32 `json:"f"`
		L    [2]float64
	}
	b := blackboard.New()
	bad, err := blackboard.Write(b, "hal", blackboard.NewKey[vec]("hal.bad"))
	if err != nil {
		t.Fatal(err)
	}
	good, _ := blackboard.Write(b, "hal", blackboard.NewKey[small]("hal.good"))
	b.BeginTick(3, 30*time.Millisecond)
	bad.Set(vec{X: math.NaN(), Y: math.Inf(-1), F: float32(math.Inf(1)), L: [2]float64{1, math.NaN()}})
	good.Set(small{X: 0.25, N: 2})
	var buf bytes.Buffer
	if err := b.Snapshot().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Entries map[string]struct{ Value json.RawMessage }
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, buf.String())
	}
	if s := string(got.Entries["hal.bad"].Value); s != `{"L":[1,"NaN"],"X":"NaN","Y":"-Inf","f":"+Inf"}` {
		t.Errorf("hal.bad = %s", s)
	}
	var v small
	if err := json.Unmarshal(got.Entries["hal.good"].Value, &v); err != nil || v != (small{X: 0.25, N: 2}) {
		t.Errorf("hal.good = %s (%v)", got.Entries["hal.good"].Value, err)
	}
}
