package motion

import (
	"io/fs"
	"path"
	"testing"

	"github.com/robotd/robotd/hal"
	"github.com/robotd/robotd/hal/body"
)

// TestSimSparkActionsWithinLimits: every keyframe of the SimSpark body's
// actions keeps every joint it sets within that body's joint ranges (the
// model's hinge stops, which differ from the NAO v6's in places), so that
// no keyframe asks for a pose the model's stops refuse.
func TestSimSparkActionsWithinLimits(t *testing.T) {
	m := body.SimSpark()
	dir := actionDir(body.SimSparkNAO)
	files, err := fs.Glob(actions, dir+"/*.kf")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 4 {
		t.Fatalf("%s holds %d actions, want the two kicks and two get-ups", dir, len(files))
	}
	for _, f := range files {
		data, err := actions.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		k, err := ParseKeyframes(path.Base(f), data)
		if err != nil {
			t.Fatal(err)
		}
		for _, fr := range k.Frames {
			for j := range hal.Joint(hal.NumJoints) {
				if !fr.Set.Has(j) {
					continue
				}
				lim := m.Joints[j]
				if !lim.Present {
					t.Errorf("%s:%d: %v: the SimSpark model has no such joint", f, fr.Line, j)
					continue
				}
				const eps = 1e-6
				if lim.Enforced && (fr.Angle[j] < lim.Min-eps || fr.Angle[j] > lim.Max+eps) {
					t.Errorf("%s:%d: %v=%.2f° outside the model's range [%.2f°, %.2f°]", f, fr.Line, j,
						fr.Angle[j].Degrees(), lim.Min.Degrees(), lim.Max.Degrees())
				}
			}
		}
	}
}
