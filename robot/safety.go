package robot

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/robotd/robotd/modules/safety"
	"github.com/robotd/robotd/runner"
)

// RegisterSafetyMetrics registers robotd_safety_actions_total{action} for
// the safety module among mods, if there is one.
func RegisterSafetyMetrics(reg prometheus.Registerer, mods []runner.Module) error {
	for _, m := range mods {
		s, ok := m.(*safety.Module)
		if !ok {
			continue
		}
		for a := range safety.NumActions {
			c := prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name:        "robotd_safety_actions_total",
				Help:        "Safety actions taken: hot joints limited, low battery, falls, chest-button penalties, safe stops.",
				ConstLabels: prometheus.Labels{"action": a.String()},
			}, func() float64 { return float64(s.Count(a)) })
			if err := reg.Register(c); err != nil {
				return fmt.Errorf("robot: safety metrics: %w", err)
			}
		}
	}
	return nil
}
