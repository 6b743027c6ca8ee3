package match

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/robotd/robotd/experiments/findball"
)

// Store is a campaign's SQLite database: the campaign, and every game
// played as it ended. A campaign stopped anywhere resumes from it.
type Store struct {
	db   *sql.DB
	path string
}

const schema = `
CREATE TABLE IF NOT EXISTS campaign (id INTEGER PRIMARY KEY CHECK (id = 1), config TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
	id TEXT PRIMARY KEY,
	idx INTEGER NOT NULL,
	pair INTEGER NOT NULL,
	seed TEXT NOT NULL,
	b_first INTEGER NOT NULL,
	score_a INTEGER NOT NULL,
	score_b INTEGER NOT NULL,
	shard TEXT NOT NULL,
	wall_ms INTEGER NOT NULL,
	result TEXT NOT NULL
);`

// Open opens (or creates) the database at path.
func Open(ctx context.Context, path string) (*Store, error) {
	db, err := findball.OpenDB(ctx, path, schema)
	if err != nil {
		return nil, fmt.Errorf("match: %w", err)
	}
	return &Store{db: db, path: path}, nil
}

// Close closes the database.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("match: closing %s: %w", s.path, err)
	}
	return nil
}

// Path returns the database's file.
func (s *Store) Path() string { return s.path }

// Begin records the campaign in a new database, or checks that the
// database holds this campaign.
func (s *Store) Begin(ctx context.Context, cfg *Config) error {
	want, err := json.Marshal(cfg)
	if err != nil {
		return fmt.Errorf("match: encoding the campaign: %w", err)
	}
	have, ok, err := campaignText(ctx, s.db)
	if err != nil {
		return fmt.Errorf("match: %s: %w", s.path, err)
	}
	if !ok {
		if _, err := s.db.ExecContext(ctx, `INSERT INTO campaign (id, config) VALUES (1, ?)`, string(want)); err != nil {
			return fmt.Errorf("match: %s: recording the campaign: %w", s.path, err)
		}
		return nil
	}
	if !bytes.Equal(have, want) {
		return fmt.Errorf("match: %s holds another campaign; give this one its own -db", s.path)
	}
	return nil
}

func campaignText(ctx context.Context, db *sql.DB) ([]byte, bool, error) {
	var text string
	err := db.QueryRowContext(ctx, `SELECT config FROM campaign WHERE id = 1`).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return []byte(text), true, nil
}

// Campaign returns the database's campaign; ok is false in a new one.
func (s *Store) Campaign(ctx context.Context) (cfg Config, ok bool, err error) {
	text, ok, err := campaignText(ctx, s.db)
	if err != nil || !ok {
		return cfg, ok, err
	}
	if err := json.Unmarshal(text, &cfg); err != nil {
		return cfg, false, fmt.Errorf("match: %s: the campaign: %w", s.path, err)
	}
	return cfg, true, nil
}

// Done returns the IDs of the games stored.
func (s *Store) Done(ctx context.Context) (map[string]bool, error) {
	var text string
	if err := s.db.QueryRowContext(ctx, `SELECT json_group_array(id) FROM games`).Scan(&text); err != nil {
		return nil, fmt.Errorf("match: %s: %w", s.path, err)
	}
	var ids []string
	if err := json.Unmarshal([]byte(text), &ids); err != nil {
		return nil, fmt.Errorf("match: %s: the games' IDs: %w", s.path, err)
	}
	done := make(map[string]bool, len(ids))
	for _, id := range ids {
		done[id] = true
	}
	return done, nil
}

// Save stores a game's result.
func (s *Store) Save(ctx context.Context, r *Result, shard findball.Shard) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("match: encoding game %s: %w", r.ID(), err)
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO games (id, idx, pair, seed, b_first, score_a, score_b, shard, wall_ms, result)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.ID(), r.Index, r.Pair, fmt.Sprint(r.Seed), r.BFirst, r.Score[0], r.Score[1],
		shard.String(), r.Wall.Milliseconds(), string(b))
	if err != nil {
		return fmt.Errorf("match: %s: storing game %s: %w", s.path, r.ID(), err)
	}
	return nil
}

// Results returns the stored games in plan order.
func (s *Store) Results(ctx context.Context) ([]Result, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT result, wall_ms FROM games ORDER BY idx`)
	if err != nil {
		return nil, fmt.Errorf("match: %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []Result
	for rows.Next() {
		var text string
		var wall int64
		if err := rows.Scan(&text, &wall); err != nil {
			return nil, fmt.Errorf("match: %s: %w", s.path, err)
		}
		var r Result
		if err := json.Unmarshal([]byte(text), &r); err != nil {
			return nil, fmt.Errorf("match: %s: a stored game: %w", s.path, err)
		}
		r.Wall = msDuration(wall)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Stored returns game id's stored result text, as it was stored (the
// bytes a replay is compared with).
func (s *Store) Stored(ctx context.Context, id string) ([]byte, error) {
	var text string
	if err := s.db.QueryRowContext(ctx, `SELECT result FROM games WHERE id = ?`, id).Scan(&text); err != nil {
		return nil, fmt.Errorf("match: %s: game %s: %w", s.path, id, err)
	}
	return []byte(text), nil
}

// Merge adds the games of the shard databases at paths, which must hold
// the same campaign; a game in two of them must be the same game. It
// returns how many games were added.
func (s *Store) Merge(ctx context.Context, paths ...string) (int, error) {
	added := 0
	for _, p := range paths {
		n, err := s.mergeOne(ctx, p)
		if err != nil {
			return added, err
		}
		added += n
	}
	return added, nil
}

func (s *Store) mergeOne(ctx context.Context, path string) (int, error) {
	if _, err := os.Stat(path); err != nil {
		return 0, fmt.Errorf("match: merging: %w", err)
	}
	uri, err := findball.ReadOnlyURI(path)
	if err != nil {
		return 0, err
	}
	src, err := sql.Open("sqlite", uri)
	if err != nil {
		return 0, fmt.Errorf("match: opening %s: %w", path, err)
	}
	defer src.Close()
	text, ok, err := campaignText(ctx, src)
	if err != nil {
		return 0, fmt.Errorf("match: %s: %w", path, err)
	}
	if !ok {
		return 0, fmt.Errorf("match: %s holds no campaign", path)
	}
	var cfg Config
	if err := json.Unmarshal(text, &cfg); err != nil {
		return 0, fmt.Errorf("match: %s: the campaign: %w", path, err)
	}
	if err := s.Begin(ctx, &cfg); err != nil {
		return 0, fmt.Errorf("match: merging %s: %w", path, err)
	}
	rows, err := src.QueryContext(ctx, `SELECT id, idx, pair, seed, b_first, score_a, score_b, shard, wall_ms, result FROM games ORDER BY idx`)
	if err != nil {
		return 0, fmt.Errorf("match: %s: %w", path, err)
	}
	defer rows.Close()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("match: merging %s: %w", path, err)
	}
	defer tx.Rollback()
	n := 0
	for rows.Next() {
		var id, seed, shard, result string
		var idx, pair, bFirst, a, b int
		var wall int64
		if err := rows.Scan(&id, &idx, &pair, &seed, &bFirst, &a, &b, &shard, &wall, &result); err != nil {
			return n, fmt.Errorf("match: %s: %w", path, err)
		}
		var have string
		switch err := tx.QueryRowContext(ctx, `SELECT result FROM games WHERE id = ?`, id).Scan(&have); {
		case err == nil:
			if have != result {
				return n, fmt.Errorf("match: merging %s: game %s is in both databases with different outcomes", path, id)
			}
			continue
		case !errors.Is(err, sql.ErrNoRows):
			return n, fmt.Errorf("match: merging %s: %w", path, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO games (id, idx, pair, seed, b_first, score_a, score_b, shard, wall_ms, result)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, idx, pair, seed, bFirst, a, b, shard, wall, result); err != nil {
			return n, fmt.Errorf("match: merging %s: %w", path, err)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("match: %s: %w", path, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("match: merging %s: %w", path, err)
	}
	return n, nil
}
