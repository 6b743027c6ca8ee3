package v4l2

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/hal"
)

var (
	descFrames    = prometheus.NewDesc("robotd_camera_frames_total", "Camera images published.", []string{"camera"}, nil)
	descSkipped   = prometheus.NewDesc("robotd_camera_skipped_total", "Camera images left out because a newer one was ready.", []string{"camera"}, nil)
	descDropped   = prometheus.NewDesc("robotd_camera_dropped_total", "Camera images lost because every frame of the pool was in use.", []string{"camera"}, nil)
	descCorrupt   = prometheus.NewDesc("robotd_camera_corrupt_total", "Camera buffers of the wrong size.", []string{"camera"}, nil)
	descResets    = prometheus.NewDesc("robotd_camera_resets_total", "Camera resets (closed and opened again) after a stall or an error.", []string{"camera"}, nil)
	descStreaming = prometheus.NewDesc("robotd_camera_streaming", "1 while the camera streams.", []string{"camera"}, nil)
)

// Describe implements prometheus.Collector.
func (s *Set) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descFrames, descSkipped, descDropped, descCorrupt, descResets, descStreaming} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: the counters of every camera
// configured.
func (s *Set) Collect(ch chan<- prometheus.Metric) {
	for i, c := range s.cfgs {
		if c.Device == "" {
			continue
		}
		var st Stats
		if capt := s.caps[i]; capt != nil {
			st = capt.Stats()
		}
		name := hal.CameraID(i).String()
		for _, m := range []struct {
			d *prometheus.Desc
			v uint64
		}{{descFrames, st.Frames}, {descSkipped, st.Skipped}, {descDropped, st.Dropped}, {descCorrupt, st.Corrupt}, {descResets, st.Resets}} {
			ch <- prometheus.MustNewConstMetric(m.d, prometheus.CounterValue, float64(m.v), name)
		}
		on := 0.0
		if st.Streaming {
			on = 1
		}
		ch <- prometheus.MustNewConstMetric(descStreaming, prometheus.GaugeValue, on, name)
	}
}
