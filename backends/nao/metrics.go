package nao

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// counters are the backend's counts, written by its goroutines and read by
// Stats and the Prometheus collector.
type counters struct {
	packets   atomic.Uint64 // sensor maps decoded
	malformed atomic.Uint64 // sensor maps that did not decode
	rejected  atomic.Uint64 // sensor maps with implausible values
	skipped   atomic.Uint64 // sensor maps replaced by a newer one before a tick took them
	commands  atomic.Uint64 // actuator maps sent
	stalls    atomic.Uint64 // ReadTimeouts without a packet
	lost      atomic.Uint64 // connections that ended or were given up
	writeErrs atomic.Uint64 // failed writes
	corrupt   atomic.Uint64 // streams with no complete map within MaxPacket
	reconnect atomic.Uint64 // connections that delivered packets after an earlier one had
	limp      atomic.Bool   // stiffness forced to 0 (chest gesture or safe state)
}

var (
	descPackets   = prometheus.NewDesc("robotd_nao_sensor_packets_total", "LoLA sensor maps decoded.", nil, nil)
	descMalformed = prometheus.NewDesc("robotd_nao_malformed_packets_total", "LoLA sensor maps that did not decode (skipped).", nil, nil)
	descRejected  = prometheus.NewDesc("robotd_nao_rejected_packets_total", "LoLA sensor maps with a NaN, infinite or implausible value (skipped).", nil, nil)
	descSkipped   = prometheus.NewDesc("robotd_nao_skipped_packets_total", "LoLA sensor maps replaced by a newer one before a tick took them.", nil, nil)
	descCommands  = prometheus.NewDesc("robotd_nao_actuator_packets_total", "LoLA actuator maps sent.", nil, nil)
	descStalls    = prometheus.NewDesc("robotd_nao_stalls_total", "Times LoLA sent nothing for read_timeout.", nil, nil)
	descLost      = prometheus.NewDesc("robotd_nao_connections_lost_total", "LoLA connections that ended or were given up.", nil, nil)
	descWriteErrs = prometheus.NewDesc("robotd_nao_write_errors_total", "Failed writes of actuator maps.", nil, nil)
	descCorrupt   = prometheus.NewDesc("robotd_nao_corrupt_streams_total", "Connections dropped because no complete map arrived within max_packet bytes.", nil, nil)
	descLimp      = prometheus.NewDesc("robotd_nao_limp", "1 while stiffness is forced to 0 (chest-button gesture or safe state).", nil, nil)
)

// Describe implements prometheus.Collector.
func (b *Backend) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descPackets, descMalformed, descRejected, descSkipped, descCommands, descStalls, descLost, descWriteErrs, descCorrupt, descLimp} {
		ch <- d
	}
	b.cams.Describe(ch)
}

// Collect implements prometheus.Collector.
func (b *Backend) Collect(ch chan<- prometheus.Metric) {
	c := &b.c
	for _, m := range []struct {
		d *prometheus.Desc
		v uint64
	}{{descPackets, c.packets.Load()}, {descMalformed, c.malformed.Load()}, {descRejected, c.rejected.Load()}, {descSkipped, c.skipped.Load()},
		{descCommands, c.commands.Load()}, {descStalls, c.stalls.Load()}, {descLost, c.lost.Load()},
		{descWriteErrs, c.writeErrs.Load()}, {descCorrupt, c.corrupt.Load()}} {
		ch <- prometheus.MustNewConstMetric(m.d, prometheus.CounterValue, float64(m.v))
	}
	limp := 0.0
	if c.limp.Load() {
		limp = 1
	}
	ch <- prometheus.MustNewConstMetric(descLimp, prometheus.GaugeValue, limp)
	b.cams.Collect(ch)
}
