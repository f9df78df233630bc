/** Every code a contract call may fail with, each with its meaning: the one list of them. */

/** Each code and what it means; the renderer may act on a code (offer a trust review, fork anyway). */
export const CONTRACT_ERROR_CODES = {
  // From the dispatcher and the IPC glue, for any method.
  'unknown-method': 'the method is not in the contract',
  'invalid-payload': 'the request does not match the method’s schema (the message names each field)',
  'invalid-response': 'the handler’s value does not match the method’s response schema',
  'forbidden-sender': 'the call came from a frame that is not the studio’s own page',
  'internal-error': 'the handler failed unexpectedly (logged); nothing a person can fix here',
  'no-person-input': 'a dialog or approval was asked for without a person’s own key press or click',

  // The workspace and its files.
  'no-workspace': 'no workspace is open',
  'not-chosen': 'the folder is not one the person chose in this session (or it changed since)',
  'workspace-restricted': 'the workspace is not trusted, so it runs nothing yet',
  'trust-changed': 'what the trust review showed changed before the person answered: review it again',
  'outside-workspace': 'the path leads outside the workspace',
  'not-found': 'the file, rule, server, question or call named is not there',
  'not-a-folder': 'a path that must be a folder is a file',
  'not-a-script': 'the file is not a Lua script of the workspace',
  'invalid-name': 'a new file’s name (an agent, a test file) that cannot be a file name',
  'name-taken': 'the new name is already in use',
  'agent-running': 'the agent is running, so it cannot be renamed or deleted now',
  'too-large': 'the file is larger than the studio reads or writes',
  'catalog-invalid': 'the workspace catalog has errors, so the change cannot be made',
  'config-unreadable': 'a file in the config folder cannot be read',
  'config-unwritable': 'a file in the config folder cannot be written',
  'export-failed': 'the transcript could not be exported where asked',

  // Runs, recordings and forks.
  'run-not-found': 'no run with that id (or its transcript vanished)',
  'run-setup': 'the run could not start: the message says what to fix',
  'too-many-runs': 'the most runs the studio runs at once are already running',
  'transcript-unreadable': 'a transcript is not valid (the message names its line)',
  'fork-past-end': 'the fork’s step is past the end of the recording',
  'fork-not-a-step': 'the fork names an event that is not a model round or a tool call’s outcome',
  'fork-bad-edit': 'the fork’s edit does not fit the step',
  'script-changed': 'the script changed since the run was recorded (the renderer offers to fork anyway)',
  'unknown-model': 'the model alias is not one of the workspace’s models',
  'unknown-tool': 'the tool alias is not in the catalog',
  'invalid-arguments': 'the tool’s arguments do not match its schema',

  // Approvals, rules and the person's questions.
  'approval-rejected': 'the approval answer does not fit the call it answers',
  'invalid-rule': 'the rule cannot be saved as written',
  'rules-changed': 'the rules file changed since it was read: read it again',
  'rules-file-broken': 'the rules file cannot be read, so nothing in it is changed',
  'person-busy': 'another dialog is already open',
  'not-supported': 'this host cannot do that (no dialog, no browser)',
  cancelled: 'the person cancelled',
  'invalid-answer': 'the answer does not fit the question',
  'open-failed': 'the URL was not opened',
  'invalid-uri': 'the resource URI is not valid',

  // Keys, MCP servers and tests.
  'unknown-provider': 'the provider is not one the studio knows',
  'unknown-secret': 'the secret is not one the workspace uses',
  'mcp-failed': 'the MCP server could not answer',
  'no-sign-in': 'the MCP server does not sign in',
  'login-running': 'a sign-in to that server is already waiting for the browser',
  'login-failed': 'the sign-in failed',
  'no-tests': 'no test file or case matches',
  'test-file-problems': 'the test files have mistakes, so nothing ran',
  'tests-running': 'a test run is already in progress',
} as const satisfies Record<string, string>;

/** A stable kebab-case code a contract call fails with; {@link CONTRACT_ERROR_CODES} says what each means. */
export type ContractErrorCode = keyof typeof CONTRACT_ERROR_CODES;

/** Whether `code` is one of the {@link ContractErrorCode}s (a runtime guard for a handler's code). */
export function isContractErrorCode(code: unknown): code is ContractErrorCode {
  return typeof code === 'string' && Object.hasOwn(CONTRACT_ERROR_CODES, code);
}
