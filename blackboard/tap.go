package blackboard

import (
	"reflect"
	"unsafe"
)

// Tap is a raw reader of one entry, for a recorder: Load copies the entry's
// current value into memory the tap owns, at Value, and returns its Meta.
// A recorder encodes from there with a layout it compiled from Type (see
// package record/codec). Each tap has a reader slot of its own that no
// declaration knows of, so it changes neither validation nor module order.
// Like a Reader, a tap is used from one goroutine at a time.
type Tap struct {
	Name, Writer string
	Type         reflect.Type
	load         func() Meta
	val          unsafe.Pointer
}

// Load copies the current value to Value and returns its Meta.
func (t *Tap) Load() Meta { return t.load() }

// Value is where Load puts the value: a *T for the entry's type T.
func (t *Tap) Value() unsafe.Pointer { return t.val }

// tappable is implemented by every *entryOf[T].
type tappable interface{ tap() Tap }

func (e *entryOf[T]) tap() Tap {
	r := &Reader[T]{e: e, h: e.addHazard()}
	v := new(T)
	return Tap{Name: e.name, Writer: e.writer, Type: e.typ, load: func() Meta { return r.Load(v) }, val: unsafe.Pointer(v)}
}

// Taps returns a tap on every entry registered now, in registration order.
// Each call adds one reader slot to every entry, so take them once per
// recorder.
func (b *Board) Taps() []Tap {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Tap, 0, len(b.order))
	for _, e := range b.order {
		out = append(out, e.(tappable).tap())
	}
	return out
}
