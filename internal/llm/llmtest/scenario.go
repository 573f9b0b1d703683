package llmtest

import (
	"fmt"
	"os"
	"time"

	"github.com/goccy/go-yaml"
)

// Scenario is a fake server's script as a file (YAML or JSON), for
// end-to-end tests:
//
//	provider: gemini
//	key: test-key
//	replies:
//	  - calls:
//	      - {name: calculate_sum, args: {a: 1, b: 2}}
//	  - text: The sum is 3.
type Scenario struct {
	Provider Provider `yaml:"provider"`
	// Key is the API key the fake accepts; any non-empty key when empty.
	Key string `yaml:"key"`
	// NoKey makes the fake take requests without a key, as a server of
	// one's own does.
	NoKey   bool    `yaml:"no_key"`
	Replies []Reply `yaml:"replies"`
	// BatchPolls and BatchState shape every batch: how many looks it
	// stays in progress for, and the state a Gemini batch ends in (see
	// Server.SetBatchPolls, SetBatchState).
	BatchPolls int    `yaml:"batch_polls"`
	BatchState string `yaml:"batch_state"`
	// ResultsTrickle makes every batch's results never end (see
	// Server.SetResultsTrickle).
	ResultsTrickle Duration `yaml:"results_trickle"`
}

// LoadScenario reads a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sc Scenario
	if err := yaml.UnmarshalWithOptions(data, &sc, yaml.Strict(), yaml.UseJSONUnmarshaler()); err != nil {
		return nil, fmt.Errorf("scenario %s: %s", path, yaml.FormatError(err, false, true))
	}
	switch sc.Provider {
	case Gemini, Claude, OpenAI:
	default:
		return nil, fmt.Errorf("scenario %s: provider %q: want gemini, claude or openai", path, sc.Provider)
	}
	return &sc, nil
}

// Start starts a fake server playing the scenario.
func (sc *Scenario) Start() *Server {
	s := NewServer(sc.Provider, sc.Key, sc.Replies...)
	s.SetBatchPolls(sc.BatchPolls)
	if sc.BatchState != "" {
		s.SetBatchState(sc.BatchState)
	}
	if sc.NoKey {
		s.AllowNoKey()
	}
	s.SetResultsTrickle(time.Duration(sc.ResultsTrickle))
	return s
}
