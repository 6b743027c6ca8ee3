package field

import "testing"

func TestSPLLandmarks(t *testing.T) {
	d := SPL()
	p, ok := d.Post(PostOppLeft)
	if !ok || p.X != 4.5 || p.Y != 0.8 {
		t.Fatalf("opponent left post = %+v", p)
	}
	if _, ok := d.Post(PostUnknown); ok {
		t.Fatal("unknown post has a position")
	}
	c := d.Corners()
	if c[0].X != 4.5 || c[0].Y != 3 || c[4].X != 3.9 || c[4].Y != 1.1 {
		t.Fatalf("corners = %+v", c)
	}
	tj := d.TJunctions()
	if tj[0].Y != 3 || tj[2].X != 4.5 || tj[2].Y != 1.1 {
		t.Fatalf("T-junctions = %+v", tj)
	}
	for _, q := range c {
		if !d.Inside(q) {
			t.Fatalf("corner %+v not inside", q)
		}
	}
	if d.Inside(d.CentreCircle()) != true || d.Inside(struct{ X, Y float64 }{6, 0}) {
		t.Fatal("Inside wrong")
	}
}
