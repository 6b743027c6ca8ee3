package findball

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Trial is one run of the protocol: a strategy, a ball position and a
// repetition.
type Trial struct {
	// Index is the trial's place in the campaign's plan (0-based); shards
	// split the plan by it.
	Index int
	// Strategy is the strategy's name.
	Strategy string
	// Position is the ball position's number (1-based, as in table 5.2)
	// and Ball the position.
	Position int
	Ball     Point
	// Rep is the repetition at this position (1-based).
	Rep int
	// Seed seeds the simulator, the robots and the team network. It
	// depends on the campaign's seed, the position and the repetition, not
	// on the strategy: the strategies face the same trials.
	Seed uint64
}

// ID names the trial in the database: strategy/position/repetition.
func (t Trial) ID() string { return fmt.Sprintf("%s/%02d/%02d", t.Strategy, t.Position, t.Rep) }

// Plan lists every trial of the campaign: for each position, each
// repetition, each strategy. Interleaving the strategies keeps a partly
// run campaign comparable.
func (c *Config) Plan() []Trial {
	var ts []Trial
	for p, b := range c.Balls {
		for r := 1; r <= c.Trials; r++ {
			seed := trialSeed(c.Seed, p+1, r)
			for _, s := range c.Strategies {
				ts = append(ts, Trial{Index: len(ts), Strategy: s.Name, Position: p + 1, Ball: b, Rep: r, Seed: seed})
			}
		}
	}
	return ts
}

// trialSeed mixes the campaign seed, the position and the repetition
// (splitmix64), so that neighbouring trials get unrelated seeds.
func trialSeed(seed uint64, position, rep int) uint64 {
	x := seed ^ uint64(position)<<32 ^ uint64(rep)
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	x ^= x >> 31
	if x == 0 {
		x = 1
	}
	return x
}

// subSeed derives a seed for one consumer (k) of a trial.
func subSeed(seed uint64, k int) uint64 { return trialSeed(seed, 1<<20+k, 0) }

// Shard is one part of a campaign: the trials whose index is I modulo N.
type Shard struct {
	I, N int
}

// All is the whole campaign.
var All = Shard{I: 0, N: 1}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// Has reports whether the trial belongs to the shard.
func (s Shard) Has(t Trial) bool { return s.N <= 1 || t.Index%s.N == s.I }

// ParseShard reads "i/n" with 0 ≤ i < n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("experiment: shard %q: want i/n with 0 <= i < n", s)
	}
	return Shard{I: i, N: n}, nil
}

// ShardFromEnv returns the shard a cluster scheduler assigns: a
// Kubernetes indexed Job's JOB_COMPLETION_INDEX with the number of shards
// in JOB_COMPLETIONS, or JOB_PARALLELISM (Kubernetes sets only the index:
// put the Job's spec.completions into the pod template's environment), or
// a Slurm job array's SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT
// (less SLURM_ARRAY_TASK_MIN, for arrays that do not start at 0). ok is
// false when neither index is set.
func ShardFromEnv(getenv func(string) string) (Shard, bool, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	type source struct {
		index  string
		counts []string
		min    string
	}
	for _, src := range []source{
		{"JOB_COMPLETION_INDEX", []string{"JOB_COMPLETIONS", "JOB_PARALLELISM"}, ""},
		{"SLURM_ARRAY_TASK_ID", []string{"SLURM_ARRAY_TASK_COUNT"}, "SLURM_ARRAY_TASK_MIN"},
	} {
		iv := getenv(src.index)
		if iv == "" {
			continue
		}
		var nv string
		for _, c := range src.counts {
			if nv = getenv(c); nv != "" {
				break
			}
		}
		if nv == "" {
			return Shard{}, false, fmt.Errorf("experiment: %s is set but not %s: set it to the number of shards, or pass --shard", src.index, strings.Join(src.counts, " or "))
		}
		i, err1 := strconv.Atoi(iv)
		n, err2 := strconv.Atoi(nv)
		if err1 != nil || err2 != nil {
			return Shard{}, false, fmt.Errorf("experiment: %s=%q and shard count %q: want integers", src.index, iv, nv)
		}
		if src.min != "" {
			if mv := getenv(src.min); mv != "" {
				m, err := strconv.Atoi(mv)
				if err != nil {
					return Shard{}, false, fmt.Errorf("experiment: %s=%q: want an integer", src.min, mv)
				}
				i -= m
			}
		}
		if n < 1 || i < 0 || i >= n {
			return Shard{}, false, fmt.Errorf("experiment: shard %d of %d from %s is out of range", i, n, src.index)
		}
		return Shard{I: i, N: n}, true, nil
	}
	return Shard{}, false, nil
}
