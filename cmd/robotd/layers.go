package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/robotd/robotd/config"
	"github.com/robotd/robotd/hal"
)

// CameraConfig is a robot's camera calibration (its head's): per camera the
// extrinsic rotation offsets of the camera against the head's kinematic
// model, and the intrinsics (0 keeps the nominal values).
type CameraConfig struct {
	Top    CameraCalibration `json:"top"`
	Bottom CameraCalibration `json:"bottom"`
}

// CameraCalibration is one camera's calibration.
type CameraCalibration struct {
	// Roll, Pitch and Yaw offset the camera's mounting (rad).
	Roll  hal.Radians `json:"roll"`
	Pitch hal.Radians `json:"pitch"`
	Yaw   hal.Radians `json:"yaw"`
	// FocalX, FocalY, CentreX and CentreY are the intrinsics in pixels.
	FocalX  float64 `json:"focal_x"`
	FocalY  float64 `json:"focal_y"`
	CentreX float64 `json:"centre_x"`
	CentreY float64 `json:"centre_y"`
}

// maxCameraOffset bounds a camera's rotation offset.
const maxCameraOffset = 0.2

// Validate checks the calibration; errors name the key.
func (c *CameraConfig) Validate() error {
	var errs []error
	for _, cam := range []struct {
		name string
		c    *CameraCalibration
	}{{"top", &c.Top}, {"bottom", &c.Bottom}} {
		for _, a := range []struct {
			key string
			v   hal.Radians
		}{{"roll", cam.c.Roll}, {"pitch", cam.c.Pitch}, {"yaw", cam.c.Yaw}} {
			if math.IsNaN(float64(a.v)) || math.Abs(float64(a.v)) > maxCameraOffset {
				errs = append(errs, fmt.Errorf("camera.%s.%s: %v rad outside ±%v", cam.name, a.key, a.v, maxCameraOffset))
			}
		}
		for _, p := range []struct {
			key string
			v   float64
		}{{"focal_x", cam.c.FocalX}, {"focal_y", cam.c.FocalY}, {"centre_x", cam.c.CentreX}, {"centre_y", cam.c.CentreY}} {
			if p.v < 0 || math.IsNaN(p.v) {
				errs = append(errs, fmt.Errorf("camera.%s.%s: %v is negative", cam.name, p.key, p.v))
			}
		}
	}
	return errors.Join(errs...)
}

// applyLayers decodes the configuration directory's layers for this robot
// over cfg (defaults < location < robot), validating after each so that an
// error names the file and the key. ids ("BODY,HEAD"), if empty, are asked
// from the robot, after the location layer (which may say where LoLA is).
// It returns the files applied and the robot's name.
func applyLayers(ctx context.Context, cfg *Config, l config.Layers, ids string) ([]string, string, error) {
	validate := func() error {
		cfg.identify()
		return cfg.Validate()
	}
	var files []string
	loc, err := l.LocationFile()
	if err != nil {
		return nil, "", err
	}
	if loc != "" {
		if err := config.LoadLayers(cfg, validate, loc); err != nil {
			return nil, "", err
		}
		files = append(files, loc)
	}
	var rid config.RobotIDs
	if ids != "" {
		body, head, _ := strings.Cut(ids, ",")
		rid = config.RobotIDs{Body: body, Head: head}
	} else if rid, err = robotIDs(ctx, cfg); err != nil {
		return nil, "", err
	}
	f, name, err := l.RobotFile(rid)
	if err != nil {
		return nil, "", err
	}
	if f != "" {
		if err := config.LoadLayers(cfg, validate, f); err != nil {
			return nil, "", err
		}
		files = append(files, f)
	}
	return files, name, nil
}
