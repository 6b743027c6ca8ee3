// Package testimages gives tests real NAO camera images as the cameras
// deliver them, YUYV, with hand labels: three upper-camera images of Nao-Team
// HTWK (testdata/htwk-vision-2015, origin and licence in its README.md).
// "This product includes software developed by Nao-Team HTWK
// (www.htwk-robots.de)."
//
// It is for tests only: it embeds the images.
package testimages

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"path"
	"slices"
	"strings"
)

//go:embed testdata/htwk-vision-2015/*.png testdata/htwk-vision-2015/labels.json
var files embed.FS

const dir = "testdata/htwk-vision-2015"

// Ball is a labelled ball: centre and radius in pixels.
type Ball struct {
	CX, CY, R float64
}

// Labels are an image's hand labels (about ±5 px).
type Labels struct {
	Balls []Ball
	// FieldBoundary is the band of rows the field boundary lies in.
	FieldBoundary [2]int
	// CentreCircle is true where the centre circle is in view.
	CentreCircle bool
}

// Image is one labelled image.
type Image struct {
	Name          string
	Width, Height int
	// YUYV is the image in YUV 4:2:2 as V4L2_PIX_FMT_YUYV: Y0 U Y1 V per
	// two pixels, ITU-R BT.601 full range (JFIF's conversion).
	YUYV   []byte
	Labels Labels
}

type labelFile struct {
	Images map[string]struct {
		Ball []struct {
			CX, CY, R float64
		} `json:"ball"`
		CentreCircle  bool   `json:"center_circle_visible"`
		FieldBoundary [2]int `json:"field_boundary_y_range"`
	} `json:"images"`
}

// HTWK returns the three images, in name order.
func HTWK() ([]Image, error) {
	raw, err := files.ReadFile(path.Join(dir, "labels.json"))
	if err != nil {
		return nil, fmt.Errorf("testimages: %w", err)
	}
	var lf labelFile
	if err := json.Unmarshal(raw, &lf); err != nil {
		return nil, fmt.Errorf("testimages: labels.json: %w", err)
	}
	ents, err := files.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("testimages: %w", err)
	}
	var out []Image
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".png") {
			continue
		}
		data, err := files.ReadFile(path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("testimages: %w", err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("testimages: decoding %s: %w", name, err)
		}
		l, ok := lf.Images[name]
		if !ok {
			return nil, fmt.Errorf("testimages: %s has no labels", name)
		}
		b := img.Bounds()
		im := Image{Name: name, Width: b.Dx(), Height: b.Dy(), YUYV: ToYUYV(img),
			Labels: Labels{FieldBoundary: l.FieldBoundary, CentreCircle: l.CentreCircle}}
		for _, ball := range l.Ball {
			im.Labels.Balls = append(im.Labels.Balls, Ball{ball.CX, ball.CY, ball.R})
		}
		out = append(out, im)
	}
	slices.SortFunc(out, func(a, b Image) int { return strings.Compare(a.Name, b.Name) })
	if len(out) != 3 {
		return nil, fmt.Errorf("testimages: %d images, want 3", len(out))
	}
	return out, nil
}

// ToYUYV converts an image (of even width) to YUYV: each pair of pixels
// gets its own two lumas and the mean of their chromas.
func ToYUYV(img image.Image) []byte {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := make([]byte, 0, w*h*2)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			y0, u0, v0 := yuv(img, x, y)
			y1, u1, v1 := y0, u0, v0
			if x+1 < b.Max.X {
				y1, u1, v1 = yuv(img, x+1, y)
			}
			out = append(out, clamp(y0), clamp((u0+u1)/2), clamp(y1), clamp((v0+v1)/2))
		}
	}
	return out
}

// yuv is BT.601 full range, from 8-bit RGB.
func yuv(img image.Image, x, y int) (float64, float64, float64) {
	r16, g16, b16, _ := img.At(x, y).RGBA()
	r, g, b := float64(r16>>8), float64(g16>>8), float64(b16>>8)
	return 0.299*r + 0.587*g + 0.114*b,
		128 - 0.168736*r - 0.331264*g + 0.5*b,
		128 + 0.5*r - 0.418688*g - 0.081312*b
}

func clamp(v float64) byte { return byte(min(max(v+0.5, 0), 255)) }

// RGBAt returns pixel (x, y) of a YUYV image of width w converted back to
// RGB, for checks.
func RGBAt(yuyv []byte, w, x, y int) (r, g, b uint8) {
	i := (y*w + x&^1) * 2
	luma := float64(yuyv[i])
	if x&1 == 1 {
		luma = float64(yuyv[i+2])
	}
	u, v := float64(yuyv[i+1])-128, float64(yuyv[i+3])-128
	return clamp(luma + 1.402*v), clamp(luma - 0.344136*u - 0.714136*v), clamp(luma + 1.772*u)
}
