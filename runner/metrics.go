package runner

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/hal"
)

// Metrics are the runner's Prometheus metrics. A nil *Metrics records
// nothing.
type Metrics struct {
	ticks          prometheus.Counter
	tickSeconds    prometheus.Histogram
	tickOverruns   prometheus.Counter
	moduleSeconds  *prometheus.HistogramVec
	moduleOverruns *prometheus.CounterVec
	moduleErrors   *prometheus.CounterVec
	commitErrors   prometheus.Counter
	connected      prometheus.Gauge
}

// tickBuckets spans 10 µs to ~80 ms: a module's tick on a 10-12 ms cycle.
var tickBuckets = prometheus.ExponentialBuckets(10e-6, 2, 14)

// NewMetrics registers the runner's metrics, and the backend's error and
// reconnect counters if dev reports them, on reg.
func NewMetrics(reg prometheus.Registerer, dev hal.Device) (*Metrics, error) {
	m := &Metrics{
		ticks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "robotd_ticks_total", Help: "Ticks run."}),
		tickSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "robotd_tick_seconds", Help: "Time all modules took in one tick.", Buckets: tickBuckets}),
		tickOverruns: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "robotd_tick_overruns_total", Help: "Ticks whose modules took longer than the cycle period."}),
		moduleSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "robotd_module_tick_seconds", Help: "Time one module took in one tick.", Buckets: tickBuckets}, []string{"module"}),
		moduleOverruns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "robotd_module_overruns_total", Help: "Module ticks that took longer than the module budget."}, []string{"module"}),
		moduleErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "robotd_module_errors_total", Help: "Module ticks that returned an error."}, []string{"module"}),
		commitErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "robotd_backend_commit_errors_total", Help: "Failed sends of commands to the backend."}),
		connected: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "robotd_backend_connected", Help: "1 while the backend reaches its hardware or simulator."}),
	}
	cs := []prometheus.Collector{m.ticks, m.tickSeconds, m.tickOverruns, m.moduleSeconds, m.moduleOverruns, m.moduleErrors, m.commitErrors, m.connected}
	if s, ok := dev.(hal.StatsReporter); ok {
		cs = append(cs,
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "robotd_backend_errors_total", Help: "Malformed packets, checksum errors and failed I/O in the backend."},
				func() float64 { return float64(s.Stats().Errors) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "robotd_backend_reconnects_total", Help: "Times the backend reconnected to its hardware or simulator."},
				func() float64 { return float64(s.Stats().Reconnects) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "robotd_backend_rejected_total", Help: "Sensor messages the backend left out for implausible values (NaN, Inf, out of range)."},
				func() float64 { return float64(s.Stats().Rejected) }))
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("runner: registering metrics: %w", err)
		}
	}
	return m, nil
}

type moduleObserver struct {
	seconds  prometheus.Observer
	overruns prometheus.Counter
	errors   prometheus.Counter
}

func (m *Metrics) module(name string) moduleObserver {
	if m == nil {
		return moduleObserver{}
	}
	return moduleObserver{
		seconds:  m.moduleSeconds.WithLabelValues(name),
		overruns: m.moduleOverruns.WithLabelValues(name),
		errors:   m.moduleErrors.WithLabelValues(name),
	}
}

func (o moduleObserver) observe(d, budget time.Duration, failed bool) {
	if o.seconds == nil {
		return
	}
	o.seconds.Observe(d.Seconds())
	if budget > 0 && d > budget {
		o.overruns.Inc()
	}
	if failed {
		o.errors.Inc()
	}
}

func (m *Metrics) tick(d, period time.Duration, connected bool) {
	if m == nil {
		return
	}
	m.ticks.Inc()
	m.tickSeconds.Observe(d.Seconds())
	if period > 0 && d > period {
		m.tickOverruns.Inc()
	}
	if connected {
		m.connected.Set(1)
	} else {
		m.connected.Set(0)
	}
}

func (m *Metrics) commitError() {
	if m == nil {
		return
	}
	m.commitErrors.Inc()
}
