import { hasProtoKey, nestingDepth } from '../../../common/json.js';
import { MAX_LUA_DEPTH } from '../run/worker-protocol.js';
import type { z } from 'zod';
import type { IpcError, IpcResult } from '../../../common/contract-ipc.js';
import { isContractErrorCode } from '../../../common/contract-errors.js';
import { ContractError } from './contract-error.js';
import type { StudioLogger } from './studio-logger.js';

/** The deepest nesting a contract request may have; deeper ones are refused before any parsing. */
const MAX_PAYLOAD_DEPTH = 128;

/** The shape of a method table such as `contractMethods`: method name to request/response schemas. */
export type ContractMethodTable = Readonly<
  Record<string, { readonly request: z.ZodType; readonly response: z.ZodType }>
>;

/**
 * One handler per method of table `T`. A handler receives the parsed request and what its caller
 * says about the call (`C`: for the studio, the person's press that came with it), and returns
 * (or resolves to) the response. It reports an expected failure by throwing a {@link ContractError}.
 */
export type ContractHandlerTable<T extends ContractMethodTable, C = undefined> = {
  readonly [M in keyof T]: (
    request: z.output<T[M]['request']>,
    call: C,
  ) => Promise<z.input<T[M]['response']>> | z.input<T[M]['response']>;
};

type ZodIssue = z.ZodError['issues'][number];

/** `['foo', 'bar']` -> `foo.bar`; `['items', 0, 'name']` -> `items[0].name`; `[]` -> ``. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text;
}

/**
 * Turns zod issues into sentences that name the field path and never quote the received value
 * (a payload may later carry a secret, e.g. a provider key being stored).
 */
function describeIssues(issues: readonly ZodIssue[], rootLabel = 'payload'): string[] {
  const sentences: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        sentences.push(`field "${formatFieldPath([...issue.path, key])}": unknown field`);
      }
      continue;
    }
    const message = issue.message.replace(/^Invalid input: /, '');
    const path = formatFieldPath(issue.path);
    sentences.push(path === '' ? `${rootLabel}: ${message}` : `field "${path}": ${message}`);
  }
  return sentences;
}

/** A short, printable form of an untrusted method name for messages and logs. */
function quoteMethodName(method: unknown): string {
  const text = typeof method === 'string' ? method : `(${typeof method})`;
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}...` : text);
}

function failure(error: IpcError): IpcResult<never> {
  return { ok: false, error };
}

/**
 * Runs one contract call from an untrusted caller, and never throws:
 *
 * 1. refuses a method that is not in `table` (`unknown-method`);
 * 2. parses `payload` with the method's request schema, refusing a bad one with
 *    `invalid-payload` and a message naming each bad field path;
 * 3. calls the handler with the request and `call`; a {@link ContractError} becomes its `{ code, message }`, any other
 *    throw becomes `internal-error`;
 * 4. parses the handler's value with the response schema (`invalid-response` on mismatch, a
 *    defect in main, so the renderer never sees data outside the contract).
 *
 * Every refusal and failure is logged with the method name, never with the payload.
 */
export async function dispatchCall<T extends ContractMethodTable, C>(
  table: T,
  handlers: ContractHandlerTable<T, C>,
  method: unknown,
  payload: unknown,
  logger: StudioLogger,
  call: C,
): Promise<IpcResult<unknown>> {
  if (typeof method !== 'string' || !Object.hasOwn(table, method)) {
    const message = `unknown method ${quoteMethodName(method)}`;
    logger.warn('refused IPC call: unknown method', { method: quoteMethodName(method) });
    return failure({ code: 'unknown-method', message });
  }
  const entry = table[method]!;
  const handler: unknown = Object.hasOwn(handlers, method) ? handlers[method] : undefined;
  if (typeof handler !== 'function') {
    logger.error('contract method has no handler', { method });
    return failure({ code: 'internal-error', message: `${method}: not implemented` });
  }

  // Checked before the schema, whose recursive check would overflow the stack on a deep value.
  if (nestingDepth(payload, MAX_PAYLOAD_DEPTH) > MAX_PAYLOAD_DEPTH) {
    const message = `${method}: the request is nested more than ${MAX_PAYLOAD_DEPTH} levels deep; flatten the value (a tool's arguments reach a script at most ${MAX_LUA_DEPTH} levels deep)`;
    logger.warn('refused IPC call: invalid payload', { method, reason: message });
    return failure({ code: 'invalid-payload', message });
  }
  if (hasProtoKey(payload)) {
    const message = `${method}: a key named "__proto__" cannot be sent (parsing would drop it, so the value would not be what you sent); rename the key`;
    logger.warn('refused IPC call: invalid payload', { method, reason: message });
    return failure({ code: 'invalid-payload', message });
  }
  const request = entry.request.safeParse(payload);
  if (!request.success) {
    const message = `${method}: ${describeIssues(request.error.issues).join('; ')}`;
    logger.warn('refused IPC call: invalid payload', { method, reason: message });
    return failure({ code: 'invalid-payload', message });
  }

  let value: unknown;
  try {
    value = await (handler as (request: unknown, call: C) => unknown)(request.data, call);
  } catch (error) {
    // A code outside the list (only a cast can make one) is a bug in the handler, not a refusal.
    if (error instanceof ContractError && isContractErrorCode(error.code)) {
      logger.warn('IPC call failed', { method, code: error.code, reason: error.message });
      return failure({ code: error.code, message: error.message });
    }
    const reason = error instanceof Error ? error.message : `threw a non-Error value (${typeof error})`;
    logger.error('IPC handler threw', { method, reason });
    return failure({ code: 'internal-error', message: `${method}: ${reason}` });
  }

  const response = entry.response.safeParse(value);
  if (!response.success) {
    const details = describeIssues(response.error.issues, 'response').join('; ');
    logger.error('IPC handler returned a response outside the contract', { method, reason: details });
    return failure({
      code: 'invalid-response',
      message: `${method}: the studio produced an invalid response (${details})`,
    });
  }
  return { ok: true, value: response.data };
}
