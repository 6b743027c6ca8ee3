package deploy

import (
	"fmt"
	"path"
	"strings"
)

// systemdSpecifiers escapes '%', which starts a specifier in unit file
// settings (systemd.unit(5), "Specifiers": "%%" is a single "%").
func systemdSpecifiers(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// systemdWord quotes one word of an Exec*= command line so that systemd
// reads it back as s: specifiers doubled ("%%", systemd.unit(5)), '$'
// doubled (systemd.service(5), "Command lines": "$$" is a literal dollar
// sign), and the word double-quoted with '\' and '"' escaped when it is
// empty or holds whitespace, a quote, a backslash or ';'
// (systemd.syntax(7), "Quoting"). s must hold no control characters
// (checkText): they have no place in a unit file.
func systemdWord(s string) string {
	s = systemdSpecifiers(strings.ReplaceAll(s, "$", "$$"))
	if s != "" && !strings.ContainsAny(s, " \"'\\;") {
		return s
	}
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	return `"` + s + `"`
}

// systemdCommand is an Exec*= command line of words.
func systemdCommand(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = systemdWord(w)
	}
	return strings.Join(q, " ")
}

// waitScript waits until the path in its first argument exists. The path
// is an argument ("$1"), never part of the script: the script is fixed.
const waitScript = `while [ ! -e "$1" ]; do sleep 0.2; done`

// waitArg0 is the script's $0 (the name in sh's messages).
const waitArg0 = "robotd-wait"

// unitFile is the systemd unit that runs the current version once the
// robot's controller is up. It refuses values that a unit cannot hold
// (see checkAbsPath); every value in it is escaped for systemd.
func unitFile(t *Target) (string, error) {
	dir := t.remote(t.Dir)
	if err := checkPrefix("prefix", t.Prefix); err != nil {
		return "", err
	}
	if err := checkAbsPath("dir", t.Dir); err != nil {
		return "", err
	}
	if err := checkAbsPath("prefix+dir", dir); err != nil {
		return "", err
	}
	if err := checkAbsPath("wait_for", t.WaitFor); err != nil {
		return "", err
	}
	what := "LoLA's socket"
	if t.Kind == KindRobotino {
		what = "the base controller's serial device"
	}
	cur := path.Join(dir, "current")
	return fmt.Sprintf(`# Installed by robotd deploy.
[Unit]
Description=robotd robot daemon
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
WorkingDirectory=%s
# Start once %s exists.
ExecStartPre=%s
TimeoutStartSec=120
ExecStart=%s
KillSignal=SIGTERM
TimeoutStopSec=10
Restart=on-failure
RestartSec=2

[Install]
WantedBy=multi-user.target
`, systemdSpecifiers(cur), what,
		systemdCommand("/bin/sh", "-c", waitScript, waitArg0, t.WaitFor),
		systemdCommand(path.Join(cur, "robotd"), "-config", path.Join(cur, "robotd.json"))), nil
}
