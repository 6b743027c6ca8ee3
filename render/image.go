package render

import (
	"image"
	"image/color"
)

// Image converts the frame to an RGBA image (for viewing and PNG files;
// it allocates).
func (f *Frame) Image() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, f.Width, f.Height))
	for i := 0; i+3 < len(f.Data); i += 4 {
		u, v := f.Data[i+1], f.Data[i+3]
		p := i / 2
		x, y := p%f.Width, p/f.Width
		r, g, b := color.YCbCrToRGB(f.Data[i], u, v)
		img.SetRGBA(x, y, color.RGBA{r, g, b, 255})
		r, g, b = color.YCbCrToRGB(f.Data[i+2], u, v)
		img.SetRGBA(x+1, y, color.RGBA{r, g, b, 255})
	}
	return img
}

// YUV returns pixel (u, v)'s Y, Cb and Cr.
func (f *Frame) YUV(u, v int) (y, cb, cr byte) {
	i := 2 * (v*f.Width + u)
	j := i &^ 3
	return f.Data[i], f.Data[j+1], f.Data[j+3]
}
