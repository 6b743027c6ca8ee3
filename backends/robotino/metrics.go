package robotino

import "github.com/prometheus/client_golang/prometheus"

var (
	descFrames       = prometheus.NewDesc("robotd_robotino_frames_total", "Valid frames received from the base controller.", nil, nil)
	descFrameErrors  = prometheus.NewDesc("robotd_robotino_frame_errors_total", "Framing errors skipped (the decoder resynchronises on the next start byte), by kind.", []string{"kind"}, nil)
	descGarbageBytes = prometheus.NewDesc("robotd_robotino_garbage_bytes_total", "Bytes skipped outside frames.", nil, nil)
	descRejected     = prometheus.NewDesc("robotd_robotino_rejected_replies_total", "Replies with a NaN, infinite or implausible value (skipped).", nil, nil)
	descTimeouts     = prometheus.NewDesc("robotd_robotino_reply_timeouts_total", "Replies later than read_timeout.", nil, nil)
	descLost         = prometheus.NewDesc("robotd_robotino_ports_lost_total", "Serial ports that failed or were given up.", nil, nil)
	descWriteErrs    = prometheus.NewDesc("robotd_robotino_write_errors_total", "Failed writes to the base controller.", nil, nil)
	descBaseErrors   = prometheus.NewDesc("robotd_robotino_base_errors_total", "ERROR messages from the base controller.", nil, nil)
	descStops        = prometheus.NewDesc("robotd_robotino_stops_total", "Times the motors were stopped, by reason.", []string{"reason"}, nil)
	descStopped      = prometheus.NewDesc("robotd_robotino_stopped", "1 while the motors are held stopped.", nil, nil)
)

// Describe implements prometheus.Collector.
func (b *Backend) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descFrames, descFrameErrors, descGarbageBytes, descRejected, descTimeouts, descLost, descWriteErrs, descBaseErrors, descStops, descStopped} {
		ch <- d
	}
	b.cams.Describe(ch)
}

// Collect implements prometheus.Collector.
func (b *Backend) Collect(ch chan<- prometheus.Metric) {
	b.cams.Collect(ch)
	d := b.dec.Stats()
	c := &b.c
	counter := func(desc *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(v), labels...)
	}
	counter(descFrames, d.Frames)
	counter(descFrameErrors, d.GarbageRuns, "garbage")
	counter(descFrameErrors, d.Truncated, "truncated")
	counter(descFrameErrors, d.BadLength, "bad_length")
	counter(descFrameErrors, d.BadEscape, "bad_escape")
	counter(descFrameErrors, d.BadChecksum, "checksum")
	counter(descFrameErrors, c.tagErrors.Load(), "bad_command")
	counter(descGarbageBytes, d.GarbageBytes)
	counter(descRejected, c.rejected.Load())
	counter(descTimeouts, c.timeouts.Load())
	counter(descLost, c.lost.Load())
	counter(descWriteErrs, c.writeErrs.Load())
	counter(descBaseErrors, c.baseErrors.Load())
	counter(descStops, c.stopBumper.Load(), "bumper")
	counter(descStops, c.stopEStop.Load(), "emergency_stop")
	counter(descStops, c.stopDead.Load(), "deadman")
	stopped := 0.0
	if c.stopped.Load() {
		stopped = 1
	}
	ch <- prometheus.MustNewConstMetric(descStopped, prometheus.GaugeValue, stopped)
}
