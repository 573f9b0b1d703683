package cmd

import (
	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/cassette"
)

// cassetteFlags are --cassette and --cassette-mode: the model's traffic
// recorded to a file, or replayed from it with no key and no network.
type cassetteFlags struct {
	File string
	Mode string
}

// register adds the flags to fs, in the group kesoku help cassettes tells.
func (f *cassetteFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.File, "cassette", "", "record the model's traffic to `FILE`, or replay it from FILE")
	checkedVar(fs, &f.Mode, "cassette-mode", "", "record, replay or auto, the `MODE` that replays FILE when it exists (the default)", checkCassetteMode)
	inGroup(fs, "cassette", "cassette", "cassette-mode")
}

// registerDir adds the flags of a command that records a cassette per
// session (eval): --cassette names a directory.
func (f *cassetteFlags) registerDir(fs *pflag.FlagSet) {
	fs.StringVar(&f.File, "cassette", "", "record the model's traffic to a cassette per run in `DIR`, or replay it from there")
	checkedVar(fs, &f.Mode, "cassette-mode", "", "record, replay or auto, the `MODE` that replays a case's cassette when it exists (the default)", checkCassetteMode)
	inGroup(fs, "cassette", "cassette", "cassette-mode")
}

func checkCassetteMode(s string) error {
	_, err := cassette.ParseMode(s)
	return err
}

// apply puts the cassette in o, the options of a command's environment.
func (f *cassetteFlags) apply(o app.Options) app.Options {
	o.Cassette = f.File
	o.CassetteMode, _ = cassette.ParseMode(f.Mode)
	return o
}

// cassetteFlagsHelp is the flags as kesoku help cassettes shows them.
func cassetteFlagsHelp() string {
	fs := pflag.NewFlagSet("cassette", pflag.ContinueOnError)
	var f cassetteFlags
	f.register(fs)
	return flagUsages(fs, helpWidth)
}

// cassettesTopic is how model traffic is recorded and replayed.
func cassettesTopic() string {
	return `A cassette is a model's HTTP traffic on record: session, analyze and batch
record every request to the model and its answer to --cassette FILE, and
replay them from it, so that a session runs again with no key, no network
and no --base-url: the same answers, through the same SDK clients,
retries and stream parsing as against the API. eval takes --cassette DIR,
a cassette per case and repeat in DIR (kesoku help eval-files).

  kesoku session --cassette testdata/cassettes/quickstart.jsonl \
    --tools calculate_sum "what is 12345+67890? use the tool"
  kesoku session "add 2 and 3" --model gemini-2.5-flash \
    --cassette add.jsonl --cassette-mode record

` + cassetteFlagsHelp() + `
With --cassette-mode auto (the default) an existing FILE is replayed and a
missing one recorded, which a line on standard error says (-v says so of
a replay too). Recording needs what the command needs without a cassette
(the key, or --base-url); replaying needs nothing: --model and --provider
default to the cassette's, and another model than the one recorded is
refused. A retry on record (a 429 and its retry-after) is made at once on
replay: a replay waits for nothing.

THE FILE
JSON Lines: a header (kesoku_cassette, provider, model), then one exchange
a line in the order the answers came: the request (method, path, query,
body as JSON) and the response (status, the headers a client acts on, the
body as JSON, or a stream as its events). No secret is written: no header
that carries a key, no key in a URL's query, and the key's value is
replaced by [redacted] wherever else it appears (a key of 8 characters or
more: a shorter one, a local server's placeholder, is no secret).

MATCHING
On replay each request must be the one recorded next, once what changes
from one run to the next is set aside: UUIDs (session and record ids),
timestamps, the call ids kesoku makes up, durations, the order of JSON
keys. Requests sent at once (tool calls that ask the model together) may
come in any order among themselves. A request that differs stops the
command with exit status 1 and says where, before anything is sent:

  cassette add.jsonl: request 2 (POST /v1/messages) is not the one
  recorded: at messages[2].content[0].content, recorded "5", now "6";
  nothing was sent (record it again with --cassette-mode record)

Anything that changes what is sent (the prompt, the tools offered, their
descriptions, --system, --max-tokens) needs the cassette recorded again.
`
}
