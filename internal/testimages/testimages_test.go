package testimages

import (
	"image"
	"image/color"
	"testing"
)

func TestHTWK(t *testing.T) {
	imgs, err := HTWK()
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range imgs {
		if im.Width != 640 || im.Height != 480 || len(im.YUYV) != 640*480*2 || len(im.Labels.Balls) != 1 {
			t.Errorf("%s: %d×%d, %d bytes, %d balls", im.Name, im.Width, im.Height, len(im.YUYV), len(im.Labels.Balls))
		}
		if fb := im.Labels.FieldBoundary; fb[0] <= 0 || fb[1] <= fb[0] {
			t.Errorf("%s: field boundary band %v", im.Name, fb)
		}
	}
}

// TestYUYVRoundTrip: known colours survive the conversion and back within
// rounding, and a pair's chroma is the mean of its pixels'.
func TestYUYVRoundTrip(t *testing.T) {
	cols := []color.RGBA{{0, 0, 0, 255}, {255, 255, 255, 255}, {255, 0, 0, 255}, {0, 160, 0, 255}, {20, 40, 200, 255}, {128, 128, 128, 255}}
	img := image.NewRGBA(image.Rect(0, 0, 2*len(cols), 2))
	for i, c := range cols {
		for y := range 2 {
			img.Set(2*i, y, c)
			img.Set(2*i+1, y, c)
		}
	}
	yuyv := ToYUYV(img)
	if len(yuyv) != 2*len(cols)*2*2 {
		t.Fatalf("%d bytes", len(yuyv))
	}
	for i, c := range cols {
		r, g, b := RGBAt(yuyv, 2*len(cols), 2*i+1, 1)
		for _, d := range []int{int(r) - int(c.R), int(g) - int(c.G), int(b) - int(c.B)} {
			if d < -2 || d > 2 {
				t.Errorf("colour %v came back as %d %d %d", c, r, g, b)
				break
			}
		}
	}
	// White is Y 255, U and V 128.
	if yuyv[4] != 255 || yuyv[5] != 128 || yuyv[7] != 128 {
		t.Errorf("white: % x", yuyv[4:8])
	}
}
