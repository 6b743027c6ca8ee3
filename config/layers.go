package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A team's configuration directory holds the layers a robot's configuration
// is made of, each a JSON file in the robot's configuration format decoded
// over the one before (keys it does not set keep their value):
//
//	defaults in code
//	< location/<location>.json   the field and the team (one per venue)
//	< robots/<name>.json         the robot: joint offsets, camera
//	                             calibration, player number, team
//
// robots.json names the robots by the body and head IDs LoLA reports in
// RobotConfig, as B-Human's robots.cfg and HULKs' body./head. directories
// do:
//
//	{"robots": [{"name": "nao21", "body_id": "P0000074A03S84F00006", "head_id": "P0000073A03S83I00011"}]}

// RobotIDs are the IDs a robot reports (LoLA's RobotConfig body and head
// IDs).
type RobotIDs struct {
	Body, Head string
}

// RobotEntry is one robot of robots.json.
type RobotEntry struct {
	Name   string `json:"name"`
	BodyID string `json:"body_id"`
	HeadID string `json:"head_id"`
}

// Robots is robots.json.
type Robots struct {
	Robots []RobotEntry `json:"robots"`
}

// Layers locates the layer files in a configuration directory.
type Layers struct {
	// Dir is the configuration directory.
	Dir string
	// Location names the location layer (location/<Location>.json); empty
	// for none.
	Location string
}

// LoadRobots reads and checks robots.json.
func (l Layers) LoadRobots() (Robots, error) {
	var r Robots
	file := filepath.Join(l.Dir, "robots.json")
	if err := Load(file, &r); err != nil {
		return r, err
	}
	var errs []error
	names, bodies := map[string]bool{}, map[string]bool{}
	for i, e := range r.Robots {
		at := fmt.Sprintf("%s: robots[%d]", file, i)
		switch {
		case e.Name == "" || strings.ContainsAny(e.Name, `/\`) || e.Name[0] == '.':
			errs = append(errs, fmt.Errorf("%s.name: %q is not a file name", at, e.Name))
		case names[e.Name]:
			errs = append(errs, fmt.Errorf("%s.name: %q given twice", at, e.Name))
		}
		if e.BodyID == "" {
			errs = append(errs, fmt.Errorf("%s.body_id: empty", at))
		} else if bodies[e.BodyID] {
			errs = append(errs, fmt.Errorf("%s.body_id: %q given twice", at, e.BodyID))
		}
		names[e.Name], bodies[e.BodyID] = true, true
	}
	return r, errors.Join(errs...)
}

// Find returns the robot with these IDs: its body ID must match, and its
// head ID too where robots.json gives one (a head moved to another body
// carries its camera calibration with it, so a mismatch is an error).
func (r Robots) Find(ids RobotIDs) (RobotEntry, error) {
	for _, e := range r.Robots {
		if e.BodyID != ids.Body {
			continue
		}
		if e.HeadID != "" && e.HeadID != ids.Head {
			return e, fmt.Errorf("robot %q has head_id %q, but the robot reports head %q (head swapped? update robots.json and the camera calibration)", e.Name, e.HeadID, ids.Head)
		}
		return e, nil
	}
	return RobotEntry{}, fmt.Errorf("no robot with body_id %q (head %q)", ids.Body, ids.Head)
}

// LocationFile returns the location layer's file, "" if no location is
// named; the file must exist.
func (l Layers) LocationFile() (string, error) {
	if l.Location == "" {
		return "", nil
	}
	f := filepath.Join(l.Dir, "location", l.Location+".json")
	if _, err := os.Stat(f); err != nil {
		return "", fmt.Errorf("config: location %q: %w", l.Location, err)
	}
	return f, nil
}

// RobotFile returns the robot layer's file for the robot with ids ("" if
// that robot has no file of its own) and the robot's name.
func (l Layers) RobotFile(ids RobotIDs) (string, string, error) {
	robots, err := l.LoadRobots()
	if err != nil {
		return "", "", err
	}
	e, err := robots.Find(ids)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", filepath.Join(l.Dir, "robots.json"), err)
	}
	f := filepath.Join(l.Dir, "robots", e.Name+".json")
	switch _, err := os.Stat(f); {
	case err == nil:
		return f, e.Name, nil
	case errors.Is(err, os.ErrNotExist):
		return "", e.Name, nil
	default:
		return "", "", fmt.Errorf("config: %w", err)
	}
}

// LoadLayers decodes files in order over dst, which holds the defaults,
// and runs validate after each, so that an error names the file that
// brought it; validate's errors should name the key.
func LoadLayers(dst any, validate func() error, files ...string) error {
	for _, f := range files {
		if f == "" {
			continue
		}
		if err := Load(f, dst); err != nil {
			return err
		}
		if validate == nil {
			continue
		}
		if err := validate(); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
}
