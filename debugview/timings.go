package debugview

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/robotd/robotd/blackboard"
)

// The runner's metrics (package runner) that the page shows.
const (
	metricModuleSeconds  = "robotd_module_tick_seconds"
	metricModuleOverruns = "robotd_module_overruns_total"
	metricModuleErrors   = "robotd_module_errors_total"
	metricTickSeconds    = "robotd_tick_seconds"
	metricTickOverruns   = "robotd_tick_overruns_total"
	metricConnected      = "robotd_backend_connected"
)

// Histogram is a cumulative Prometheus histogram: the page computes recent
// means and percentiles from the difference of two.
type Histogram struct {
	Count uint64 `json:"count"`
	Sum   any    `json:"sum"` // seconds; a string for NaN or ±Inf
	// Buckets are [upper bound in seconds, cumulative count], ascending,
	// without the +Inf bucket (that is Count).
	Buckets [][2]float64 `json:"buckets"`
}

// ModuleTiming is one module's time per tick.
type ModuleTiming struct {
	Module   string    `json:"module"`
	Seconds  Histogram `json:"seconds"`
	Overruns float64   `json:"overruns"`
	Errors   float64   `json:"errors"`
}

// Timings are the runner's timing metrics.
type Timings struct {
	Tick         Histogram      `json:"tick"`
	TickOverruns float64        `json:"tick_overruns"`
	Connected    *float64       `json:"connected,omitempty"`
	Modules      []ModuleTiming `json:"modules"`
}

// gatherTimings reads the runner's metrics from g. Metrics it does not find
// stay zero: a runner without metrics has no timings, not an error.
func gatherTimings(g prometheus.Gatherer) (*Timings, error) {
	mfs, err := g.Gather()
	if err != nil && len(mfs) == 0 {
		return nil, fmt.Errorf("debugview: gathering metrics: %w", err)
	}
	t := &Timings{Modules: []ModuleTiming{}}
	byModule := map[string]*ModuleTiming{}
	module := func(m *dto.Metric) *ModuleTiming {
		name := ""
		for _, l := range m.GetLabel() {
			if l.GetName() == "module" {
				name = l.GetValue()
			}
		}
		mt, ok := byModule[name]
		if !ok {
			mt = &ModuleTiming{Module: name, Seconds: Histogram{Sum: 0.0, Buckets: [][2]float64{}}}
			byModule[name] = mt
		}
		return mt
	}
	for _, mf := range mfs {
		switch mf.GetName() {
		case metricModuleSeconds:
			for _, m := range mf.GetMetric() {
				module(m).Seconds = histogram(m.GetHistogram())
			}
		case metricModuleOverruns:
			for _, m := range mf.GetMetric() {
				module(m).Overruns = m.GetCounter().GetValue()
			}
		case metricModuleErrors:
			for _, m := range mf.GetMetric() {
				module(m).Errors = m.GetCounter().GetValue()
			}
		case metricTickSeconds:
			if ms := mf.GetMetric(); len(ms) > 0 {
				t.Tick = histogram(ms[0].GetHistogram())
			}
		case metricTickOverruns:
			if ms := mf.GetMetric(); len(ms) > 0 {
				t.TickOverruns = ms[0].GetCounter().GetValue()
			}
		case metricConnected:
			if ms := mf.GetMetric(); len(ms) > 0 {
				v := ms[0].GetGauge().GetValue()
				t.Connected = &v
			}
		}
	}
	if t.Tick.Buckets == nil {
		t.Tick = Histogram{Sum: 0.0, Buckets: [][2]float64{}}
	}
	for _, mt := range byModule {
		t.Modules = append(t.Modules, *mt)
	}
	slices.SortFunc(t.Modules, func(a, b ModuleTiming) int { return strings.Compare(a.Module, b.Module) })
	return t, nil
}

func histogram(h *dto.Histogram) Histogram {
	out := Histogram{Count: h.GetSampleCount(), Sum: blackboard.JSONFloat(h.GetSampleSum()), Buckets: [][2]float64{}}
	for _, b := range h.GetBucket() {
		if math.IsInf(b.GetUpperBound(), 1) {
			continue
		}
		out.Buckets = append(out.Buckets, [2]float64{b.GetUpperBound(), float64(b.GetCumulativeCount())})
	}
	return out
}
