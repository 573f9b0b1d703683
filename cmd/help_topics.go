package cmd

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/prices"
)

// helpTopic is a long explanation that a command's help points to:
// `kesoku help NAME`, and the man page kesoku-NAME(7).
type helpTopic struct {
	name, short string
	// text writes the topic; what it says of flags is read from root's.
	// It is called only when the topic is shown: every command builds
	// the tree, few show a topic.
	text func(root *cobra.Command) string
}

// text is a topic whose text is fixed.
func text(s string) func(*cobra.Command) string { return func(*cobra.Command) string { return s } }

// helpTopics are the topics.
var helpTopics = []helpTopic{
	{"approval", "What a found kesoku.yaml needs approval for, and kesoku trust", approvalTopic},
	{"batches", "The batch APIs: state files, parts, limits, what a batch costs", text(batchesTopic)},
	{"budgets", "What model requests cost, prices, and --max-budget-usd", func(*cobra.Command) string { return budgetsTopic() }},
	{"cassettes", "Model traffic on record: --cassette, replay with no key", func(*cobra.Command) string { return cassettesTopic() }},
	{"ci", "In CI: JUnit reports, summaries as JSON, the records' schema", text(ciTopic)},
	{"config", "Config files: keys, command tools, MCP servers, paths", text(configTopic)},
	{"eval-files", "Eval files: cases, what they expect, verdicts, pass@k", text(evalTopic)},
	{"environment", "Every environment variable kesoku reads or sets", text(environmentTopic)},
	{"exit-codes", "What each exit status means, command by command", text(exitCodesTopic)},
	{"go-tools", "Tools written in Go: doc comments, gen, a module of one's own", text(goToolsTopic)},
	{"mcp-server", "kesoku as an MCP server: what is served, calls, HTTP, tokens", text(mcpServerTopic)},
	{"permissions", "Which tool calls run: rules, hooks, kesoku approve", text(permissionsTopic)},
	{"oauth", "MCP servers behind OAuth: logins, tokens, client credentials", text(oauthTopic)},
	{"providers", "Models and providers: names, keys, base URLs, retries, files", func(*cobra.Command) string { return providersTopic() }},
	{"records", "The Message record: its fields, types, statuses, error kinds", text(recordsTopic)},
	{"requests", "Request files: formats, fields, ids, replaying transcripts", text(requestsTopic)},
	{"resume", "Interrupts, and finishing a run, session or batch with --resume", text(resumeTopic)},
	{"safety", "Confinement, kesoku's own files, what a found config may do", text(safetyTopic)},
	{"shards", "One batch on many machines: --shard K/N and kesoku merge", func(*cobra.Command) string { return shardsTopic() }},
	{"snapshots", "kesoku diff: pairing records, what is compared, its output", text(snapshotsTopic)},
	{"traces", "OpenTelemetry traces: the OTEL_* variables, spans, content", text(tracesTopic)},
}

// topicAliases are other names a topic is looked for by: a part of it
// that the README names as a subject of its own.
var topicAliases = map[string][]string{"permissions": {"hooks"}}

// fillTopics writes the text of every topic under root, for what reads
// them all (the man pages).
func fillTopics(root *cobra.Command) {
	for _, t := range helpTopics {
		if c, _, err := root.Find([]string{t.name}); err == nil && isTopic(c) && c.Long == "" {
			c.Long = t.text(root)
		}
	}
}

// budgetsTopic is how kesoku counts what model requests cost, with the
// table of prices it ships.
func budgetsTopic() string {
	var b strings.Builder
	b.WriteString(`Every model request reports its usage in tokens (kesoku session prints the
totals on stderr). Two flags bound what a session spends:

` + budgetFlagsHelp() + `
Before each model request kesoku checks what was spent, and once the budget
is reached it sends no new request; requests already under way finish and
are counted, so the total can pass the budget by what they cost. The
session then ends with exit status 4, its transcript valid to go on with
--resume (with a larger budget, or none). A request that reports no usage
(some servers that speak OpenAI's API) leaves what was spent unknown: a
budget cannot be kept then, and no new request starts after it.

eval takes the same flags for the whole eval (with --shard, for each
shard): once spent, every run not finished gets a verdict of kind budget,
and eval exits with 4 (kesoku help eval-files).

Dollars are counted at the price of the model, per million input, output
and cached tokens. kesoku ships the list prices below, as of ` + prices.Date + `; a
dated release of a model (claude-sonnet-4-5-20250929, gpt-4o-2024-08-06)
costs what the model does. Gemini's Pro models cost more past 200,000 input
tokens, which the table leaves out. --max-budget-usd with a model that has
no price is refused before anything is sent. prices: in a config file
overrides or extends the table, in US dollars per million tokens
(cache_read and cache_write default to input):

  prices:
    llama3.1: {input: 0, output: 0}
    gpt-4o: {input: 2.5, output: 10, cache_read: 1.25}

A kesoku.yaml found in the AWD that sets prices needs approval, as one
that starts programs does: low prices would let a budget spend more.

PRICES (US dollars per million tokens: input, output, cache read, write)
`)
	table := prices.Shipped()
	names := slices.Sorted(maps.Keys(table))
	for _, name := range names {
		p := table[name]
		fmt.Fprintf(&b, "  %-22s %6.2f %6.2f %7.3f", name, p.Input, p.Output, p.CacheRead)
		if p.CacheWrite > 0 {
			fmt.Fprintf(&b, " %6.2f", p.CacheWrite)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// budgetFlagsHelp is the budget flags as a command's help would show them.
func budgetFlagsHelp() string {
	fs := pflag.NewFlagSet("budget", pflag.ContinueOnError)
	var f budgetFlags
	f.register(fs)
	return flagUsages(fs, helpWidth)
}

// evalTopic is the shape of eval files and what each check does.
const evalTopic = `An eval file is YAML (.yaml, .yml), JSON (.json) or JSON Lines (.jsonl), as
request files are: one case, a list of cases, or {cases: [...]}; in JSON
Lines, one case per line. A mistake is an error at its file:line:column,
and an unknown key gets "did you mean"; kesoku validate checks eval files,
each case's tools too, and sends nothing. eval checks every case before it
sends anything, keeps the first thousand or so as it read them, and reads
the rest again as they run, a few at a time: a dataset of any size (a YAML
or JSON file is at most 16 MiB, a JSON Lines file has no bound) runs in
the memory of those and the cases under way. A case:

  - id: add                  # default case_N, N its place in the run
    prompt: What is 12345 + 67890? Use the tool.
    system: Answer in one line.    # default --system
    tools: calculate_sum     # the tools offered, as --tools takes them
    max_turns: 5             # default --max-turns
    repeat: 3                # default --repeat
    expect:
      tools_called: [calculate_sum]      # each called at least once
      tools_not_called: [write_file]
      tool_sequence:
        calls: [calculate_sum, {name: calculate_sum, args: {a: 12345}}]
        mode: in_order       # exact (default), in_order, any_order
      answer: {contains: "80235"}   # or regex, equals, json_schema
      max_turns: 2           # model requests of the case, at most
      max_tokens: 20000      # its input and output tokens, at most

A call in tool_sequence is a tool's name, or {name, args}: args match when
each argument given is equal (1 equals 1.0), the others ignored. exact wants
exactly these calls in this order; in_order these in this order, others
between them; any_order each of these, in any order, each matched by a call
of its own. answer's equals ignores spaces at either end; json_schema parses
the answer as JSON (the inside of a fenced code block when the model wrote
one) and validates it. A tool an expect names that is no tool at all is a
mistake in the file, as in tools: (one not offered is a check on purpose).

RECORDS
Each case runs as kesoku session runs a prompt; its transcript's records,
then its verdict: type verdict, role eval, parent_id the case's id, position
its place in the run, repeat which run of the case it is, is_error when it
failed, content {passed, checks: [{check, passed, want, got}]}, the case's
usage and, where the model has a price, cost_usd. A case whose session
failed (no answer, --max-turns reached) has a check named session. Cases
run --jobs at once, started in case order; their records are written
whole, case after case in case order, however the runs were scheduled.

PASS RATES
With --repeat K the summary gives pass@1 (the chance one run passes: each
case's share of passed runs, averaged), pass@K (the share of cases that
passed at least once) and pass^K (the share that passed every time);
--summary json also gives each failed case's own (case_rates: a case not
there passed every run). --threshold R passes the eval when pass@1 is at
least R.

BUDGETS AND INTERRUPTS
--max-budget-usd and --max-budget-tokens bound the whole eval: once spent,
no model request starts, requests under way finish, and every case not
finished gets a verdict alone, with an error of kind budget; exit 4. With
--shard, each shard holds what it spends itself to the budget: give each
its share (N shards of --max-budget-usd 10 may spend $10 each). An
interrupt stops the eval: the cases cut short are not written (exit 130).

RESUME AND SHARDS
kesoku eval --resume -o FILE runs only the runs (a case and a repeat) that
FILE holds no final verdict of: a verdict of kind budget is not final, and
a case an interrupt cut wrote nothing, so both run again, whole. The new
records are appended; once the eval finishes, FILE is rewritten (beside it,
renamed into place, under its lock) to hold one block per run, transcript
then verdict, in position order, as an eval never interrupted writes it.
The summary and the exit status are of the whole file: a run that failed
before still fails the eval. A verdict at a position whose run (its case
and repeat) is no longer the one there (the eval files or --repeat
changed) is run again and replaced.

--shard K/N runs the runs at positions p with (p-1) mod N = K-1, ids and
positions as the whole eval gives them, and ends its file with a shard_end
line (which also names the eval's cases files and --threshold, for
merge); kesoku merge joins the N parts into the whole eval's records, each
run placed by its verdict's position, with the JUnit report and the exit
status the whole eval gives, and refuses parts as it refuses run's (kesoku
help shards). Each shard resumes on its own, with --resume.

On a terminal a bar on standard error shows the runs done, passed and
failed, the tokens spent and their cost; in a log (CI) a line every 10s.

CASSETTES
With --cassette DIR each run has its own cassette in DIR, named after its
case's id and repeat (add.1.jsonl), recorded or replayed as kesoku help
cassettes says: a whole eval replays with no key. Ids that differ only in
capitals (add, Add) are refused with --cassette: where file names ignore
case (macOS, Windows) their cassettes would be one file.
`

// configTopic is the rule of the config files.
const configTopic = `A config file is a YAML mapping of flag names to values, which become the
flags' defaults: the command line wins over it. Its keys are the flags of
every command (a command uses those it has), e.g.

  jobs: 8
  timeout: 30s
  model: gemini-2.5-flash

An unknown key, or a value its flag refuses, is an error at its
file:line:column, from every command, whether it has that flag or not
(kesoku tools list refuses jobs: eight): a file is checked whole when it is
loaded. awd, config, resume, shard, cassette and cassette-mode are given on
the command line only, and so are refuse, revoke, check and force (they
choose what one command does) and tools schema --format; format is the format of
request files (run, validate). Durations are written as Go writes them
(300ms, 5s, 1h30m), sizes as bytes or with a unit (65536, 64KiB, 1MiB, 1MB);
every number has bounds, which the flag's help states. A base-url is an
http:// or https:// URL with a host, a provider one of those kesoku knows.

WHICH FILES
The user's ~/.config/kesoku/config.yaml ($XDG_CONFIG_HOME/kesoku/config.yaml
when XDG_CONFIG_HOME is set) serves every directory. A project's kesoku.yaml
in the AWD adds to it and wins on a clash; --config FILE is read instead of
the AWD's kesoku.yaml, and must exist. -v says which setting came from which
file. Relative paths in a config file (output, staging, mcp-config, a
command tool's program, a server's cwd) are relative to the file's own
directory; the programs run in the AWD.

COMMAND TOOLS AND MCP SERVERS
Two keys are sections of their own: tools declares command tools (programs
as tools; not the --tools flag), and mcpServers the MCP servers whose tools
kesoku uses, named <server>__<tool>, in the shape of .mcp.json:

  tools:
    word_count:
      description: Counts the words in a text.
      command: [python3, scripts/wc.py, "--lang={{lang}}"]
      parameters:
        type: object
        properties:
          text: {type: string}
          lang: {type: string, enum: [en, de], default: en}
        required: [text]
      timeout: 30s
      read_only: true
  mcpServers:
    fs:
      command: npx
      args: [-y, "@modelcontextprotocol/server-filesystem", "."]
    search:
      type: http
      url: https://example.com/mcp
      headers: {Authorization: "Bearer ${SEARCH_TOKEN}"}

A command tool's env: sets variables for its program, ${VAR} and
${VAR:-default} replaced as in a server's entry: env: {WORK: '${WORK}'}
passes one of kesoku's own through; nothing else of kesoku's environment
reaches the program but what every program needs (kesoku help environment).

A placeholder that is a whole argument, as in [git, log, -1, "{{ref}}"],
hands the program whatever the model wrote, and a value that begins with -
is read as an option: --output=/elsewhere makes git write a file outside the
AWD, read_only or not. positional_only: [ref] names the parameters whose
values must not begin with -: such a call is refused (invalid_args) and
nothing runs. Each name must be a parameter that a placeholder of the
command holds, or the file is refused at its line. Where the program takes
--, writing it before the placeholder ([git, log, -1, --, "{{ref}}"]) also
ends its options, but changes what some programs make of the argument (for
git log, a path, not a commit).

A third, prices, says what models cost, for --max-budget-usd: see kesoku
help budgets. A fourth, permissions, holds the rules of which tool calls run
({allow: [...], ask: [...], deny: [...]}; not the flags of those names): see
kesoku help permissions.

--mcp-config FILE adds the servers of a file in the shape of .mcp.json and
Claude Desktop's config ({"mcpServers": {...}}), read as it is; it may be
given more than once. In a server's command, args, env, url, headers and
oauth, ${VAR} is the environment variable VAR (one that is not set is an
error), and ${VAR:-default} its value or, when it is unset or empty, the
default. A url is an http or https URL, refused where it is written when it
cannot be one; what its variables hold is checked when the server starts. A
server over HTTP behind OAuth: see kesoku help oauth.

kesoku declares no elicitation, sampling or roots to a server. A call the
server answers with a request for such input (input_required: a person's
answer, a model's, the client's roots) ends at once as an error record
naming what was asked; a round trip that asks for nothing but carries the
server's state is made again as the protocol says, the state echoed, at
most 10 times.

APPROVAL
A kesoku.yaml found in the AWD that decides where records, model requests
and keys go, what models cost or which calls run, or that starts programs,
is loaded only once approved with kesoku trust: see kesoku help approval.
`

// approvalTopic is what a found kesoku.yaml needs approval for. The keys,
// and what each decides, are config's rules.
func approvalTopic(root *cobra.Command) string {
	sections := config.SectionKeys()
	keys := slices.Clone(sections)
	for _, k := range flagNames(root) {
		// --tools chooses tools; tools: in a file is a section.
		if config.NeedsApproval(k) && !slices.Contains(sections, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	width := 0
	for _, k := range keys {
		width = max(width, len(k))
	}
	var list strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&list, "  %-*s  %s\n", width, k, config.Consequence(k))
	}
	return `A kesoku.yaml that comes with a directory (a cloned repository, a file a
tool wrote) is not consent. One that sets any of these keys is loaded only
once approved with kesoku trust, and is otherwise refused (exit 2):

` + list.String() + `
A file that sets none of them needs no approval, and neither does the user's
own config.yaml. A file named with --config or --mcp-config needs none: it
is approved by being named.

WHAT KESOKU TRUST DOES
kesoku trust checks the file as every command would load it (its command
tools and MCP servers too), shows what it lets kesoku do (the commands it
runs, with the variables each is given and which of kesoku's own each passes
on, never their values; the servers it reaches, with the names of the
headers sent but never their values; and an oauth entry's client ID and
scopes but never its secret), and records its SHA-256 with its path under
the user's config directory ($XDG_CONFIG_HOME/kesoku/trusted, or
~/.config/kesoku/trusted). The files it names (mcp-config) are approved with
it.

WHAT AN APPROVAL COVERS
A change to the file or to a file it names, or the file at another path (a
symbolic link to it, or to its directory), needs approval again. A program
it runs by its path (scripts/hello.sh) is not covered: a change to it needs
no approval, so review it as well. kesoku trust --revoke forgets an
approval.

UNDER AN MCP CLIENT
An MCP client that starts kesoku mcp serve in a project whose kesoku.yaml
needs approval sees a server that fails to start (exit status 2, the reason
on its standard error) until the file is approved. The approvals are read
from the user's config directory of the environment kesoku gets: a client
that leaves XDG_CONFIG_HOME out makes it read ~/.config/kesoku/trusted.
`
}

// orList is "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

const tracesTopic = `kesoku sends OpenTelemetry traces of what it does when the standard
OTEL_* variables ask for them, and nothing otherwise: off, nothing of
OpenTelemetry is started.

VARIABLES
  OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
       where spans go, over OTLP/HTTP (/v1/traces is added to the first);
       either one set turns traces on
  OTEL_TRACES_EXPORTER
       otlp turns traces on (to https://localhost:4318 when no endpoint is
       set), none turns them off; nothing else is supported
  OTEL_SDK_DISABLED
       true turns traces off
  OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
       http/protobuf (the default) or http/json; grpc is not supported:
       traces stay off, with a line on stderr, and the command runs
  OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TRACES_HEADERS
       headers of each export (key1=value1,key2=value2); their values
       are secrets, [redacted] wherever they show up, and sent to the
       endpoint's origin alone: a collector's redirect to another
       scheme, host or port is refused, and its spans are counted among
       those it did not take
  OTEL_EXPORTER_OTLP_TIMEOUT, OTEL_EXPORTER_OTLP_COMPRESSION,
  OTEL_EXPORTER_OTLP_CERTIFICATE, OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE,
  OTEL_EXPORTER_OTLP_CLIENT_KEY, OTEL_EXPORTER_OTLP_INSECURE
       as the OTLP exporter's specification says (each with its
       _TRACES_ form)
  OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
       the service (kesoku unless set) and the resource's attributes
  OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
  OTEL_BSP_SCHEDULE_DELAY
       the queue of spans waiting to be sent (2048 by default): a span
       that finds it full is dropped, never waited for
  OTEL_BSP_EXPORT_TIMEOUT
       how long, in milliseconds, the end of a command waits for its
       last spans (5000 unless set): a collector that is down or slow
       never holds or fails a command, and one line on stderr says how
       many spans it did not take
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
       true puts the prompts, the model's answers and the tools'
       arguments and results on the spans, every secret [redacted]; off
       by default

SPANS
The spans follow OpenTelemetry's GenAI semantic conventions, v1.41.0:
  kesoku run, kesoku eval
       the whole command, the root of its trace
  invoke_agent kesoku
       a session, or one run of an eval case (kesoku.eval.case,
       kesoku.eval.passed): gen_ai.conversation.id is the session's id
  chat {model}
       a model request: gen_ai.provider.name, gen_ai.request.model,
       gen_ai.usage.input_tokens and output_tokens,
       gen_ai.response.finish_reasons
  execute_tool {tool}
       a tool call: gen_ai.tool.name, gen_ai.tool.call.id (the model's
       call id, or the request's id), error.type (the record's error
       kind) when it failed, a call refused before it ran included
       (denied, invalid_args)
  {method} {target}
       a request to an MCP server (tools/call add, mcp.method.name),
       which carries the trace in its params._meta (traceparent,
       tracestate); kesoku mcp serve continues the trace a request
       carries, so a client's trace shows kesoku's calls inside it
Each record of a traced command carries trace_id and span_id: those of
its tool call's span, its model request's, or its session's. A program
kesoku starts (an MCP server over stdio, itself kesoku) gets none of
these variables unless its entry passes them in env:.`

const environmentTopic = `kesoku reads these environment variables, and those that its config files
and flags name: ${VAR} in an MCP server's entry, and the variable that
--token-env names.

KEYS AND ENDPOINTS
  GEMINI_API_KEY, GOOGLE_API_KEY
       the Gemini API key (the first one set)
  ANTHROPIC_API_KEY
       the Claude API key
  OPENAI_API_KEY
       the OpenAI API key; a server of one's own behind --base-url needs
       none
  OPENAI_BASE_URL
       --base-url of the openai provider when the flag is not given, as
       OpenAI's own SDKs read it
  GOOGLE_GEMINI_BASE_URL
       read by the Gemini SDK as the endpoint when --base-url is not given
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY
       the proxy of requests to the providers and to remote MCP servers
       (Go's rules: NO_PROXY lists the hosts reached directly)
A key is sent only to its provider's endpoint: the provider's own, or the
--base-url given. See kesoku help providers.

FILES AND THE TERMINAL
  XDG_CONFIG_HOME
       the user's config directory is $XDG_CONFIG_HOME/kesoku when it is
       an absolute path, else ~/.config/kesoku (from HOME): config.yaml,
       the approvals kesoku trust records (trusted/), and the OAuth
       tokens of logins to MCP servers (tokens/)
  BROWSER
       the browser an OAuth login opens (a colon-separated list of
       commands, %s the URL), else the system's opener; set, a run with
       no terminal may log in (see kesoku help oauth)
  NO_COLOR, TERM
       change nothing: kesoku prints no colour, and a progress bar only
       when standard error is a terminal
  GOMEMLIMIT
       the Go runtime's soft memory limit, which kesoku run does not need
       (a batch streams in flat memory) and kesoku diff sets unless it is
       set; a limit makes the collector run more often, for less memory
  SOURCE_DATE_EPOCH
       the date gen-man writes into the man pages (seconds since 1970),
       for a build that is to be the same every time
  MANPATH
       where man looks: gen-man says how to add its DIR when it is not on it

TRACES
  OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
  OTEL_TRACES_EXPORTER, OTEL_SDK_DISABLED
       turn OpenTelemetry traces on (an endpoint set, or
       OTEL_TRACES_EXPORTER=otlp) or off (none; the default)
  OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_HEADERS and the rest of
  the OTLP exporter's, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
  OTEL_BSP_*, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT
       how spans are sent, what they say and whether the prompts and
       the tools' arguments are on them: see kesoku help traces

PROGRAMS KESOKU STARTS
A command tool's program, an MCP server and a hook kesoku starts get only
these of kesoku's environment, as they are: PATH, HOME, USER, LOGNAME,
SHELL, LANG, LANGUAGE, the LC_ variables, TZ, TMPDIR, TERM, COLORTERM,
NO_COLOR, SSL_CERT_FILE and SSL_CERT_DIR (on Windows also SYSTEMROOT,
SYSTEMDRIVE, WINDIR, COMSPEC, PATHEXT, TEMP, TMP, USERNAME, USERPROFILE,
HOMEDRIVE, HOMEPATH, APPDATA, LOCALAPPDATA, PROGRAMDATA, PROGRAMFILES,
PROCESSOR_ARCHITECTURE and NUMBER_OF_PROCESSORS): what a program needs to
run at all. Everything else reaches it only when its own entry names it in
env: (a tool's or a server's; ${VAR} passes one of kesoku's through, see
kesoku help config). So no program gets the providers' keys (GEMINI_API_KEY,
GOOGLE_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY), the variables that other
servers' headers, url or oauth name, the variable --token-env names, or a
proxy's settings (HTTPS_PROXY and the rest: pass them in env: where a server
needs them); a variable of the list above whose value is one of those
secrets is left out too. Should a secret show up anyway (a program that
reads it from a file, a server that echoes it), it is [redacted] in the
records, the transcript, on the terminal, under -v, in tools schema and in
what is sent to a model.

A command tool's program also gets one KESOKU_ARG_<NAME> for each argument
that is a string, number or boolean of at most 64 KiB (its name upper-cased,
any character a variable name cannot hold written as _); the KESOKU_ARG_
variables kesoku itself inherited are removed first. On Linux each program
also gets KESOKU_PROCESS and an open descriptor of an empty file
(kesoku-mark), which its children inherit: by them kesoku finds a child that
left its process group, to stop it. A hook also gets CLAUDE_PROJECT_DIR, the
AWD, as Claude Code gives it to its hooks. The go command (kesoku gen) gets
these and Go's own variables (GOFLAGS, GOPROXY, GOPATH, GOCACHE and the rest
of go help environment, the CGO_ variables, CC, CXX, AR, PKG_CONFIG, the
GIT_ variables, SSH_AUTH_SOCK, NETRC, HTTP_PROXY, HTTPS_PROXY, NO_PROXY,
XDG_CACHE_HOME and XDG_CONFIG_HOME); the browser a login opens ($BROWSER or
the system's opener) gets these and the display's (BROWSER, DISPLAY,
WAYLAND_DISPLAY, XAUTHORITY, DBUS_SESSION_BUS_ADDRESS, the XDG_ variables
and the desktop session's). Neither gets a provider's key.

SET BY KESOKU
  KESOKU_GUARDIAN, KESOKU_GUARDIAN_MARK
       kesoku sets them to start itself again as the guardian of the
       programs its tools run (it stops them should kesoku be killed),
       and to tell it their mark; never set them yourself
The variable --token-env VAR names holds the bearer token HTTP clients of
kesoku mcp serve must send.
`

const exitCodesTopic = `Every command ends with one of these, and says in its own --help which mean
what for it:

  0    done: every record succeeded, the model answered, nothing differs
  1    done, and something failed that the output says: an error record,
       a difference, the provider's refusal, a cut answer
  2    bad usage or input that cannot be read or parsed: nothing ran
  3    a batch part is still in progress (batch status and collect)
  4    a budget was spent (--max-budget-usd, --max-budget-tokens): no
       model request started after that
  5    stopped at a tool call that waits for a person's answer (the
       rules ask with no terminal to ask at under --on-ask defer, or a
       hook deferred it): kesoku approve, then --resume
  130  interrupted by SIGINT or SIGTERM, after a clean stop

COMMAND BY COMMAND
  run, merge, batch collect
       1: at least one error record (aborted ones too). After --resume
       the status describes the whole -o file: error records of the
       earlier run count as much as new ones. 5 (run): stopped at a call
       that waits (the rules ask, --on-ask defer; or a hook deferred it).
  mcp serve
       1: a record that could not be written to -o, or an address in
       use; a call that failed is the client's result, not an exit 1.
  eval, and merge of an eval's shards
       1: a case failed, and pass@1 is under --threshold (if given);
       2: a mistake in an eval file, nothing sent; 4: the budget was
       spent, each run it cut has a budget verdict. After --resume the
       status describes the whole -o file.
  approve
       2: an ID that names no deferred call of the file; nothing is
       answered.
  validate
       1: at least one request or case is invalid; 2 for a file that
       cannot be read or parsed, the other files still checked.
  diff
       1: at least one request differs; 2 for a file that cannot be read
       or parsed, the differences printed before it kept.
  session, analyze
       1: the provider refused the request, the model gave no answer, or
       its answer was cut short (session: or --max-turns was reached);
       2: no model, no key, no prompt, a file the model cannot take;
       nothing was sent. 4 (session): its budget was spent. 5 (session):
       stopped at a call that waits, as run.
  batch submit
       1: the provider refused a part, or a part could not be sent (the
       same command sends the rest); 2: nothing was sent.
  batch status
       0: every part has ended; 1: the provider could not be asked; 3:
       some part is still in progress.
  tools list, tools schema
       1: an MCP server could not start.
  gen
       1: a mistake in a tool's declaration, a package that does not
       load, a module that cannot build the generated code, or, with
       --check, a stale, missing or orphaned generated file.

IN SCRIPTS
set -e or && stop at 1 as at 2. Where 1 is expected (a golden file of kesoku
diff that holds errors on purpose), join the commands with ";" or test the
status: 2 is the one that means the command line or an input is wrong.
`

const goToolsTopic = `A tool written in Go is a function whose doc comment is Google-style and
holds the line //kesoku:tool:

	// CalculateTotal adds two integers.
	//
	// Args:
	//	a: the first integer.
	//	b: the second integer. Defaults to 0.
	//	mode: how to add. Must be one of: exact, saturating.
	//
	// Returns:
	//	the sum of a and b.
	//
	//kesoku:tool
	func CalculateTotal(a, b int, mode string) int

kesoku gen writes kesoku_gen.go beside it: the code that registers the tool
with its description and JSON schema, and decodes a call's arguments into
the typed parameters without reflection.

NAMES AND PARAMETERS
The tool's name is the function's in snake case (calculate_total) unless the
directive names one: //kesoku:tool name=add. The option writes marks a tool
that changes files (//kesoku:tool name=save writes): sessions and kesoku mcp
serve offer it only when it is named. The option check=FUNC names a function
of the package, func(tc *registry.ToolContext, args map[string]any) error,
that refuses what the tool would refuse beyond its parameters' types (a path
outside the working directory, a number past its bounds) with
registry.InvalidArg: kesoku run calls it before the tool, and kesoku
validate, which runs nothing, calls it too; it only looks, never acts.
Parameters of type context.Context and *registry.ToolContext are given by
the runner and take no Args entry. A parameter is required unless it is a
pointer or its entry says "Defaults to X." (X in JSON, or a bare word for a
string).

A name another tool of the program has is taken: one of kesoku's own (kesoku
tools list shows them: calculate_sum, glob, read_file...) or a tool of
another package built into the kesoku that runs gen. kesoku gen refuses it
at the tool's file:line; built with -tags kesoku_nogen (as the go:generate
line runs it) it has no tool to compare with. A program built with two tools
of one name all the same (yours was there before kesoku gained one of that
name) says which when it starts, and runs nothing but gen, help and version
until one is renamed and gen has run again.

GEN
kesoku gen reads the packages named (default ./..., from the current
directory). A package with no tools gets no file, and a kesoku_gen.go left
in a package that no longer has tools is removed. Mistakes (a parameter
without an Args entry, an entry naming no parameter, an unsupported type, a
duplicate or taken name...) are all reported at once as file:line: message,
and nothing is written. So is a module that cannot build what gen writes,
which imports github.com/kesoku/kesoku/registry: gen says what the module
lacks (a requirement on github.com/kesoku/kesoku, say) and the command that
adds it. With --check nothing is written either: gen fails, naming each
stale, missing or orphaned kesoku_gen.go, when running it would change a
file; CI runs it, so that a doc comment edited without regenerating fails
the build.

Generated files carry the build constraint !kesoku_nogen. When a stale one
no longer compiles, and so stops the program that would regenerate it
(kesoku's own built-in tools are registered this way), build without them:

	go run -tags kesoku_nogen github.com/kesoku/kesoku gen ./...

WITHOUT GEN
registry.Add registers a tool whose arguments are the fields of a struct
(their json, description and enum tags), with no doc comment and no kesoku
gen: its calls are validated and decoded by the same functions, so a
mistake reads the same either way (go doc
github.com/kesoku/kesoku/registry.Add).

A MODULE OF ONE'S OWN
A program whose main calls os.Exit(cmd.Main()) from
github.com/kesoku/kesoku/cmd, and imports the packages of its tools, is
kesoku with those tools: every command, the built-in tools and its own
(examples/mytools in kesoku's repository is one, and kesoku init DIR writes
one that runs at once). Its version command says its own name and version,
then kesoku's. The go:generate line in its tools' package (kesoku init
writes it, MODULE the module's path) runs its own gen on that package:

	//go:generate go run -tags kesoku_nogen MODULE gen .
`

const mcpServerTopic = `kesoku mcp serve offers kesoku's tools to an MCP client: on standard input
and output (the client starts kesoku and speaks to it through a pipe), or
with --http as streamable HTTP at the path /mcp. Standard output carries the
protocol and nothing else (what a Go tool prints there goes to standard
error); everything kesoku has to say goes to standard error, and -v logs
each call there.

WHAT IS SERVED
kesoku serves its own tools: the Go tools and the command tools of the
config files (tools:). Offered are those that only read (see kesoku tools
list): the built-in ones and the command tools declared read_only; tools
that write, such as write_file, only when named in --tools, as for kesoku
session: --tools NAME,... offers those named in place of the ones that only
read, --tools +write_file adds one to them and -NAME takes one away
(+write_file,-list_dir does both); --tools all offers every tool, --tools ''
none. Each tool is declared with its JSON Schema and an annotation saying
whether it only reads. The MCP servers of the config files are neither
served nor started (--mcp-config is refused): a client that wants their
tools starts them itself. Tools are all that is declared and all that is
served: prompts, resources, completions and logging/setLevel are answered
as methods the server does not have.

CALLS
Every tools/call runs as a request of kesoku run does: its arguments are
checked against the tool's parameters, and a bad one is answered with
isError and a text saying what was expected and what came. --timeout bounds
the call (a command tool's own timeout, when it has one), and --max-output
its result (the whole output is saved under .kesoku/outputs). File tools
reach nothing outside the working directory (--awd) and the staging
directory, and never write kesoku's own files. A command tool's program runs
in the working directory; when its call ends early (a timeout, the client
cancelling it or going away, an interrupt) the program and all it started
get SIGTERM, then SIGKILL after --grace. A tool's failure is a result marked
isError, never a protocol error.

-o FILE appends each call's Message record to FILE; each client's session is
a session_id of its own, its calls call_1, call_2... (requests without a
session share one session_id per run). --jobs (16 unless given) bounds the
calls that run at once, across all clients: an agent that sends several
calls at once has them run at once, and a batch client (kesoku run --jobs
16) is not slowed to fewer; more wait for a free slot. A client that cancels
a call, or goes away, cancels the call's context: it is recorded as aborted,
and its slot is free. --model (or model: in a config file) gives
analyze_media its model, as for kesoku run; without one, analyze_media is
not offered unless --tools names it, and then answers that it needs one.

OVER HTTP
--http ADDR listens on the loopback address unless ADDR names another:
--http 8080 and --http :8080 mean 127.0.0.1:8080. Any address that is not
loopback (0.0.0.0:8080, a LAN address) needs a bearer token: --token-env VAR
names the environment variable that holds it, and every request must then
carry "Authorization: Bearer TOKEN", or get 401. Without a token such an
address is refused before anything listens, and a token of fewer than 16
characters is warned of. A request that reaches the loopback address with a
Host header that is not loopback (DNS rebinding) is refused with 403; so is,
without a token, one that a web page makes from another origin. A client
that gets 401 is disconnected at once; a request's headers and body must
arrive within 10 and 30 seconds, and a connection idle for 30 seconds
between requests is closed. A call's answer has no such bound: it takes as
long as the call.

SESSIONS
Clients of MCP 2026-07-28 are served without sessions, so that several
servers behind a load balancer serve one client. Older clients get a
session, closed after --session-timeout without a request (a call in flight
keeps it open); the client must then initialize again. At most
--max-sessions (default 2000) are open at once: a new one past it closes
the session idle the longest, or, when every one has a request in flight,
is refused with 503 and a message saying so.

STOPPING
Ctrl-C (SIGINT) or SIGTERM stops the server: calls in flight are cancelled
and get --grace to return, their clients get their results, and calls that
come meanwhile are answered as aborted. A second signal ends the grace. Over
standard input and output the server also ends when the client closes its
end. A project kesoku.yaml that needs approval (see kesoku help approval)
stops the server before it starts, with exit status 2.
`

// oauthTopic is how kesoku authorizes with an MCP server behind OAuth.
const oauthTopic = `An MCP server reached over HTTP that answers 401 with the MCP authorization
spec's WWW-Authenticate is authorized with OAuth 2.1, as the spec says: its
protected resource metadata (at the path, then the root), then its
authorization server's metadata. A person needs to configure nothing:

  mcpServers:
    corp:
      type: http
      url: https://mcp.example.com/mcp

A job with no one at the keyboard (CI) takes the client-credentials grant,
with a client the server's administrators registered:

  mcpServers:
    corp:
      type: http
      url: https://mcp.example.com/mcp
      oauth:
        clientId: kesoku-ci
        clientSecret: ${CORP_CLIENT_SECRET}
        scopes: [tools.read]

LOGGING IN
Without a client secret, kesoku takes the authorization code grant with PKCE
and the resource parameter. It is the client oauth.clientId names (an ID the
server's administrators gave, or the https URL of a client ID metadata
document, used where the authorization server takes them), else it registers
itself (dynamic registration), with a redirect to a port on 127.0.0.1 that
it listens on before it registers. It registers for a way of authenticating
at the token endpoint that the server lists (a public client, "none", where
it may; else client_secret_post, then client_secret_basic) and then uses the
one the server's answer names, or the one it asked for when the answer names
none. The authorization server's page opens in the browser ($BROWSER, else
xdg-open or open), its URL is printed as well, and the answer comes back to
that port. kesoku mcp login NAME logs in ahead of a run; a run logs in
itself when a person can (a terminal, or $BROWSER), and otherwise fails the
server's calls at once saying to run kesoku mcp login NAME: it never waits,
and registers nothing.

TOKENS
The tokens of a login are kept in $XDG_CONFIG_HOME/kesoku/tokens (or
~/.config/kesoku/tokens), one file per server URL, readable by the user
alone, and refreshed before they expire. A client secret that dynamic
registration handed out is kept in that file too, beside the refresh token
(refreshing needs it), and nowhere else; oauth.clientSecret is never written
anywhere. kesoku mcp logout NAME forgets them.
A request refused with 401 (in the middle of a batch, say) gets one new
token, the same for all the requests refused together, and is sent once
more. A 403 insufficient_scope asks once for the scopes it names (a new
login that keeps those granted); a server that still wants them is an error,
not another login.

CLIENT CREDENTIALS
With oauth.clientSecret, the token comes from the client-credentials grant,
with client_secret_basic or, where the authorization server's metadata asks
for it, client_secret_post; no person, and no token kept on disk: each run
asks for its own. A ${VAR} that is empty is an error, never a login in its
place. The SDK has no private_key_jwt: a client secret is what oauth takes.

WHERE SECRETS GO
The token goes to the server's origin alone, the client secret to the token
endpoint that the authorization server's metadata names; no redirect to
another origin is followed with either. A token or secret that a server
sends back (in a result, an error, a tool's name or description) is
[redacted] in the records, on the terminal, under -v, in tools schema and in
what is sent to a model; no program a tool starts gets one. oauth is for
type http (streamable HTTP), not sse; an entry whose headers hold
Authorization is authorized by it and gets no OAuth. In a found kesoku.yaml,
the oauth entry is part of what approval covers (see kesoku help approval).
`

// providersTopic is about the providers; their names come from the
// provider table.
func providersTopic() string {
	names := provider.Names()
	return fill("--model names the model, and its name the provider, one of "+orList(names)+": gemini-*, gemma-* and learnlm-* are Gemini's, claude-* Claude's, and gpt-*, o1*, o3* and o4* OpenAI's (a leading models/ is left out); --provider names one for any other name.") + `
The key of the provider comes from the environment: GEMINI_API_KEY (or
GOOGLE_API_KEY), ANTHROPIC_API_KEY, OPENAI_API_KEY; a missing key is an
error before anything is sent.

OTHER ENDPOINTS
--base-url sends the requests elsewhere: a proxy, or a server that speaks
OpenAI's API. --provider openai speaks OpenAI's Chat Completions API, which
Ollama, vLLM, LM Studio and llama.cpp serve too: give any model name and the
server's --base-url (Ollama's is http://localhost:11434/v1; OPENAI_BASE_URL
is read when --base-url is not given), and no key is needed. A key goes only
to the endpoint it is used with: a redirect to another host, port or scheme
is refused before anything is sent there, and the error names both.

  kesoku session "add 2 and 3" --model qwen3:8b --provider openai \
    --base-url http://localhost:11434/v1

MODEL FLAGS
Every command that talks to a model (run, session, eval, analyze, batch
submit, mcp serve) has these:

` + modelFlagsHelp() + `
RETRIES AND STREAMS
Rate limits (429), server errors (5xx), dropped connections and a request or
stream that sends nothing for --idle-timeout (default 2m) are retried with
backoff, each retry told on standard error with its reason and its wait; a
wait the server asks for (retry-after) is honoured up to a minute. Answers
always come from the API as a stream, so --idle-timeout bounds a silence,
never the length of an answer; --api-timeout (default 1h) bounds each
request whole, an answer that never ends but never goes quiet either, and is
not retried. session's --stream only says whether the text is shown as it
comes. Text not shown can be taken back: a stream that drops midway is then
asked for again. --max-tokens bounds a model turn: 0 is 8192 with Claude,
the model's own limit with Gemini and OpenAI.

A model turn cut short (the output token limit, a refusal, a safety stop, a
stream that ended without a stop reason) is never acted on: its tool calls
do not run (each is answered with an error saying the turn was cut, and the
model tries again), and a cut answer ends the session with exit status 1;
the transcript marks it (cut), and standard error names the reason.

WHAT A SESSION COSTS
Every model record carries usage (input_tokens, output_tokens, and
cache_read_tokens and cache_write_tokens where the provider reports them),
and at the end the session's totals go to standard error in one line (not
with -q). With Claude, every request marks the tool definitions, the system
prompt and the conversation so far for the prompt cache, so that each turn
pays full price only for what is new; Gemini and OpenAI cache by themselves.
kesoku batch asks the same at half the price (kesoku help batches).

FILES
analyze_media and kesoku analyze send a file as a native block: an image, a
document (PDF and text) or media (audio and video).
  claude  images (JPEG, PNG, GIF, WebP) up to 5 MiB of base64 each, PDF (up
          to 100 pages) and text, up to 32 MiB per request; no audio, no
          video
  gemini  images (PNG, JPEG, WebP, HEIC, HEIF), audio (WAV, MP3, AIFF, AAC,
          OGG, FLAC), video (MP4, MPEG, MOV, AVI, FLV, WebM, WMV, 3GPP), PDF
          and text; inline up to --inline-limit, larger files through the
          Files API (up to 2 GiB), waiting until Gemini has processed them,
          and deleted once the answer is in or the session interrupted (-v
          says so)
  openai  images (PNG, JPEG, WebP, GIF) and PDF (up to 100 pages), up to
          25 MiB per request; no audio, no video, no text files
A file's type is found from its content, not its name. A file the model
cannot take is refused before any request is sent (exit 2). Text goes as
UTF-8: UTF-16 and Latin-1 text is converted; text in another encoding
(Windows-1251, EUC-KR, Shift_JIS...) is refused, to be converted first
(iconv -f ENCODING -t UTF-8).
`
}

const recordsTopic = `Every tool call kesoku runs, and every turn of a session, is one Message
record: a JSON object on one line (JSON Lines), written in request order.

  {"id": "0192...", "session_id": "demo", "parent_id": "call_1",
   "role": "tool", "type": "tool_result", "status": "responded",
   "name": "calculate_sum", "content": 3, "args_hash": "ec78e3e171a69a1c",
   "position": 1, "created_at": "2026-11-30T03:04:29.658996712Z",
   "duration_ms": 0}

kesoku schema records prints the JSON Schema of the records, every field
and when it appears, versioned with kesoku: check what you read with it.

FIELDS
  id            a UUIDv7, so that ids sort by time
  session_id    the run's or session's (run --session, a file's session_id)
  parent_id     the message answered: for a tool_result, the request's id
  role          user, assistant or tool; eval on a verdict
  type          text, tool_call or tool_result; verdict, what an eval's
                run ends with (kesoku help eval-files); shard_end on the
                last line of a shard's file (kesoku help shards)
  status        responded; aborted when cut short; deferred when it waits
                for a person's answer (kesoku help permissions)
  name          the tool's name
  content       the tool's result as JSON; a text's text
  is_error      true on an error record, with
  error         {kind, message}: what went wrong, kind among those below
  args_hash     a hash of the arguments (16 hex digits), by which --resume
                knows the request again
  position      the request's place in the whole run, from 1 (run, batch
                collect): merge and --resume put records in request order
                by it, whatever the ids
  created_at    when the record was made (RFC 3339)
  duration_ms   how long the call ran
Where they apply:
  truncated     {bytes, saved_to}: the output was larger than --max-output,
                content holds its head and tail, saved_to the whole
  call_id       the provider's id of a tool call, on tool_call and
                tool_result records of a session
  model         the model that wrote an assistant record
  usage         {input_tokens, output_tokens, cache_read_tokens,
                cache_write_tokens}: what the model request cost
  cut           why a model turn was cut short (max_tokens, a refusal, a
                safety stop, no_stop_reason): its text is partial, its
                tool calls were not run
  provider_data what a provider needs echoed on the next turn
  model_call_id the id the model gave a tool call that kesoku replaced in
                call_id (a duplicate, or one the provider refuses)
  decided_by    what decided whether the call ran, when something did: a
                rule, a hook, the person asked, kesoku approve, --on-ask
  hook_feedback what the PostToolUse hooks said of a call's result, which
                a model reads with it (kesoku help permissions)
  approval      on a deferred record: approved or refused (kesoku approve)
  repeat        which run of an eval's case a verdict is (--repeat)
  cost_usd      what a verdict's case cost, where the model has a price
  trace_id, span_id
                the OpenTelemetry trace and span the record was made
                under, when traces are on (kesoku help traces)

ERROR KINDS
  invalid_request  the request is malformed: no name, a bad line, an id
                   given twice, an id whose record answered another request
  unknown_tool     no tool of that name (with "did you mean")
  invalid_args     missing, unknown or wrongly typed arguments, a value
                   outside an enum, a path outside the AWD
  tool_error       the tool ran and failed, or returned what a record
                   cannot hold: JSON nested more than 9,999 levels
  panic            the tool panicked; the record holds its message
  timeout          the call ran past --timeout (or the tool's own)
  aborted          the call was cut short or never started: an interrupt,
                   --fail-fast, a deferred call before it
  denied           a rule, a hook or a person asked did not let the call
                   run; decided_by says which
  deferred         the call waits for a person's answer: --on-ask defer
  budget           an eval's run not finished when the budget was spent

TRANSCRIPTS
A session's transcript (.kesoku/sessions/<session_id>.jsonl) is records too:
one per user prompt (user, text), model text (assistant, text), tool call
(assistant, tool_call) and tool result (tool, tool_result), each pointing by
parent_id to the message it answers. kesoku run replays its tool calls;
kesoku diff compares records (kesoku help snapshots).
`

const permissionsTopic = `Which calls a model may make is the user's to decide, in one place, for
every command that runs tool calls: run (a replayed transcript too),
session, eval and mcp serve. Rules come from the permissions: section of
the config files and from the flags --allow, --ask and --deny (each
repeatable, one rule each):

  permissions:
    allow: [read_file]
    ask: [write_file, "fs__*"]
    deny: ["write_file(path=.git/**)", "read_file(path=secrets/**)"]

A RULE is a tool's name or a glob of names (* any run of characters, ? one,
[abc] a class); an MCP server's tools are named SERVER__TOOL, so fs__* is
every tool of the server fs (Claude Code's spelling, mcp__fs__*, means the
same). Argument patterns in parentheses must all match: ARG=GLOB, where in
the glob * is any run of characters but /, ** any run at all (line breaks
too), ? one character but /. A string argument is matched as given and as a
path once cleaned (./docs/../x is x; an absolute path inside the AWD as the
path relative to it); any other value by its JSON text (n=4? matches 42).
Patterns match text: a symbolic link, or grep path=., reaches past
path=secrets/**. A rule whose tool, or whose argument, does not exist is
refused (exit 2), as is one that does not parse, with its place.

Of the rules that match a call, deny beats ask beats allow; a call no rule
matches runs, as it always did. The rules are checked after the call's
arguments are validated and before it runs.

  deny   the call never runs: its record is an error of kind denied,
         naming the rule (decided_by); in a session the model reads why
  ask    on a terminal kesoku asks: y runs it, n denies it, a runs it and
         every call the same rule asks about for the rest of the command
  allow  the call runs, and its record says which rule allowed it

With no terminal to ask at (CI, a pipe, mcp serve, eval) an ask never
waits and never runs the call. run and session take --on-ask:

  deny   (the default) the call is denied
  defer  the run or session stops at the call: its record has status
         deferred, what came after it waits (aborted), and kesoku exits
         with 5. kesoku approve FILE ID... approves the calls (--refuse
         refuses them), writing the answer on their records; then the
         same command with --resume (session: --resume TRANSCRIPT) runs
         each approved call exactly once, and records a refused one as
         denied. kesoku approve FILE lists what waits.

mcp serve and eval (and run to standard output) deny what the rules ask
about, and what a hook defers: there is nothing to resume.

HOOKS
A hook is a program run before each call (PreToolUse) or after it
(PostToolUse), declared as in Claude Code's settings, so that a hook
script written for Claude Code runs as it is:

  hooks:
    PreToolUse:
      - matcher: write_file|edit_file
        hooks:
          - type: command
            command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh'
            timeout: 30
    PostToolUse:
      - hooks: [{type: command, command: ./lint.sh}]

A matcher that is "", "*" or none matches every tool; names of letters,
digits, _ and - joined by | match those tools exactly; anything else is a
regular expression (Go's syntax) that matches anywhere in the name. An
MCP server's tool, SERVER__TOOL, is matched by Claude Code's name of it
too, mcp__SERVER__TOOL (tool_name is kesoku's). The command runs by
sh -c in the AWD, with the environment of every program kesoku starts
(kesoku help environment) and CLAUDE_PROJECT_DIR, the AWD. It reads one
JSON object on standard input: session_id, transcript_path (the records
file, or the session's transcript), cwd, hook_event_name, tool_name,
tool_input (the arguments), tool_use_id (the request's id), and after a
call tool_response (what it returned). Every hook that matches runs at
once; a command given twice runs once.

  exit 0   the call goes on; standard output may be JSON that decides it,
           {"hookSpecificOutput": {"permissionDecision": "deny",
           "permissionDecisionReason": "..."}} (allow, ask, deny or
           defer), or replaces its arguments ("updatedInput": {...},
           checked again by the tool's schema and by the rules)
  exit 2   blocks the call: a denied record, standard error the reason
  other    another status, a timeout (60 s unless timeout: says) or a
           program that cannot start is a hook error, told on standard
           error; the call goes on (a hook is a check: what must never
           run, deny with a rule)

The hooks decide after the rules and with them: deny beats defer beats ask
beats allow, so a hook's allow never runs what a rule denies or asks
about, and a hook's ask is asked, or settled by --on-ask, as a rule's is.
decided_by names the hook. After a call, what a PostToolUse hook says of
the result (standard error with exit 2, a reason with "decision": "block",
an "additionalContext") is kept on the record as hook_feedback, and a
model reads it with the result.

A kesoku.yaml found in the AWD that holds permissions: or hooks: is loaded
only once approved (kesoku help approval). An MCP server's annotations
(readOnlyHint, destructiveHint) are hints: they choose the tools a session
offers by default, never what a rule allows or denies. kesoku tools list
shows each tool's decision under the rules in force.
`

const requestsTopic = `kesoku run, validate and batch submit read request files. A FILE is YAML
(.yaml, .yml), JSON (.json) or JSON Lines (.jsonl, .ndjson); "-" is standard
input, whose format is sniffed unless --format says it. A YAML or JSON file
holds one request, a list of requests, or

  session_id: demo
  requests:
    - id: call_1
      name: calculate_sum
      args: {a: 1, b: 2}

and a JSON Lines file one request a line.

A REQUEST
A request has a name, args (or input, as in Claude's tool_use, or arguments,
as in OpenAI, where it may be a JSON-encoded string), and an id (call_N, N
its position in the run, where it has none). A Claude tool_use block or an
OpenAI tool call ({"id": ..., "type": "function", "function": {"name": ...,
"arguments": "..."}}) may be pasted in as it is.

So may Message records: one of type tool_call is a request (its name, its
content as the arguments, its call_id, or else its id, as the id), and
records of other types are passed over, so that a session transcript replays
its tool calls as it is; kesoku diff then compares the replay's results with
the transcript's.

READING
Every format is read a request at a time, so memory stays flat however long
the file is; a YAML or JSON file is checked whole before anything runs, its
requests kept meanwhile in a temporary file (removed at once, so that
nothing is left behind), from standard input too. A YAML or JSON file that
cannot be parsed stops everything before anything runs, with
file:line:column; in a JSON Lines file a bad line gets an invalid_request
record without stopping the rest. A file that holds no request at all
(empty, blank lines or comments only, an empty list) is a mistake: exit 2,
before anything runs. YAML alias bombs (aliases whose requests come to more
than 16 MiB of JSON plus 64 times the file's bytes), deep nesting and huge
lines are refused. Read from a terminal, kesoku says that it waits for
requests, until Ctrl-D.

CHECKS
Each request is checked against its tool's parameters before it runs: an
unknown tool, missing, unknown or wrongly typed arguments and values outside
an enum each get an error record saying what was expected and what came,
with "did you mean". An id given twice is a duplicate; its second request
gets an invalid_request record. kesoku validate makes the same checks and
runs nothing.
`

const resumeTopic = `INTERRUPTING A RUN
Ctrl-C (SIGINT) or SIGTERM stops kesoku run: no more requests are read,
those read but not started are recorded as aborted at once, calls in flight
are cancelled and get --grace (5s) to return, and a second signal ends the
grace. Every request read still has its record, and the exit status is 130.
A run still not done 3s after the second signal (its -o a FIFO nobody
reads, say) stops there, with 130: --resume finishes what it did not write.
--fail-fast stops a run the same way after its first error record.

RESUMING
Run the same command with --resume to finish the rest: requests whose id
already has a finished record of the same request (tool and arguments, known
by args_hash) in the -o file are skipped, and new records are appended, in
the earlier run's session unless --session says otherwise. A request whose
id's record answered another request (the file changed, and ids given by
position moved) gets an invalid_request record instead: it neither runs nor
is skipped. The exit status then describes the whole file: error records of
the earlier run count as much as new ones.

  kesoku run batch.jsonl --jobs 8 -o results.jsonl
  kesoku run batch.jsonl --jobs 8 -o results.jsonl --resume

Once a resumed run has read every request, the file is rewritten beside
itself and renamed into place under its lock (a kill at any moment leaves
the old file or the new one) to hold one record per request in request
order, as a run never interrupted would have written it: the records it
replaced (aborted ones, those of requests run again) are gone, and so are
those of requests no longer in the files, which the summary says. So jq
'select(.is_error)' results.jsonl lists the requests that failed, and
nothing else. A run interrupted again leaves its records after the
earlier ones, for the next --resume; a file that holds records a tool
wrote itself is left as it is.

SESSIONS
In an interactive session Ctrl-C interrupts the turn in progress (the model
request is cancelled, tool calls not started are aborted and recorded) and
Ctrl-D ends the session; outside it, Ctrl-C ends the session (exit 130) with
a valid transcript. session --resume FILE continues a session from its
transcript; a tool call left without a result (a kill, a crash) is answered
with an aborted result first. New records are appended to the transcript
(or, with -o, to a copy of it).

  kesoku session --resume .kesoku/sessions/0192....jsonl "go on" \
    --model gemini-2.5-flash

BATCHES
An interrupted batch submit is finished by the same command, and an
interrupted batch collect -o FILE too: requests that have a finished record
in FILE get none again (kesoku help batches).

EVALS
An interrupted kesoku eval -o FILE wrote nothing of the cases it cut:
kesoku eval --resume -o FILE runs them, and every run whose verdict the
budget cut, again whole, and no run with another verdict (kesoku help
eval-files).

SHARDS
Each shard of a run resumes with --resume on its own -o file; kesoku merge
puts a resumed shard's finished record in the place of its aborted one
(kesoku help shards).
`

const safetyTopic = `CONFINEMENT
Paths a model supplies to a tool are confined to the agent working directory
(--awd, default the current directory) and staging (--staging, default
.kesoku/staging in the AWD) through os.Root: "..", absolute paths elsewhere
and symbolic links that lead out are refused as invalid_args. Staging is
read-only to tools. Only regular files are written, never a FIFO. A path
given on kesoku's own command line (kesoku analyze PATH, a request FILE) is
taken as given, relative to the current directory: only what a model
supplies is confined.

KESOKU'S OWN FILES
Tools never write kesoku's own files, under any name: .kesoku/ in the AWD,
the config files, the user's config directory with its approvals, the file
run -o (or eval -o, mcp serve -o) writes, a --junit report, a --cassette
(eval's directory of them), the files --mcp-config names, and a session's
transcript. They may read them.

WHAT A FOUND CONFIG MAY DO
A kesoku.yaml that comes with a directory may set defaults, but not where
records, model requests and keys go, what models cost, which calls run, nor
which programs start, until it is approved: see kesoku help approval.

WHAT A MODEL MAY CALL
session, eval and mcp serve offer only the tools that only read unless
--tools (an eval case's tools:) names others: the built-in tools that do
not write (kesoku tools list --json says "writes"), command tools declared
read_only, and the tools of MCP servers whose annotations say readOnlyHint
(every server starts, to say which). Tools that write, such as write_file,
are offered only when named (an MCP tool as <server>__<tool>): --tools
NAME,... offers the tools named instead of those that only read, --tools
+write_file adds one to them, and -NAME takes one away
(+write_file,-analyze_media). A name that is no tool, or a list that mixes
plain names with +NAME or -NAME, is refused: nothing is offered. A call to
a tool that was not offered is answered with an unknown_tool error; it
never runs. Every call is checked against the tool's schema before it runs,
then against the rules of which calls run (--allow, --ask, --deny,
permissions:): see kesoku help permissions.

PROGRAMS
A command tool's program gets its arguments as separate words (no shell), on
standard input as JSON, and in KESOKU_ARG_ variables; it runs in the AWD. Of
kesoku's environment it gets only what any program needs (PATH, HOME, the
locale...) and what its entry's env: names: no key or token of kesoku's, as
a stdio MCP server (kesoku help environment). A value that begins with - in
an argument of its own is an option to most programs: positional_only
refuses it (kesoku help config). When its call ends early (a timeout, an
interrupt, an MCP client cancelling it), the program and all it started get
SIGTERM, then SIGKILL after --grace; on Linux a child that left its process
group, even with its environment cleared, is found and stopped too; should
kesoku itself be killed outright, a guardian process stops what it left
running.

KEYS AND THE NETWORK
An API key comes only from the environment and is sent only to its
provider's endpoint (or the --base-url given). Should a provider, a proxy, a
server or a tool echo a secret kesoku holds (any provider's key, not only
the model's; an MCP server's header values, a key in its URL, its OAuth
tokens; mcp serve's token), it is replaced by [redacted] in whatever comes
back before it is written or sent on: a record, a transcript, the terminal,
an error, a tool's description, and the next request to the model. A batch's
state file never holds a key. kesoku mcp serve listens on the loopback
address unless told otherwise, and then only with a bearer token (kesoku
help mcp-server).

THE TERMINAL
What kesoku prints as its own prose has the text from outside in it escaped:
errors and warnings (which quote config values and what servers said), -v
notes, tools list's table, diff's and validate's lines, session's tool-call
lines and what trust shows; and a model's answer (session, analyze) and a
batch's status, its line breaks and tabs kept. Control characters,
bidirectional overrides and bytes that are not UTF-8 are written as Go
escapes (\x1b, \u202e, \xff), once, so that they neither move the cursor nor
forge a line of kesoku's own. Records and --json keep the text as it came.
`

// shardsTopic is about --shard; its bounds are request's.
func shardsTopic() string {
	return `A batch too big for one machine spreads over machines kesoku needs no
scheduler for (a CI matrix, a Kubernetes Indexed Job, GNU parallel): each of
N runs the same command with its own --shard K/N, and kesoku merge joins
their outputs back in request order.

  kesoku run batch.jsonl --shard 1/4 --session nightly -o part-1.jsonl
  kesoku run batch.jsonl --shard 2/4 --session nightly -o part-2.jsonl
  ...
  kesoku merge part-1.jsonl part-2.jsonl part-3.jsonl part-4.jsonl \
    -o results.jsonl

SHARDING
` + fill("Shard K runs the requests at positions p of the whole run with (p-1) mod N = K-1, read as a stream ("+shardBounds+").") + `
Ids, duplicates and records are the whole run's (a request without an id is
call_P, P its position in the whole run), so that the N shards' outputs hold
one record per request between them: give them one --session. Each shard
resumes with --resume on its own -o file (another shard's finished file is
refused, exit 2); a shard with nothing to do exits 0. kesoku validate
--shard K/N checks only the requests that shard would run, numbered as in
the whole run.

MERGING
merge joins the records files of the N shards of one run, in any order
(part-*.jsonl will do), into the file the whole run would have written: one
record per request, in request order, each line as its shard wrote it.
Shard K holds the requests at positions K, K+N, K+2N, ..., so the whole
run's order is the shards' records taken in turn, which cat and jq cannot
do. merge puts each record in its place by the position its shard wrote,
never by a number read out of an id (a request's own id may be call_2 at
position 1). A shard resumed with --resume may hold an aborted or failed
record of a request and, later, the one of its run again: the later one
takes its place. A request answered with success twice is refused: no run
writes that (a part joined with itself, say).

A shard that wrote the record of every request of its share ends its file
with one more line, of type shard_end, whose content says which shard of
how many it was and how many requests the whole run has:
  {"type":"shard_end", "content":{"shard":2,"shards":4,"requests":1000}, ...}
An eval's shard says more: how many cases the whole eval has, and its
cases files with the position of each one's first run ("cases", "files"),
by which merge names the testcases of its report as the eval does, and
its --threshold ("threshold"), by which merge exits as the eval does.
An interrupted shard writes none; resumed, it ends with one. jq
'select(.type == "tool_result")' leaves it out.

Parts that cannot be the N shards of one run are refused (exit 2), saying
which part and why: a part whose last line is cut short (its run was killed
mid-write), a part that does not end with its shard_end line (unfinished:
--resume it; or it lost its last lines), a part that lacks a record of a
request of its shard although it ends (it lost records), two parts of one
shard, a part missing (merge part-1 part-2 part-4 says shard 3 of 4 is not
given), parts whose ends disagree on the run, records without a position
(not written by kesoku run). A part of another run of as many requests is
not told apart: give the shards one --session, and each record says its
run.

EVALS
kesoku eval --shard K/N runs the runs (a case and a repeat) at positions K,
K+N, ... of the whole eval, and merge joins its parts as it joins run's:
each run's records (its transcript, then its verdict) placed by the
verdict's position, a verdict the budget cut replaced by a later one of its
position, the same parts refused. A part of run's and one of eval's are
never joined.
`
}

const snapshotsTopic = `kesoku diff compares the records of two runs, request by request: snapshot
tests for tools. Run the tests once into a golden file, then compare every
later run with it:

  kesoku run tests.yaml -o golden.jsonl      # once
  kesoku run tests.yaml -o new.jsonl && kesoku diff golden.jsonl new.jsonl

(run exits 1 when a request fails: where the golden file holds errors on
purpose, join the two with ";" rather than "&&".)

PAIRING
The tool_result records of the two files are paired by the request they
answer: their parent_id, the request's id. A tool_result of a session
transcript is paired by its call_id, the id that run gives the call when it
replays the transcript, so a transcript compares with its replay. Other
records (text, tool_call) and records that name no request are skipped; a
file whose lines hold no Message record at all (a request file given by
mistake) is refused; a last line cut short (a run killed while it wrote) is
left out, saying so. Where a file holds several records of one request, an
aborted record gives way to a later one (run --resume appends it); other
repeats (an id given twice, whose second record is an invalid_request) are
paired in turn, the second of OLD with the second of NEW. A request that has
a record in one file only is a difference.

WHAT IS COMPARED
The tool's name, the status, whether there is an error and its kind, and the
content, by value: the order of keys, white space, the escapes of a string
and the way a number is written (1, 1.0, 1e0) do not matter; arrays are
compared element by element, by position. Never the id, session_id,
created_at, duration_ms or the other fields that differ from run to run;
nor, unless --messages, the error's message, which holds temporary paths,
durations and other programs' wording while its kind says what happened.
--ignore PATH leaves out a place and everything under it, as jq writes
places: .content.modified, .content.files[].mtime ([] is every element of an
array, or every value of an object), .content.rows[0], .error.kind, .status,
.content (the whole result), .content["a key"].

OUTPUT
Each difference is one line on standard output, in the order found, which is
request order when both files are in it:

  call_2 (read_file): .content.lines[3]: "foo" -> "bar"
  call_4 (calculate_sum): .error: (absent) -> {"kind":"tool_error",...}
  call_5 (sleep): only in golden.jsonl

A summary line follows on standard error (not with -q): "kesoku: 3 of 120
requests differ: 1 changed, 1 new error, 1 only in golden.jsonl".

Values are compact JSON, "(absent)" where the place does not exist; values
longer than 160 bytes are cut in the middle, and a request shows at most 20
places (--json has them all). --json prints one JSON object a line instead,
each place that differs or request in one file only:

  {"request": "call_2", "name": "read_file", "change": "changed",
   "path": ".content.lines[3]", "old": "foo", "new": "bar",
   "old_line": 2, "new_line": 2}
  {"request": "call_5", "name": "sleep", "change": "only_old", "old_line": 5}

change is changed, new_error (OLD succeeded, NEW is an error), fixed (the
other way), only_old or only_new; old or new is left out where the place
does not exist on that side (null is a value).

MEMORY
Both files are read at once, a record of each in turn, and a record is kept
only until its partner is read: two runs of one request file, which are in
request order, compare in flat memory however long they are. Files in other
orders hold the records read ahead of their partners, at most those of the
smaller file (and aborted records, until the file ends or a resumed run's
record replaces them). Values are compared on the records' own text, never
decoded: each record is held once, as its line, and two files of one
50 MiB record each take about 100 MiB however many places differ.

A call whose arguments were not a JSON object (small models send such) was
not run by its session, which answered it with an invalid_args record; its
replay refuses it by the same rule, so a transcript compares equal with its
replay.
`

const batchesTopic = `kesoku batch sends the analyze_media requests of a file to a provider's
batch API (Claude's Message Batches, Gemini's Batch Mode), which answers
within 24 hours at half the price of the same requests sent one by one (the
providers' own figure for their batch APIs), and writes the answers as the
records kesoku run --model would have written.

  state=$(kesoku batch submit photos.yaml --model gemini-2.5-flash -q)
  kesoku batch status "$state"
  kesoku batch collect "$state" --wait -o descriptions.jsonl

THE STATE FILE
A state file (.kesoku/batches/ID.json, or submit's -o) names everything
status and collect need: the provider, the model, the request file and the
provider's batches. It never holds a key: status and collect read the
provider and model from it and the key from the environment, as submit does,
and take the same --base-url. A request file read from standard input is
kept under .kesoku/batches for collect.

PARTS AND LIMITS
Every request must be an analyze_media request that kesoku run would run: a
request of another tool, a malformed or duplicate one, or a file the model
cannot take (its type, its size) is refused before anything is sent, each
with its position, and nothing is sent. Paths are found as run finds them:
relative to the working directory (--awd), then to staging. Each request is
built as analyze_media builds it (the same file checks, the same blocks),
and keyed by its position in FILE (r1, r2, ...), never by its id. Requests
go in as many parts as the provider's limits ask: Claude takes 100,000
requests or 256 MB a batch and every file inline; Gemini takes 20 MB of
requests inline, and more as a JSON Lines file through its Files API (up to
2 GB a batch), where files larger than --inline-limit go too.

SUBMITTING AGAIN
The state file is written as each part is accepted: an interrupted submit is
finished by the same command, which goes on after the last part sent (a part
being sent when the interrupt came is sent to the end first; a second
interrupt abandons it). A part whose answer never came (submit killed, or
cut off, while the provider created it) may exist at the provider: the next
submit asks Gemini for it by its name and takes it as sent; Claude names no
batches, so it is sent again, saying so (cancel one in Claude's console).
The same command after a finished submit sends nothing again and prints the
state file.

WAITING AND COLLECTING
Claude ends a batch after 24 hours; requests not done by then expire. Gemini
gives a batch no end of its own, but deletes the files uploaded for it
(media, the input file of a large part) 48 hours after their upload: status
says when, for a part still in progress; its requests cannot run after.
collect writes one record per request, in request order: the answer as
content, or an error record (tool_error) with the provider's reason for a
request it errored on, cancelled, or did not reach before its batch expired.
Records go to standard output or are appended to the -o file, where requests
that have a finished record already get none. A part still in progress stops
collect after the records before it, unless --wait, which looks again after
a wait that starts at 5s and grows to --poll. Once every request has its
record, the files kesoku uploaded for the batch (Gemini's input file and
media) are deleted.
`

// topicWidth is the width the topics' prose is filled to: some room
// under helpWidth, as a page has margins.
const topicWidth = 76

// fill fills a paragraph of prose that is written from parts to
// topicWidth, ending with a newline.
func fill(s string) string { return strings.TrimSuffix(wrapText(s, topicWidth), "\n") }

// modelFlagsHelp is the help of the flags every command that talks to a
// model has, as their --help would show them.
func modelFlagsHelp() string {
	fs := pflag.NewFlagSet("model", pflag.ContinueOnError)
	var m provider.Config
	limit := sizeValue(media.DefaultInlineLimit)
	registerToolModelFlags(fs, &m, &limit)
	return flagUsages(fs, helpWidth)
}

// ciTopic is how kesoku reports to a CI system.
const ciTopic = `kesoku in CI: JUnit reports, summaries as JSON, the records' schema.

JUNIT REPORTS
run, diff, merge and eval take --junit FILE: a JUnit XML report beside
their usual output, which the test reporters of GitHub Actions, GitLab CI
and Jenkins read. One testsuite under one testsuites; one testcase per
request, named by its id and tool ("call_2 (read_file)"), or per run of an
eval's case.

  run    classname: the request file. A failure for every error record,
         of type the error kind (invalid_args, tool_error, timeout...), its
         message on one line, the whole text in the failure's body; an
         aborted record is skipped. The testcase's time is the call's.
  diff   classname: the two files. A request the same in both passes; one
         that differs has a failure for each place (type changed,
         new_error or fixed; the path, old and new value), or for being in
         one file only (only_old, only_new); 20 at most, the rest counted.
  merge  the report of the merged records, as they are written: it says
         what the merged file holds, whatever report each shard left (none,
         or an earlier attempt's), so the shards need no --junit. Merged
         eval shards make the report the whole eval makes: a testcase per
         verdict, named and classed as eval --junit names them.
  eval   classname: the eval file. A testcase per run, named by the case's
         id ("add", with --repeat "add #2"); a failure for each check that
         failed, with what it wanted and got; a run the budget cut is
         skipped.

The testsuite carries tests, failures, errors (always 0: every error record
is a failure), skipped and time. The report is written whole when the
command ends, renamed into place: an interrupted run's report holds what it
recorded, its aborted requests skipped; a run resumed with --resume that
finishes reports every request of its -o file, those finished earlier too.
A run refused before it starts writes none, and a --junit FILE that is the
-o file or an input is refused.

SUMMARIES AS JSON
--summary json (run, diff, merge, validate, eval, batch status and
collect) says the closing summary as one JSON object on standard error
instead of a sentence, -q or not; the exit status is the same. Every count
is there, zeros included:

  {"command":"run","total":3,"records":3,"succeeded":2,"failed":1,
   "aborted":0,"skipped":0,"errors":{"invalid_args":1}}
  {"command":"diff","total":9,"same":6,"different":3,"changed":1,
   "new_errors":1,"fixed":0,"only_old":1,"only_new":0,...}

total counts the requests; errors counts the error records by kind; skipped
those a resumed run found finished. A run that was interrupted says
"interrupted": true. validate, which runs nothing, counts requests checked:
{"command":"validate","total":3,"valid":2,"failed":1,"files":1,
"unreadable_files":0,"errors":{"invalid_args":1}}; "cases", there only when
eval files were given, says how many of the total are their cases. eval
counts cases and runs, with the pass rates and usage:
{"command":"eval","cases":3,"runs":3,"passed":2,"failed":1,...} (kesoku
help eval-files).

VALIDATE'S DOCUMENT
kesoku validate --json prints one JSON document on standard output, and
nothing on standard error:

  {"valid": false, "requests": 8, "invalid": 1,
   "files": [{"name": "a.yaml", "requests": 8},
             {"name": "b.yaml", "requests": 0,
              "error": {"file": "b.yaml", "line": 2, "column": 9,
                        "message": "invalid YAML: ..."}}],
   "problems": [{"file": "a.yaml", "line": 5, "column": 3, "id": "call_2",
                 "kind": "unknown_tool", "message": "unknown tool ..."}]}

valid is true when every request is valid and every file was read; line
and column are left out where there is no place. An eval file's entry has
"kind": "eval" and its "cases", counted in "cases" beside "requests".

THE RECORDS' SCHEMA
kesoku schema records prints the JSON Schema (draft 2020-12) of the records
every command writes; its $id names the kesoku version, so that a consumer
can check what it reads.

PUBLISHING THE REPORT
GitHub Actions (a test reporter action, e.g. dorny/test-reporter):

  - run: kesoku diff golden.jsonl new.jsonl --junit report.xml
  - uses: dorny/test-reporter@v1
    if: ${{ !cancelled() }}
    with: {name: snapshots, path: report.xml, reporter: java-junit}

GitLab CI:

  snapshots:
    script: kesoku diff golden.jsonl new.jsonl --junit report.xml
    artifacts:
      when: always
      reports: {junit: report.xml}

Jenkins: junit 'report.xml'.`
