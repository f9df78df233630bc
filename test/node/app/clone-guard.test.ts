import { afterAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { StudioHandlers } from '../../../main/core/studio/studio-handlers.js';
import type { StudioService } from '../../../main/core/studio/studio-service.js';
import { createGlue, studioHandlers } from './glue-fixture.js';

// A contract whose keys:status response and mcp-changed event admit anything (as a z.custom or a transform could), so
// the handler's value reaches the glue's own check: what Electron's structured clone cannot carry
// unchanged must become an internal-error result, never a rejected invoke.
vi.mock('../../../common/contract.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../common/contract.js')>();
  return {
    ...real,
    contractMethods: {
      ...real.contractMethods,
      'keys:status': { ...real.contractMethods['keys:status'], response: z.any() },
    },
    contractEvents: { ...real.contractEvents, 'mcp-changed': z.any() },
  };
});

let service: StudioService | undefined;
afterAll(async () => {
  await service?.close();
});

function glueAnswering(value: () => unknown) {
  return createGlue((sendEvent) => {
    const studio = studioHandlers(sendEvent);
    service ??= studio.service;
    return { ...studio.handlers, 'keys:status': value } as StudioHandlers;
  });
}

class KeyRow {
  constructor(readonly provider: string) {}
  isSet(): boolean {
    return false;
  }
}

describe('a response IPC cannot carry unchanged', () => {
  for (const [what, value, problem] of [
    ['a function', () => ({ keys: [], refresh: () => undefined }), 'field "refresh" is a function'],
    ['a class instance', () => ({ keys: [new KeyRow('openai')] }), 'field "keys[0]" is a KeyRow, not plain data'],
    ['a symbol', () => ({ keys: [], marker: Symbol('studio') }), 'field "marker" is a symbol'],
  ] as const) {
    it(`becomes internal-error and a logged error: ${what}`, async () => {
      const studio = glueAnswering(value);
      const result = await studio.invoke('keys:status', {});
      expect(result).toEqual({
        ok: false,
        error: {
          code: 'internal-error',
          message: expect.stringMatching(
            /^keys:status: the studio produced a response that IPC cannot carry unchanged \(.+\); return plain data$/,
          ),
        },
      });
      expect((result as { error: { message: string } }).error.message).toContain(problem);
      expect(studio.log.at(-1)).toMatchObject({
        level: 'error',
        message: 'IPC handler returned a response IPC cannot carry',
        fields: { method: 'keys:status', reason: expect.stringContaining(problem) },
      });
    });
  }

  it('is not pushed as an event either: the sender refuses it and logs why', () => {
    const studio = glueAnswering(() => ({ keys: [] }));
    expect(studio.sendEvent('mcp-changed', { servers: [], reload: () => undefined } as never)).toBe(false);
    expect(studio.sent).toEqual([]);
    expect(studio.log.at(-1)).toEqual({
      level: 'error',
      message: 'refused to push an event IPC cannot carry',
      fields: {
        event: 'mcp-changed',
        reason: 'field "reload" is a function, which structured clone cannot copy',
      },
    });
  });
});
