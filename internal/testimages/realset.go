package testimages

import (
	"embed"
	"io/fs"
)

// The labelled real-image set: NAO camera frames of several teams with
// labels.json (balls, robots, penalty marks, field boundary, camera pose;
// each image's origin and licence in its entry), the set
// experiments/visioneval measures the vision pipeline on.
//
//go:embed testdata/realset
var realset embed.FS

// RealSet returns the labelled real-image set: labels.json and the images
// it names, paths relative to it.
func RealSet() fs.FS {
	sub, err := fs.Sub(realset, "testdata/realset")
	if err != nil {
		panic(err) // the directory is embedded: cannot happen
	}
	return sub
}
