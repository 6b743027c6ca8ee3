package match

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
)

// Replay plays the stored game id again from the database's campaign
// and compares its result with the stored one byte for byte (the wall
// time aside). It returns the new result and whether they are equal.
func Replay(ctx context.Context, st *Store, id string, log, simLog *slog.Logger) (Result, bool, error) {
	cfg, ok, err := st.Campaign(ctx)
	if err != nil {
		return Result{}, false, err
	}
	if !ok {
		return Result{}, false, fmt.Errorf("match: %s holds no campaign", st.Path())
	}
	stored, err := st.Stored(ctx, id)
	if err != nil {
		return Result{}, false, err
	}
	var game Game
	found := false
	for _, g := range cfg.Plan() {
		if g.ID() == id {
			game, found = g, true
		}
	}
	if !found {
		return Result{}, false, fmt.Errorf("match: the campaign has no game %s", id)
	}
	e, err := newEnv(&cfg, nil, log, simLog)
	if err != nil {
		return Result{}, false, err
	}
	r, _, err := e.playRetrying(ctx, game, 2)
	if err != nil {
		return r, false, err
	}
	b, err := json.Marshal(&r)
	if err != nil {
		return r, false, fmt.Errorf("match: encoding game %s: %w", id, err)
	}
	return r, bytes.Equal(b, stored), nil
}
