package simspark

import (
	"reflect"
	"strings"
	"testing"
)

// fieldAt returns the Go field of type t (or of a struct nested in it) that
// starts at offset off and has type want, and its path.
func fieldAt(t reflect.Type, off uintptr, want reflect.Type) (string, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Offset > off || off >= f.Offset+f.Type.Size() {
			continue
		}
		if f.Offset == off && f.Type == want {
			return f.Name, true
		}
		if f.Type.Kind() == reflect.Struct {
			if path, ok := fieldAt(f.Type, off-f.Offset, want); ok {
				return f.Name + "." + path, true
			}
		}
	}
	return "", false
}

// TestPerceptorTables checks that every destination in the tables
// perceptors and seeItems is a Go field of the type its value is written
// as, in the record Perception.record gives the perceptor: the walker
// writes through these offsets with package unsafe.
func TestPerceptorTables(t *testing.T) {
	records := map[Kind]reflect.Type{
		KindHJ:    reflect.TypeFor[JointAngle](),
		KindFRP:   reflect.TypeFor[ForceResistance](),
		KindTCH:   reflect.TypeFor[Touch](),
		SeePlayer: reflect.TypeFor[Player](),
	}
	var p Perception
	p.See.Parts = make([]BodyPart, 3)
	for _, table := range [][]perceptor{perceptors[:], seeItems[:]} {
		for _, pc := range table {
			rec := records[pc.kind]
			if rec == nil {
				rec = reflect.TypeFor[Perception]()
			}
			if pc.shape != shapeFields && pc.shape != shapeValues {
				if len(pc.fields) != 0 {
					t.Errorf("%s: fields for a perceptor of its own shape", pc.name)
				}
				continue
			}
			// The record is the one Perception.record gives.
			if i, ptr := p.record(pc.kind); pc.once != (rec == reflect.TypeFor[Perception]()) || i != 0 || ptr == nil {
				t.Errorf("%s: once %v, but record gives element %d of a %v", pc.name, pc.once, i, rec)
			}
			if pc.kind == SeePlayer && p.See.Players[0].PartStart != 3 {
				t.Errorf("P: record does not start the parts at the end of See.Parts")
			}
			if len(pc.fields) == 0 || len(pc.fields) > maxFields {
				t.Errorf("%s: %d fields", pc.name, len(pc.fields))
			}
			if pc.need>>len(pc.fields) != 0 || (pc.need != 0) != (pc.missing != "") || pc.missing != "" && !strings.HasPrefix(pc.missing, pc.name+": ") {
				t.Errorf("%s: need %b, missing %q", pc.name, pc.need, pc.missing)
			}
			if pc.shape == shapeValues && (len(pc.fields) != 1 || !pc.once) {
				t.Errorf("%s: values of shape shapeValues are one field of a perceptor that appears once", pc.name)
			}
			for j, f := range pc.fields {
				name := pc.name + " " + f.key
				if f.val != valPart && (f.what == "" || f.end == "") {
					t.Errorf("%s: no name for errors", name)
				}
				if (f.key == "") != (f.val == valPart || pc.shape == shapeValues) || f.key == "" && pc.shape == shapeFields && j != len(pc.fields)-1 {
					t.Errorf("%s: key %q for a value of kind %d", name, f.key, f.val)
				}
				for k := range j {
					if f.key != "" && pc.fields[k].key == f.key {
						t.Errorf("%s: two fields", name)
					}
				}
				var want reflect.Type
				switch f.val {
				case valNumbers:
					want = reflect.ArrayOf(int(f.n), reflect.TypeFor[float64]())
					if f.n == 1 {
						want = reflect.TypeFor[float64]()
					}
				case valInt:
					want = reflect.TypeFor[int]()
				case valName:
					want = reflect.TypeFor[Span]()
				case valJoint:
					want = reflect.TypeFor[JointID]()
				case valPart:
					if pc.kind != SeePlayer || f.has != 0 || f.at != 0 {
						t.Errorf("%s: body parts outside P", name)
					}
					continue
				}
				if path, ok := fieldAt(rec, f.at, want); !ok {
					t.Errorf("%s: offset %d of %v is no %v", name, f.at, rec, want)
				} else {
					t.Logf("%s → %v.%s", name, rec, path)
				}
				if f.has != noFlag {
					if _, ok := fieldAt(rec, f.has, reflect.TypeFor[bool]()); !ok {
						t.Errorf("%s: flag offset %d of %v is no bool", name, f.has, rec)
					}
				}
			}
		}
	}
}
