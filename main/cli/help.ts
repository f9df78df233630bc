/** The CLI's help texts, one per command; `promptforge help COMMAND` and `COMMAND --help` print them. */
import { MINIMAL_TEST_FILE } from '../../common/test-example.js';

/** `text` with each line indented by two spaces, as an example in a help text. */
function indented(text: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

const EXIT_CODES = `Exit codes: 0 success, 1 script error, 2 usage or catalog error, 3 limit exceeded or stopped
(Ctrl-C, or stdout/stderr closed), 4 workspace not trusted (nothing ran; promptforge trust says what it would run),
5 a call was denied (run --fail-on-deny only).`;

const TOP = `Usage: promptforge COMMAND [options]

Commands:
  run FILE.lua [options]     run an agent script headless
  test [PATH...]             run the workspace's agent tests (every .yaml under tests/) and report
  rules list|add|rm|test     your approval rules: allow, ask or deny calls, kept outside every workspace
  trust [DIR]                read what a workspace would run, and trust it (or --show, --revoke)
  keys set NAME              store a key in the OS keychain (read from stdin)
  keys status                which keys are set (never prints a key)
  keys delete NAME           remove a key from the OS keychain
  mcp list                   the workspace's MCP servers, their status, sign-in and tools
  mcp login NAME             sign in to a Streamable HTTP MCP server (OAuth; prints the URL)
  mcp logout NAME            forget that sign-in (its tokens leave the keychain)
  help [COMMAND]             this text, or one command's help (e.g. promptforge help run)

Options:
  -h, --help                 show help; after a command, that command's help
  -v, --version              print the version

${EXIT_CODES}`;

const RUN = `Usage: promptforge run FILE.lua [options]

Runs an agent script headless: log() lines go to stdout, errors to stderr.

Options:
  --workspace DIR        workspace folder (default: the nearest folder upward from the script,
                         then from the current directory, that holds a catalog)
  --model ALIAS          model alias from models.yaml
  --base-url URL         one-off OpenAI-compatible endpoint, with --model-id; its key is the
                         keychain entry "openai-compatible" or OPENAI_API_KEY, if any
  --model-id ID          the model at --base-url
  --input TEXT           the message the script receives as ... (local message = ...); @FILE
                         reads it from a file, @@ starts a text with @ (a replay gives the
                         recorded one)
  --approve MODE         ask | auto | deny: who answers the calls that still ask once your
                         approval rules, the tools' policies and the taint rule have had their
                         say (default: ask on a terminal, deny otherwise)
  --fail-on-deny         exit 5 when any call was denied, even if the script went on
  --replay TRANSCRIPT    answer models.chat and tools.call from a recording, offline
  --fork-at STEP         with --replay: a fork, answered from the recording up to STEP (the seq
                         of a round-response or tool-output event), then live with --model (or
                         --base-url), else on replay while the recording still matches
  --edit-output TEXT     at a tool STEP: the output the tool returns instead
  --edit-reply TEXT      at a model STEP: the reply text instead
  --edit-calls JSON      at a model STEP: the requested calls instead, e.g.
                         '[{"name":"echo","arguments":{"text":"hi"}}]' (@FILE reads any edit
                         from a file; @@ starts a text with @)
  --force                fork even though the script changed since the recording
  --transcript OUT       write the transcript here (default: <workspace>/runs/<run id>.jsonl)
  --json                 print every run event as a JSON line on stdout
  --cpu-limit SECONDS    Lua compute budget (default 30)
  --memory-limit MIB     Lua heap cap (default 256)
  --timeout SECONDS      wall-clock limit (default none on a terminal, 30 minutes without one)
  --max-run-tokens N     spending cap: the round that brings the run to N tokens ends it (status limit)
  --max-run-cost USD     spending cap in US dollars, at models.yaml's price or the price table's
  --restricted           run without trusting the workspace: no command tools, MCP servers or
                         secrets, keys only to their providers (or origins you approved), and
                         every call asks
  -h, --help             this text

A workspace that is not trusted is shown (what it would run, where keys would go) and asked
about on a terminal; without one the run exits 4 and says how to trust it (promptforge trust).
A replay runs nothing of the workspace and never asks.

${EXIT_CODES}`;

const TEST = `Usage: promptforge test [PATH...] [options]

Runs the cases of the workspace's test files (every .yaml under tests/, or the files and folders
given; the workspace's own folder means its tests/), in parallel on the Lua worker pool, and reports which passed. A case names an agent, its input, the
model that answers (scripted replies written in the case, a recording, a models.yaml alias or a
test environment's model), the approval policy, and what it expects: the tools called (with which
arguments, in which order, how often), the tools not called, approvals and taint, the trust of
outputs, the final reply, the status and error, limits on rounds, tokens and cost.

A minimal test file, tests/echo.yaml, for the example workspace's agents/echo-loop.lua (a tool
loop that offers the model an echo tool):

${indented(MINIMAL_TEST_FILE)}

The full format (every assertion, approvals, recordings, live models, test environments, limits)
is in docs/testing.md, with a worked example.

Every case's run is recorded as runs/tests/SUITE-RUN/FILE/CASE.jsonl, with report.json beside
them; replay or fork one with promptforge run AGENT --replay TRANSCRIPT [--fork-at STEP].
These runs stay out of the studio's History list.

Options:
  --workspace DIR        the workspace folder (default: upward from the first PATH, then from
                         the current directory)
  --filter TEXT          only cases whose file, name or id contains TEXT (any case)
  --model A,B,...        run every case against each of these models.yaml aliases instead of its
                         own, and print a table of pass rate, tokens, cost and latency per model
  --jobs N               cases run at once (default: the number of CPUs)
  --json                 print the report as JSON on stdout
  --junit FILE           also write a JUnit XML report to FILE (Jenkins, GitLab and other CI read it)
  --update               write the expectations that failing cases' runs suggest (status, calls
                         with their arguments, final reply) into their test files; every change
                         is printed as a diff
  -h, --help             this text

A workspace that is not trusted is shown and asked about on a terminal, as run does; without
one the command exits 4 and runs nothing. Cases never run restricted.

Exit codes: 0 every case passed, 1 a case failed or could not run, 2 usage error or a test file
with errors (each is printed as file:line:column with the field and the fix; nothing ran),
3 interrupted (Ctrl-C: running cases are stopped and the partial report is still written),
4 workspace not trusted (nothing ran).`;

const TRUST = `Usage: promptforge trust [DIR] [options]

Shows what the workspace (DIR, --workspace DIR, or the one found upward) would run and where its
keys and secrets would go, then asks whether you trust it. Trust is kept in your config folder
(never in the workspace) for the folder's real path and exactly what was shown: any change to
what it runs makes it restricted again. Nothing is read from a pipe or the environment.

Options:
  --workspace DIR              the workspace folder
  --yes                        trust without asking, for CI scripts: this flag is your decision
  --revoke                     stop trusting the workspace
  --show                       list trusted workspaces and approved key origins
  --allow-key PROVIDER ORIGIN  let PROVIDER's key go to ORIGIN (asks on a terminal, or --yes)
  --revoke-key PROVIDER ORIGIN withdraw that
  -h, --help                   this text

${EXIT_CODES}`;

const KEYS_SET = `Usage: promptforge keys set NAME [--workspace DIR]

Stores a key in the OS keychain. The key is read from stdin (a hidden prompt on a terminal),
never from the command line. NAME is a provider id (promptforge keys status lists them) or a
secret that an http tool's headers name in the workspace's tools.yaml.

Options:
  --workspace DIR        where to look for tools.yaml (default: upward from the current directory)
  -h, --help             this text`;

const KEYS_STATUS = `Usage: promptforge keys status [--workspace DIR]

Lists each provider (and each secret the workspace's http tools name) as set or not set in the
OS keychain, and whether its environment variable is set. Never prints a key.

Options:
  --workspace DIR        where to look for tools.yaml (default: upward from the current directory)
  -h, --help             this text`;

const KEYS_DELETE = `Usage: promptforge keys delete NAME [--workspace DIR]

Removes a key from the OS keychain. NAME is as for keys set.

Options:
  --workspace DIR        where to look for tools.yaml (default: upward from the current directory)
  -h, --help             this text`;

const KEYS = `Usage: promptforge keys set|status|delete ...

  keys set NAME          store a key in the OS keychain (read from stdin)
  keys status            which keys are set (never prints a key)
  keys delete NAME       remove a key from the OS keychain

Run \`promptforge keys set --help\` (or status, delete) for each one's options.`;

const MCP_LIST = `Usage: promptforge mcp list [--workspace DIR]

Starts each MCP server of the workspace's tools.yaml (kind: mcp), prints its status (ready, or
the error with the end of its stderr), its sign-in (Streamable HTTP servers) and its tools as
aliases, then stops every server. Exits 1 when a server is not ready. Servers start only in a
trusted workspace: a restricted one is shown and asked about on a terminal, as run does;
without one it exits 4.

Options:
  --workspace DIR        the workspace folder (default: upward from the current directory)
  -h, --help             this text`;

const RULES = `Usage: promptforge rules list|add|rm|enable|disable|test ...

Your approval rules: made by you, kept in your config folder (PROMPTFORGE_CONFIG_DIR, or the
studio's), never in a workspace. A rules file inside a workspace is ignored.

  rules list [--workspace DIR] [--json]
      every rule in plain words, when it last decided a call, and rules for tools this workspace
      does not have
  rules add allow|ask|deny TARGET [options]
      TARGET: --tool ALIAS | --tools GLOB | --server-command "CMD ARGS..." | --server-url URL
      --workspace DIR | --all-workspaces   where it applies (default: the workspace found here)
      --when /to=ana@example.com           a condition: the argument equals this text; or JSON:
      --when '{"pointer":"/url","urlHost":["example.com"]}'  (equals, oneOf, glob, pattern,
                                           inFolder, urlHost); repeat for more (all must hold)
      --sink POINTER                       this argument asks on any untrusted text
      --tolerant POINTER                   taint in this argument does not force approval
      --allow-tainted POINTER              (allow rules) let this sink through even when tainted
      --id ID, --note TEXT
      An allow rule for a --tool of this workspace is confirmed on the tool's definition as it is
      now; a rule by glob or server (or for a tool not yet seen) asks once per new definition.
  rules rm ID | rules enable ID | rules disable ID
  rules test ALIAS [--args JSON] [--workspace DIR] [--json]
      which rule would decide this call and why: every rule that covers it, each condition that
      held or not, in the order deny > ask > allow (file order within each)

Order for every call: deny rules > ask rules > allow rules (a tainted sink, or taint outside
tolerant arguments, makes an allow ask) > the tool's policy (tools.yaml, trusted workspace only)
> the taint rule > the approver (you, or --approve auto|deny).

${EXIT_CODES}`;

const MCP_LOGIN = `Usage: promptforge mcp login NAME [--scope SCOPES] [--workspace DIR]

Signs in to the Streamable HTTP MCP server NAME of tools.yaml with OAuth 2.1: discovers its
authorization server, registers (or uses the entry's oauth.clientId), prints the authorization
URL on stderr for you to open (it is never opened for you), and waits on a loopback port for the
browser to come back. The tokens go to the OS keychain, kept by the server's URL and the
authorization server, and are sent to that server's origin only. Exits 0 when signed in, 1 when
the sign-in failed (the message says why), 3 on Ctrl-C, 4 in a workspace that is not trusted.

Options:
  --scope SCOPES         the scopes to ask for (space or comma separated; default: the entry's
                         oauth.scopes, else what the server names)
  --workspace DIR        the workspace folder (default: upward from the current directory)
  -h, --help             this text`;

const MCP_LOGOUT = `Usage: promptforge mcp logout NAME [--workspace DIR]

Forgets the sign-in to the MCP server NAME: its tokens and client registration leave the OS
keychain. Nothing is sent to the server.

Options:
  --workspace DIR        the workspace folder (default: upward from the current directory)
  -h, --help             this text`;

const MCP = `Usage: promptforge mcp list|login|logout ...

  mcp list               the workspace's MCP servers: status, sign-in and tools
  mcp login NAME         sign in to a Streamable HTTP server (OAuth)
  mcp logout NAME        forget that sign-in

Run \`promptforge mcp login --help\` (or list, logout) for each one's options.`;

const TOPICS: Record<string, string> = {
  rules: RULES,
  mcp: MCP,
  'mcp list': MCP_LIST,
  'mcp login': MCP_LOGIN,
  'mcp logout': MCP_LOGOUT,
  '': TOP,
  run: RUN,
  test: TEST,
  trust: TRUST,
  keys: KEYS,
  'keys set': KEYS_SET,
  'keys status': KEYS_STATUS,
  'keys delete': KEYS_DELETE,
};

/** The help for `topic` (e.g. `[]`, `['run']`, `['keys', 'set']`), or undefined if there is none. */
export function helpFor(topic: readonly string[]): string | undefined {
  const key = topic.join(' ');
  return Object.hasOwn(TOPICS, key) ? TOPICS[key] : undefined;
}

/** Whether `args` ask for help (`-h` or `--help` before any `--`). */
export function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}
