package robotino

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"periph.io/x/conn/v3/driver/driverreg"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/host/v3/gpioioctl"
)

// GPIO is the backend's digital I/O: an emergency-stop input and a status
// LED. OpenGPIO gives the real one; tests pass their own in Options.
type GPIO interface {
	// EStop reports whether the emergency-stop input is active. An error
	// counts as active.
	EStop() (bool, error)
	// SetLED switches the status LED.
	SetLED(on bool) error
	// Close releases the lines.
	Close() error
}

// ErrNoGPIOChip is returned by OpenGPIO when the configured chip is
// missing.
var ErrNoGPIOChip = errors.New("GPIO chip not found")

// OpenGPIO opens the configured lines through the Linux GPIO character
// device (periph.io's gpioioctl). It returns nil and no error when no line
// is configured, and an error wrapping ErrNoGPIOChip, naming the chips it
// found, when the chip is missing.
func OpenGPIO(c GPIOConfig) (GPIO, error) {
	if !c.Configured() {
		return nil, nil
	}
	if _, err := driverreg.Init(); err != nil {
		return nil, fmt.Errorf("robotino: gpio: initialising periph drivers: %w", err)
	}
	var chip *gpioioctl.GPIOChip
	var names []string
	for _, ch := range gpioioctl.Chips {
		names = append(names, ch.Name())
		if c.Chip == ch.Name() || c.Chip == ch.Path() || c.Chip == ch.Label() || filepath.Base(c.Chip) == ch.Name() {
			chip = ch
		}
	}
	if chip == nil {
		found := "no GPIO chips on this machine"
		if len(names) > 0 {
			found = "chips: " + strings.Join(names, ", ")
		}
		return nil, fmt.Errorf("robotino: gpio: %w: %q (%s; gpio.estop_line %q, gpio.led_line %q are configured)",
			ErrNoGPIOChip, c.Chip, found, c.EStopLine, c.LEDLine)
	}
	g := &chipGPIO{estopLow: c.EStopActiveLow, ledLow: c.LEDActiveLow}
	if c.EStopLine != "" {
		l, err := line(chip, c.EStopLine)
		if err != nil {
			return nil, err
		}
		pull := gpio.PullUp
		if c.EStopActiveLow {
			pull = gpio.PullDown
		}
		if err := l.In(pull, gpio.NoEdge); err != nil {
			return nil, fmt.Errorf("robotino: gpio: estop line %q as input: %w", c.EStopLine, err)
		}
		g.estop = l
	}
	if c.LEDLine != "" {
		l, err := line(chip, c.LEDLine)
		if err != nil {
			return nil, err
		}
		g.led = l
		if err := g.SetLED(false); err != nil {
			return nil, fmt.Errorf("robotino: gpio: led line %q as output: %w", c.LEDLine, err)
		}
	}
	return g, nil
}

func line(chip *gpioioctl.GPIOChip, name string) (*gpioioctl.GPIOLine, error) {
	if l := chip.ByName(name); l != nil {
		return l, nil
	}
	if n, err := strconv.Atoi(name); err == nil && n >= 0 && n < chip.LineCount() {
		return chip.ByNumber(n), nil
	}
	return nil, fmt.Errorf("robotino: gpio: chip %s has no line %q (%d lines)", chip.Name(), name, chip.LineCount())
}

// chipGPIO is GPIO on a gpiochip character device.
type chipGPIO struct {
	estop, led       *gpioioctl.GPIOLine
	estopLow, ledLow bool
}

func (g *chipGPIO) EStop() (bool, error) {
	if g.estop == nil {
		return false, nil
	}
	return bool(g.estop.Read()) != g.estopLow, nil
}

func (g *chipGPIO) SetLED(on bool) error {
	if g.led == nil {
		return nil
	}
	if err := g.led.Out(gpio.Level(on != g.ledLow)); err != nil {
		return fmt.Errorf("robotino: gpio: status led: %w", err)
	}
	return nil
}

func (g *chipGPIO) Close() error {
	for _, l := range []*gpioioctl.GPIOLine{g.estop, g.led} {
		if l != nil {
			l.Close()
		}
	}
	return nil
}
