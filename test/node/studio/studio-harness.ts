import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import type { ContractEventName, ContractEventPayload } from '../../../common/contract.js';
import type { RunEvent } from '../../../common/run-events.js';
import { StudioService } from '../../../main/core/studio/studio-service.js';
import type { PersonQuestion } from '../../../main/core/studio/studio-trust.js';
import { testPool } from '../run/run-harness.js';
import { mapSecretStore } from '../../fixtures/stubs.js';

export { pressStandIn } from './press-stand-in.js';

export const examples = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../examples');

/** One event the service pushed to the renderer. */
export interface Pushed {
  name: ContractEventName;
  payload: unknown;
}

/**
 * A stand-in for the person at main's own dialog (Electron's message box, which plain Node cannot
 * show): records each question and answers from `answers` in order, then `fallback`.
 */
export function standInPerson(fallback = false) {
  const questions: PersonQuestion[] = [];
  const answers: boolean[] = [];
  let answering: ((question: PersonQuestion) => Promise<boolean>) | undefined;
  return {
    questions,
    answers,
    /** From now on the person answers with `answer` (e.g. one that takes its time). */
    confirmWith(answer: (question: PersonQuestion) => Promise<boolean>): void {
      answering = answer;
    },
    confirm: async (question: PersonQuestion): Promise<boolean> => {
      questions.push(question);
      if (answering) return answering(question);
      return answers.shift() ?? fallback;
    },
  };
}
export type StandInPerson = ReturnType<typeof standInPerson>;

export interface StudioHarness {
  service: StudioService;
  /** The person at main's dialog (a stand-in that says yes unless a test queues a no). */
  person: StandInPerson;
  /** What main's folder dialog answers next, a stand-in: `workspace:choose` takes them in order, then cancels. */
  folders: string[];
  pushed: Pushed[];
  /**
   * The person's system browser, a stand-in: `opened` records every URL main opened through it
   * (after main's own check), and `visit` is what it then does (nothing, unless a test sets it).
   */
  browser: { opened: string[]; visit: (url: string) => Promise<void> };
  /** The first pushed event `name` (already pushed, or the next one) for which `match` holds. */
  waitFor: <E extends ContractEventName>(
    name: E,
    match?: (p: ContractEventPayload<E>) => boolean,
  ) => Promise<ContractEventPayload<E>>;
}

let current: StudioService | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

/**
 * A real StudioService over a private data folder, with an in-memory keychain (the real keychain
 * is exercised in test/node/credentials and e2e), recording what it pushes. Closed after each test.
 */
export function studio(options: { configDirectory?: string } = {}): StudioHarness {
  const pushed: Pushed[] = [];
  const person = standInPerson(true);
  const folders: string[] = [];
  const browser: StudioHarness['browser'] = { opened: [], visit: async () => undefined };
  const waiters: { name: ContractEventName; match: (p: never) => boolean; resolve: (p: unknown) => void }[] = [];
  const service = new StudioService({
    userDataDirectory: mkdtempSync(path.join(tmpdir(), 'pf-studio-')),
    examplesDirectory: examples,
    secrets: mapSecretStore(),
    pool: testPool(),
    ...(options.configDirectory !== undefined && { configDirectory: options.configDirectory }),
    confirmPerson: person.confirm,
    chooseFolder: async () => folders.shift() ?? null,
    openExternal: async (url) => {
      browser.opened.push(url);
      await browser.visit(url);
    },
    emit: (name, payload) => {
      pushed.push({ name, payload });
      for (const waiter of [...waiters]) {
        if (waiter.name === name && waiter.match(payload as never)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(payload);
        }
      }
    },
  });
  current = service;
  const waitFor = <E extends ContractEventName>(
    name: E,
    match: (p: ContractEventPayload<E>) => boolean = () => true,
  ) => {
    const seen = pushed.find((p) => p.name === name && match(p.payload as ContractEventPayload<E>));
    if (seen) return Promise.resolve(seen.payload as ContractEventPayload<E>);
    return new Promise<ContractEventPayload<E>>((resolve) =>
      waiters.push({ name, match: match as (p: never) => boolean, resolve: resolve as (p: unknown) => void }),
    );
  };
  return { service, person, folders, pushed, browser, waitFor };
}

/** The events of one run, as pushed. */
export function runEvents(pushed: Pushed[], runId: string): RunEvent[] {
  return pushed
    .filter((p) => p.name === 'run-event' && (p.payload as RunEvent).runId === runId)
    .map((p) => p.payload as RunEvent);
}
