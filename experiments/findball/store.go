package findball

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver ("sqlite")
)

// Store is a campaign's database: an SQLite file holding the campaign's
// configuration, each strategy's resolved robot configuration, every
// finished trial and its trajectories. A trial and its samples are one
// transaction, committed when the trial ends, in a write-ahead log synced
// on every commit: a killed process loses at most the trials that were
// running, and rerunning the campaign runs just those.
type Store struct {
	db   *sql.DB
	path string
}

const schema = `
CREATE TABLE IF NOT EXISTS campaign (
	id     INTEGER PRIMARY KEY CHECK (id = 1),
	config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS configs (
	hash     TEXT PRIMARY KEY,
	strategy TEXT NOT NULL,
	config   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS trials (
	id          TEXT PRIMARY KEY,
	idx         INTEGER NOT NULL,
	strategy    TEXT NOT NULL,
	position    INTEGER NOT NULL,
	ball_x      REAL NOT NULL,
	ball_y      REAL NOT NULL,
	rep         INTEGER NOT NULL,
	seed        TEXT NOT NULL,
	config_hash TEXT NOT NULL,
	config      TEXT NOT NULL,
	found       INTEGER NOT NULL,
	time_ms     INTEGER NOT NULL,
	finder      INTEGER NOT NULL,
	falls       INTEGER NOT NULL,
	start_ms    INTEGER NOT NULL,
	samples     INTEGER NOT NULL,
	wall_ms     INTEGER NOT NULL,
	shard       TEXT NOT NULL,
	finished    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS samples (
	trial   TEXT NOT NULL,
	player  INTEGER NOT NULL,
	t_ms    INTEGER NOT NULL,
	x       REAL NOT NULL,
	y       REAL NOT NULL,
	heading REAL NOT NULL,
	seen    INTEGER NOT NULL,
	fallen  INTEGER NOT NULL,
	PRIMARY KEY (trial, player, t_ms)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS team (
	trial            TEXT PRIMARY KEY,
	first_striker_ms INTEGER NOT NULL,
	switches         INTEGER NOT NULL,
	max_per_minute   INTEGER NOT NULL,
	idle_ms          INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS voided (
	trial    TEXT NOT NULL,
	ticks    INTEGER NOT NULL,
	reason   TEXT NOT NULL,
	shard    TEXT NOT NULL,
	finished TEXT NOT NULL,
	PRIMARY KEY (trial, shard, finished)
);
`

// sqliteURI returns path as an SQLite URI filename
// (https://www.sqlite.org/uri.html) with the query q: "file://" and the
// absolute path, percent-encoded, so that '?', '#' and '%' in the path are
// characters of the file's name. modernc.org/sqlite reads its own
// parameters (_pragma) from the text after the first '?' of the name, and
// hands a name that starts with "file:" to sqlite3_open_v2 whole, with
// SQLITE_OPEN_URI set, so that SQLite reads its own (mode).
func sqliteURI(path string, q url.Values) (string, error) {
	if path == "" {
		return "", errors.New("experiment: no database file named")
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", fmt.Errorf("experiment: database %q: a file name cannot hold a NUL byte", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("experiment: database %s: %w", path, err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	return u.String(), nil
}

// busyTimeout is how long a statement waits for another connection's
// lock, in SQLite's busy_timeout (ms).
const busyTimeout = "busy_timeout(10000)"

// Open opens (or creates) the database at path.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := OpenDB(ctx, path, schema)
	if err != nil {
		return nil, err
	}
	return &Store{db: db, path: path}, nil
}

// OpenDB opens (or creates) the SQLite database at path with one
// connection, the write-ahead log and full synchronous writes, and runs
// schema in it. The match experiment's store opens its database so too.
func OpenDB(ctx context.Context, path, schema string) (*sql.DB, error) {
	q := url.Values{}
	for _, p := range []string{busyTimeout, "synchronous(FULL)"} {
		q.Add("_pragma", p)
	}
	dsn, err := sqliteURI(path, q)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("experiment: opening %s: %w", path, err)
	}
	// One connection: SQLite has one writer, and ATTACH is per connection.
	db.SetMaxOpenConns(1)
	// Switching to the write-ahead log needs the database to itself, and
	// SQLite does not wait for that: another process opening the same new
	// database (a report while the campaign starts) is retried.
	var err2 error
	for attempt := 0; attempt < 100; attempt++ {
		if _, err2 = db.ExecContext(ctx, `PRAGMA journal_mode=WAL`); err2 == nil {
			if _, err2 = db.ExecContext(ctx, schema); err2 == nil {
				break
			}
		}
		if !strings.Contains(err2.Error(), "SQLITE_BUSY") {
			break
		}
		select {
		case <-ctx.Done():
			db.Close()
			return nil, fmt.Errorf("experiment: opening %s: %w", path, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err2 != nil {
		db.Close()
		return nil, fmt.Errorf("experiment: %s: creating the tables: %w", path, err2)
	}
	return db, nil
}

// ReadOnlyURI is the URI that opens the database at path read-only (for
// merging a shard's database into another).
func ReadOnlyURI(path string) (string, error) { return readOnlyURI(path) }

// Close closes the database.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("experiment: closing %s: %w", s.path, err)
	}
	return nil
}

// Path is the database's file.
func (s *Store) Path() string { return s.path }

// ErrOtherCampaign: the database holds another campaign's trials.
var ErrOtherCampaign = errors.New("experiment: the database holds another campaign")

// Begin records the campaign and its strategies' robot configurations in
// a new database, or checks that an existing one holds the same campaign.
func (s *Store) Begin(ctx context.Context, cfg *Config) error {
	want, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("experiment: encoding the campaign: %w", err)
	}
	var have string
	err = s.db.QueryRowContext(ctx, `SELECT config FROM campaign WHERE id = 1`).Scan(&have)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := s.db.ExecContext(ctx, `INSERT INTO campaign (id, config) VALUES (1, ?)`, string(want)); err != nil {
			return fmt.Errorf("experiment: %s: %w", s.path, err)
		}
	case err != nil:
		return fmt.Errorf("experiment: %s: %w", s.path, err)
	case have != string(want):
		return fmt.Errorf("%w: %s", ErrOtherCampaign, campaignDiff(s.path, []byte(have), want))
	}
	for _, st := range cfg.Strategies {
		rc, err := cfg.robotConfig(st)
		if err != nil {
			return err
		}
		h, b, err := rc.Hash()
		if err != nil {
			return err
		}
		if _, err := s.db.ExecContext(ctx, `INSERT OR IGNORE INTO configs (hash, strategy, config) VALUES (?, ?, ?)`, h, st.Name, string(b)); err != nil {
			return fmt.Errorf("experiment: %s: %w", s.path, err)
		}
	}
	return nil
}

// campaignDiff says how two campaigns (JSON) differ, in one line: the
// top-level settings that differ, each value cut to a few dozen
// characters, at most four of them.
func campaignDiff(path string, have, want []byte) string {
	var h, w map[string]json.RawMessage
	if json.Unmarshal(have, &h) != nil || json.Unmarshal(want, &w) != nil {
		return path + " holds a campaign this version cannot read"
	}
	keys := map[string]bool{}
	for k := range h {
		keys[k] = true
	}
	for k := range w {
		keys[k] = true
	}
	var diff []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !bytes.Equal(compactJSON(h[k]), compactJSON(w[k])) {
			diff = append(diff, k)
		}
	}
	if len(diff) == 0 {
		return path + " holds the same settings in another form"
	}
	show := diff[:min(len(diff), 4)]
	var a, b []string
	for _, k := range show {
		a = append(a, k+"="+cut(compactJSON(h[k])))
		b = append(b, k+"="+cut(compactJSON(w[k])))
	}
	more := ""
	if len(diff) > len(show) {
		more = fmt.Sprintf(" and %d more", len(diff)-len(show))
	}
	return fmt.Sprintf("%s has %s; this run %s%s", path, strings.Join(a, " "), strings.Join(b, " "), more)
}

func compactJSON(raw json.RawMessage) []byte {
	if raw == nil {
		return []byte("none")
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func cut(b []byte) string {
	r := []rune(string(b))
	if len(r) > 40 {
		return string(r[:39]) + "…"
	}
	return string(r)
}

// Campaign returns the campaign the database holds (ok false when it
// holds none).
func (s *Store) Campaign(ctx context.Context) (cfg Config, ok bool, err error) {
	var have string
	err = s.db.QueryRowContext(ctx, `SELECT config FROM campaign WHERE id = 1`).Scan(&have)
	if errors.Is(err, sql.ErrNoRows) {
		return Config{}, false, nil
	}
	if err != nil {
		return Config{}, false, fmt.Errorf("experiment: %s: %w", s.path, err)
	}
	if err := json.Unmarshal([]byte(have), &cfg); err != nil {
		return Config{}, false, fmt.Errorf("experiment: %s: the campaign: %w", s.path, err)
	}
	return cfg, true, nil
}

// Done returns the IDs of the finished trials.
func (s *Store) Done(ctx context.Context) (map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM trials`)
	if err != nil {
		return nil, fmt.Errorf("experiment: %s: %w", s.path, err)
	}
	defer rows.Close()
	done := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("experiment: %s: %w", s.path, err)
		}
		done[id] = true
	}
	return done, rows.Err()
}

// trialConfig is what a trial ran with, stored with it: the campaign's
// protocol, the strategy and its settings, and every seed.
type trialConfig struct {
	Strategy      Strategy          `json:"strategy"`
	ConfigHash    string            `json:"config_hash"`
	Ball          Point             `json:"ball"`
	Starts        []Start           `json:"starts"`
	Limit         string            `json:"limit"`
	FoundDistance float64           `json:"found_distance"`
	Reliable      float64           `json:"reliable_distance"`
	Penalised     string            `json:"penalised"`
	Seed          string            `json:"seed"`
	Seeds         map[string]string `json:"seeds"`
}

func (c *Config) trialConfig(t Trial, hash string) trialConfig {
	st, _ := c.Strategy(t.Strategy)
	seeds := map[string]string{
		"simulator": strconv.FormatUint(subSeed(t.Seed, 0), 10),
		"network":   strconv.FormatUint(subSeed(t.Seed, 1), 10),
	}
	for _, s := range c.Starts {
		seeds[fmt.Sprintf("perception.%d", s.Player)] = strconv.FormatUint(subSeed(t.Seed, 10+s.Player), 10)
		seeds[fmt.Sprintf("vision.%d", s.Player)] = strconv.FormatUint(subSeed(t.Seed, 100+s.Player), 10)
	}
	return trialConfig{Strategy: st, ConfigHash: hash, Ball: t.Ball, Starts: c.Starts,
		Limit: c.Limit.D().String(), FoundDistance: c.FoundDistance, Reliable: c.ReliableDistance,
		Penalised: c.Penalised.D().String(), Seed: strconv.FormatUint(t.Seed, 10), Seeds: seeds}
}

// Save stores a finished trial and its samples in one transaction.
func (s *Store) Save(ctx context.Context, cfg *Config, r *Result, shard Shard) error {
	tc, err := json.Marshal(cfg.trialConfig(r.Trial, r.ConfigHash))
	if err != nil {
		return fmt.Errorf("experiment: encoding trial %s: %w", r.ID(), err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("experiment: %s: %w", s.path, err)
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT INTO trials (id, idx, strategy, position, ball_x, ball_y, rep, seed, config_hash, config,
		found, time_ms, finder, falls, start_ms, samples, wall_ms, shard, finished) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.ID(), r.Index, r.Strategy, r.Position, r.Ball.X, r.Ball.Y, r.Rep, strconv.FormatUint(r.Seed, 10), r.ConfigHash, string(tc),
		boolInt(r.Found), r.Time.Milliseconds(), r.Finder, r.Falls, r.Start.Milliseconds(), len(r.Samples), r.Wall.Milliseconds(),
		shard.String(), time.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return fmt.Errorf("experiment: %s: saving trial %s: %w", s.path, r.ID(), err)
	}
	fs := int64(-1)
	if r.Team.FirstStriker >= 0 {
		fs = r.Team.FirstStriker.Milliseconds()
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO team (trial, first_striker_ms, switches, max_per_minute, idle_ms) VALUES (?,?,?,?,?)`,
		r.ID(), fs, r.Team.Switches, r.Team.MaxPerMinute, r.Team.Idle.Milliseconds()); err != nil {
		return fmt.Errorf("experiment: %s: saving trial %s's team play: %w", s.path, r.ID(), err)
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO samples (trial, player, t_ms, x, y, heading, seen, fallen) VALUES (?,?,?,?,?,?,?,?)`)
	if err != nil {
		return fmt.Errorf("experiment: %s: %w", s.path, err)
	}
	defer stmt.Close()
	for _, sm := range r.Samples {
		if _, err := stmt.ExecContext(ctx, r.ID(), sm.Player, sm.T.Milliseconds(), sm.X, sm.Y, sm.Heading, boolInt(sm.Seen), boolInt(sm.Fallen)); err != nil {
			return fmt.Errorf("experiment: %s: saving trial %s's samples: %w", s.path, r.ID(), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("experiment: %s: committing trial %s: %w", s.path, r.ID(), err)
	}
	return nil
}

// Void is a void run of a trial (see Options.StallTicks): never a
// result, recorded in the store's voided table.
type Void struct {
	Trial string
	// Ticks is the most ticks one robot made without the simulator after
	// its first message.
	Ticks  int
	Reason string
}

// SaveVoid records a void run of a trial.
func (s *Store) SaveVoid(ctx context.Context, v *Void, shard Shard) error {
	if _, err := s.db.ExecContext(ctx, `INSERT OR IGNORE INTO voided (trial, ticks, reason, shard, finished) VALUES (?,?,?,?,?)`,
		v.Trial, v.Ticks, v.Reason, shard.String(), time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
		return fmt.Errorf("experiment: %s: recording the void run of trial %s: %w", s.path, v.Trial, err)
	}
	return nil
}

// Voided returns the number of void runs the store records.
func (s *Store) Voided(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM voided`).Scan(&n); err != nil {
		return 0, fmt.Errorf("experiment: %s: %w", s.path, err)
	}
	return n, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Results returns every stored trial (without samples), in plan order.
func (s *Store) Results(ctx context.Context) ([]Result, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT idx, strategy, position, ball_x, ball_y, rep, seed, config_hash,
		found, time_ms, finder, falls, start_ms, wall_ms,
		coalesce(m.first_striker_ms, -1), coalesce(m.switches, 0), coalesce(m.max_per_minute, 0), coalesce(m.idle_ms, 0)
		FROM trials t LEFT JOIN team m ON m.trial = t.id ORDER BY idx`)
	if err != nil {
		return nil, fmt.Errorf("experiment: %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []Result
	for rows.Next() {
		var r Result
		var seed string
		var found int
		var tms, sms, wms, fsms, ims int64
		if err := rows.Scan(&r.Index, &r.Strategy, &r.Position, &r.Ball.X, &r.Ball.Y, &r.Rep, &seed, &r.ConfigHash,
			&found, &tms, &r.Finder, &r.Falls, &sms, &wms, &fsms, &r.Team.Switches, &r.Team.MaxPerMinute, &ims); err != nil {
			return nil, fmt.Errorf("experiment: %s: %w", s.path, err)
		}
		if r.Seed, err = strconv.ParseUint(seed, 10, 64); err != nil {
			return nil, fmt.Errorf("experiment: %s: trial %s: seed %q: %w", s.path, r.ID(), seed, err)
		}
		r.Found = found != 0
		r.Team.FirstStriker, r.Team.Idle = -1, time.Duration(ims)*time.Millisecond
		if fsms >= 0 {
			r.Team.FirstStriker = time.Duration(fsms) * time.Millisecond
		}
		r.Time, r.Start, r.Wall = time.Duration(tms)*time.Millisecond, time.Duration(sms)*time.Millisecond, time.Duration(wms)*time.Millisecond
		r.Closest = -1
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	// Each trial's closest approach of two robots, from its samples.
	at := map[string]int{}
	for i := range out {
		at[out[i].ID()] = i
	}
	err = s.Samples(ctx, func(id string, samples []Sample) error {
		if i, ok := at[id]; ok {
			out[i].Closest = ClosestApproach(samples)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Samples calls fn with each trial's samples, trial by trial in plan
// order.
func (s *Store) Samples(ctx context.Context, fn func(id string, samples []Sample) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT s.trial, s.player, s.t_ms, s.x, s.y, s.heading, s.seen, s.fallen
		FROM samples s JOIN trials t ON t.id = s.trial ORDER BY t.idx, s.player, s.t_ms`)
	if err != nil {
		return fmt.Errorf("experiment: %s: %w", s.path, err)
	}
	defer rows.Close()
	var cur string
	var buf []Sample
	for rows.Next() {
		var id string
		var sm Sample
		var tms int64
		var seen, fallen int
		if err := rows.Scan(&id, &sm.Player, &tms, &sm.X, &sm.Y, &sm.Heading, &seen, &fallen); err != nil {
			return fmt.Errorf("experiment: %s: %w", s.path, err)
		}
		sm.T, sm.Seen, sm.Fallen = time.Duration(tms)*time.Millisecond, seen != 0, fallen != 0
		if id != cur && len(buf) > 0 {
			if err := fn(cur, buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		cur = id
		buf = append(buf, sm)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("experiment: %s: %w", s.path, err)
	}
	if len(buf) > 0 {
		return fn(cur, buf)
	}
	return nil
}

// MergeStats says what a merge did.
type MergeStats struct {
	Trials, Duplicates int
}

// Merge copies the trials of the databases at paths into s. Every one
// must hold the same campaign as s (s takes the first's when it has none).
// A trial already in s is skipped if it has the same outcome, and is an
// error otherwise: the runs were not the same.
func (s *Store) Merge(ctx context.Context, paths ...string) (MergeStats, error) {
	var st MergeStats
	for _, p := range paths {
		if err := s.mergeOne(ctx, p, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}

// readOnlyURI is the SQLite URI of the database at path opened read-only
// (mode=ro): nothing is written to the database file, its journal mode
// included. A database in write-ahead-log mode is read through its -wal
// and -shm files, which SQLite creates beside it where they are missing
// (https://www.sqlite.org/wal.html#readonly).
func readOnlyURI(path string) (string, error) {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", busyTimeout)
	return sqliteURI(path, q)
}

// campaignOf reads the campaign of the database at path, opened read-only
// (ok false when it holds none).
func campaignOf(ctx context.Context, path string) (cfg Config, ok bool, err error) {
	dsn, err := readOnlyURI(path)
	if err != nil {
		return Config{}, false, err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return Config{}, false, fmt.Errorf("experiment: opening %s: %w", path, err)
	}
	defer db.Close()
	var tables int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'campaign'`).Scan(&tables); err != nil {
		return Config{}, false, fmt.Errorf("experiment: %s: %w", path, err)
	}
	if tables == 0 {
		return Config{}, false, nil
	}
	src := Store{db: db, path: path}
	return src.Campaign(ctx)
}

func (s *Store) mergeOne(ctx context.Context, path string, st *MergeStats) (err error) {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("experiment: merging: %w", err)
	}
	// The shard is only read: opened read-only, as is its attachment below.
	theirs, ok, err := campaignOf(ctx, path)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("experiment: %s holds no campaign", path)
	}
	srcURI, err := readOnlyURI(path)
	if err != nil {
		return err
	}
	if err := s.Begin(ctx, &theirs); err != nil {
		return fmt.Errorf("experiment: merging %s: %w", path, err)
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("experiment: %s: %w", s.path, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS src`, srcURI); err != nil {
		return fmt.Errorf("experiment: attaching %s: %w", path, err)
	}
	defer func() {
		if _, derr := conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE src`); derr != nil && err == nil {
			err = fmt.Errorf("experiment: detaching %s: %w", path, derr)
		}
	}()
	var conflicts int
	var first sql.NullString
	if err := conn.QueryRowContext(ctx, `SELECT count(*), min(t.id) FROM src.trials t JOIN main.trials m ON m.id = t.id
		WHERE m.found != t.found OR m.time_ms != t.time_ms OR m.finder != t.finder OR m.seed != t.seed OR m.config_hash != t.config_hash`).Scan(&conflicts, &first); err != nil {
		return fmt.Errorf("experiment: merging %s: %w", path, err)
	}
	if conflicts > 0 {
		return fmt.Errorf("experiment: merging %s: %d trials (first %s) are in both databases with different outcomes", path, conflicts, first.String)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("experiment: merging %s: %w", path, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO main.configs SELECT * FROM src.configs`); err != nil {
		return fmt.Errorf("experiment: merging %s: %w", path, err)
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO main.trials SELECT * FROM src.trials WHERE id NOT IN (SELECT id FROM main.trials)`)
	if err != nil {
		return fmt.Errorf("experiment: merging %s: %w", path, err)
	}
	n, _ := res.RowsAffected()
	var total int64
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM src.trials`).Scan(&total); err != nil {
		return fmt.Errorf("experiment: merging %s: %w", path, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO main.samples SELECT * FROM src.samples`); err != nil {
		return fmt.Errorf("experiment: merging %s: %w", path, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO main.team SELECT * FROM src.team`); err != nil {
		return fmt.Errorf("experiment: merging %s: %w", path, err)
	}
	// A database from before the voided table has none.
	var hasVoided int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM src.sqlite_schema WHERE type = 'table' AND name = 'voided'`).Scan(&hasVoided); err != nil {
		return fmt.Errorf("experiment: merging %s: %w", path, err)
	}
	if hasVoided > 0 {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO main.voided (trial, ticks, reason, shard, finished)
			SELECT trial, ticks, reason, shard, finished FROM src.voided`); err != nil {
			return fmt.Errorf("experiment: merging %s: %w", path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("experiment: merging %s: %w", path, err)
	}
	st.Trials += int(n)
	st.Duplicates += int(total - n)
	return nil
}
