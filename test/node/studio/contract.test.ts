import { mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  contractEventNames,
  contractEvents,
  contractMethodNames,
  isContractEventName,
  isContractMethodName,
} from '../../../common/contract.js';
import { CONTRACT_ERROR_CODES, isContractErrorCode, type ContractErrorCode } from '../../../common/contract-errors.js';
import { ContractError } from '../../../main/core/studio/contract-error.js';
import {
  dispatchCall,
  formatFieldPath,
  type ContractHandlerTable,
} from '../../../main/core/studio/contract-dispatcher.js';
import { readInstalledPackageVersion } from '../../../main/core/studio/runtime-versions.js';
import { createStudioHandlers, dispatchContractCall } from '../../../main/core/studio/studio-handlers.js';
import type { StudioLogFields, StudioLogger } from '../../../main/core/studio/studio-logger.js';
import { pressStandIn } from './press-stand-in.js';
import { studio } from './studio-harness.js';

function recordingLogger(): StudioLogger & {
  lines: Array<{ level: string; message: string; fields?: StudioLogFields }>;
} {
  const lines: Array<{ level: string; message: string; fields?: StudioLogFields }> = [];
  const push = (level: string) => (message: string, fields?: StudioLogFields) => {
    lines.push(fields === undefined ? { level, message } : { level, message, fields });
  };
  return { lines, info: push('info'), warn: push('warn'), error: push('error') };
}

/** Handlers over a real StudioService (closed after each test by the harness). */
function handlersWith(service = studio().service) {
  return createStudioHandlers({
    appName: 'PromptForge Studio',
    appVersion: '9.8.7',
    userDataDirectory: '/home/someone/.config/PromptForge Studio',
    service,
    runtimeVersions: { node: '22.1.0', v8: '13.0', electron: '45.5.0', chrome: '142.0.1' },
    wasmoonVersion: '1.16.0',
    platform: 'linux-x64',
  });
}

/** A real workspace folder: a promptforge.yaml is enough to mark it. */
function workspaceFolder(): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'pf-contract-')));
  writeFileSync(path.join(dir, 'promptforge.yaml'), 'builtins: true\n');
  return dir;
}

// A table shaped like the real one, with nested fields, to pin the error wording.
const testTable = {
  'test:echo': {
    request: z.object({
      foo: z.object({ bar: z.string() }),
      items: z.array(z.object({ name: z.string() })).optional(),
    }),
    response: z.object({ text: z.string() }),
  },
  'test:fail': {
    request: z.object({ how: z.enum(['contract', 'unlisted-code', 'error', 'string', 'reject', 'bad-response']) }),
    response: z.object({ text: z.string() }),
  },
};
const testHandlers: ContractHandlerTable<typeof testTable> = {
  'test:echo': (request) => ({ text: request.foo.bar }),
  'test:fail': async (request) => {
    if (request.how === 'contract') throw new ContractError('no-workspace', 'open a workspace first');
    // Only a cast gets past the type; the dispatcher still refuses to pass the code on.
    if (request.how === 'unlisted-code') throw new ContractError('made-up' as ContractErrorCode, 'a made-up refusal');
    if (request.how === 'error') throw new Error('disk on fire');
    // The dispatcher must cope with any thrown value, not only Errors.
    if (request.how === 'string') throw 'a bare string';
    if (request.how === 'reject') return Promise.reject(new TypeError('rejected later'));
    return { text: 42 } as unknown as { text: string };
  },
};

describe('common/contract.ts', () => {
  it('names methods domain:verb and events noun-action', () => {
    expect(contractMethodNames).toContain('app:info');
    for (const method of contractMethodNames) expect(method).toMatch(/^[a-z][a-z-]*:[a-z][a-z-]*$/);
    expect(contractEventNames).toEqual(expect.arrayContaining(['run-event', 'approval-pending']));
    for (const event of contractEventNames) expect(event).toMatch(/^[a-z]+(-[a-z]+)+$/);
  });

  it('guards untrusted names without trusting the prototype chain', () => {
    expect(isContractMethodName('app:info')).toBe(true);
    expect(isContractMethodName('toString')).toBe(false);
    expect(isContractMethodName('__proto__')).toBe(false);
    expect(isContractEventName('run-event')).toBe(true);
    expect(isContractEventName('constructor')).toBe(false);
  });

  it('run-event carries exactly the run events: a valid event passes, a wrong one names the field', () => {
    const log = { runId: 'r1', seq: 1, t: '2026-12-02T10:00:00.000Z', type: 'log', text: 'hi' };
    expect(contractEvents['run-event'].parse(log)).toEqual(log);
    expect(contractEvents['run-event'].safeParse({ type: 'log' }).success).toBe(false);
    const bad = contractEvents['run-event'].safeParse({ ...log, text: 42 });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['text']);
  });
});

describe('common/contract-errors.ts', () => {
  /** Every source file of the main process and preload, as text. */
  const sources = (): string[] => {
    const root = path.resolve(import.meta.dirname, '../../..');
    return ['main', 'preload'].flatMap((folder) =>
      readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => readFileSync(path.join(root, folder, file), 'utf8')),
    );
  };

  it('lists every code a ContractError is thrown with, and each listed code is used', () => {
    const text = sources().join('\n');
    const thrown = [...text.matchAll(/new ContractError\(\s*'([^']*)'/g)].map((match) => match[1]!);
    expect(thrown.length).toBeGreaterThan(40);
    expect(thrown.filter((code) => !isContractErrorCode(code))).toEqual([]);
    const unused = Object.keys(CONTRACT_ERROR_CODES).filter((code) => !text.includes(`'${code}'`));
    expect(unused).toEqual([]);
  });

  it('guards codes without trusting the prototype chain', () => {
    expect(isContractErrorCode('script-changed')).toBe(true);
    for (const code of ['toString', '__proto__', 'constructor', 'Script-Changed', '', 42, undefined])
      expect(isContractErrorCode(code)).toBe(false);
  });
});

describe('createStudioHandlers', () => {
  it('implements every contract method', () => {
    expect(Object.keys(handlersWith()).sort()).toEqual([...contractMethodNames].sort());
  });

  it('app:info reports the name, version, runtimes and data folders it was given, and the open workspace', async () => {
    const { service, folders } = studio();
    const handlers = handlersWith(service);
    const before = await dispatchContractCall(handlers, 'app:info', {}, recordingLogger());
    expect(before.ok && before.value.paths.workspace).toBeNull();
    // Opened through the contract too (chosen in main's folder dialog, a stand-in here), so the
    // path app:info reports is the one the service holds.
    const folder = workspaceFolder();
    folders.push(folder);
    expect(await dispatchContractCall(handlers, 'workspace:choose', {}, recordingLogger(), pressStandIn())).toEqual({
      ok: true,
      value: { path: folder },
    });
    const opened = await dispatchContractCall(handlers, 'workspace:open', { path: folder }, recordingLogger());
    expect(opened.ok).toBe(true);
    const result = await dispatchContractCall(handlers, 'app:info', {}, recordingLogger());
    expect(result).toEqual({
      ok: true,
      value: {
        name: 'PromptForge Studio',
        version: '9.8.7',
        platform: 'linux-x64',
        versions: { node: '22.1.0', v8: '13.0', electron: '45.5.0', chrome: '142.0.1', wasmoon: '1.16.0' },
        paths: { userData: '/home/someone/.config/PromptForge Studio', workspace: folder },
      },
    });
  });

  it('app:info defaults to this process and the installed wasmoon', async () => {
    const handlers = createStudioHandlers({
      appName: 'PromptForge Studio',
      appVersion: '0.0.1',
      userDataDirectory: '/tmp/user-data',
      service: studio().service,
    });
    const result = await dispatchContractCall(handlers, 'app:info', {}, recordingLogger());
    const wasmoonManifest = JSON.parse(
      readFileSync(new URL('../../../node_modules/wasmoon/package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect(result.ok && result.value.versions).toEqual({
      node: process.versions.node,
      v8: process.versions.v8,
      electron: null,
      chrome: null,
      wasmoon: wasmoonManifest.version,
    });
    expect(result.ok && result.value.paths.workspace).toBeNull();
  });

  it('reads installed package versions, and null for a package that is not installed', () => {
    expect(readInstalledPackageVersion('zod')).toMatch(/^4\./);
    expect(readInstalledPackageVersion('no-such-package-promptforge')).toBeNull();
  });
});

describe('dispatchContractCall refusals', () => {
  it('refuses an unknown method with unknown-method and logs it', async () => {
    const logger = recordingLogger();
    const handlers = handlersWith();
    for (const method of ['app:nope', 'toString', '__proto__', 42]) {
      const result = await dispatchContractCall(handlers, method, {}, logger);
      expect(result).toEqual({
        ok: false,
        error: {
          code: 'unknown-method',
          message: `unknown method ${JSON.stringify(typeof method === 'string' ? method : '(number)')}`,
        },
      });
    }
    expect(logger.lines.map((line) => line.message)).toEqual(Array(4).fill('refused IPC call: unknown method'));
  });

  it('refuses unknown fields in app:info, naming each field and never the value', async () => {
    const logger = recordingLogger();
    const result = await dispatchContractCall(
      handlersWith(),
      'app:info',
      { apiKey: 'sk-secret-value', foo: { bar: 1 } },
      logger,
    );
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'invalid-payload',
        message: 'app:info: field "apiKey": unknown field; field "foo": unknown field',
      },
    });
    expect(JSON.stringify(logger.lines)).not.toContain('sk-secret-value');
    expect(logger.lines).toEqual([
      {
        level: 'warn',
        message: 'refused IPC call: invalid payload',
        fields: { method: 'app:info', reason: 'app:info: field "apiKey": unknown field; field "foo": unknown field' },
      },
    ]);
  });

  it('refuses a payload that is not an object', async () => {
    const handlers = handlersWith();
    for (const payload of [undefined, 'hello', [], null]) {
      const result = await dispatchContractCall(handlers, 'app:info', payload, recordingLogger());
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error.code).toBe('invalid-payload');
      expect(!result.ok && result.error.message).toMatch(/^app:info: payload: expected object, received /);
    }
  });

  it('names the nested field path of a wrong type', async () => {
    const result = await dispatchCall(
      testTable,
      testHandlers,
      'test:echo',
      { foo: { bar: 1 } },
      recordingLogger(),
      undefined,
    );
    expect(result).toEqual({
      ok: false,
      error: { code: 'invalid-payload', message: 'test:echo: field "foo.bar": expected string, received number' },
    });
  });

  it('names array elements with brackets and reports every bad field', async () => {
    const result = await dispatchCall(
      testTable,
      testHandlers,
      'test:echo',
      { foo: {}, items: [{ name: 'a' }, { name: false }] },
      recordingLogger(),
      undefined,
    );
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'invalid-payload',
        message:
          'test:echo: field "foo.bar": expected string, received undefined; field "items[1].name": expected string, received boolean',
      },
    });
  });

  it('passes a valid payload to the handler and returns its checked response', async () => {
    const result = await dispatchCall(
      testTable,
      testHandlers,
      'test:echo',
      { foo: { bar: 'hi' } },
      recordingLogger(),
      undefined,
    );
    expect(result).toEqual({ ok: true, value: { text: 'hi' } });
  });

  it('formats field paths', () => {
    expect(formatFieldPath([])).toBe('');
    expect(formatFieldPath(['foo', 'bar'])).toBe('foo.bar');
    expect(formatFieldPath(['items', 0, 'name'])).toBe('items[0].name');
    expect(formatFieldPath([3])).toBe('[3]');
  });
});

describe('dispatchContractCall maps handler failures to { code, message }', () => {
  const cases = [
    ['contract', { code: 'no-workspace', message: 'open a workspace first' }, 'warn'],
    ['unlisted-code', { code: 'internal-error', message: 'test:fail: a made-up refusal' }, 'error'],
    ['error', { code: 'internal-error', message: 'test:fail: disk on fire' }, 'error'],
    ['string', { code: 'internal-error', message: 'test:fail: threw a non-Error value (string)' }, 'error'],
    ['reject', { code: 'internal-error', message: 'test:fail: rejected later' }, 'error'],
    [
      'bad-response',
      {
        code: 'invalid-response',
        message: 'test:fail: the studio produced an invalid response (field "text": expected string, received number)',
      },
      'error',
    ],
  ] as const;

  it.each(cases)('%s', async (how, error, level) => {
    const logger = recordingLogger();
    const result = await dispatchCall(testTable, testHandlers, 'test:fail', { how }, logger, undefined);
    expect(result).toEqual({ ok: false, error });
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]?.level).toBe(level);
    expect(logger.lines[0]?.fields?.['method']).toBe('test:fail');
  });

  it('reports a method without a handler as internal-error instead of crashing', async () => {
    const logger = recordingLogger();
    const incomplete = { 'test:echo': testHandlers['test:echo'] } as unknown as ContractHandlerTable<typeof testTable>;
    const result = await dispatchCall(testTable, incomplete, 'test:fail', { how: 'error' }, logger, undefined);
    expect(result).toEqual({ ok: false, error: { code: 'internal-error', message: 'test:fail: not implemented' } });
    expect(logger.lines[0]).toMatchObject({ level: 'error', message: 'contract method has no handler' });
  });
});
