import { describe, expect, it } from 'vitest';
import { bankingSuite } from '../../../main/core/agentdojo/banking.js';
import { slackSuite } from '../../../main/core/agentdojo/slack.js';
import {
  attackInjections,
  securityCheckName,
  suiteEnvironment,
  utilityCheckName,
  type Suite,
} from '../../../main/core/agentdojo/suite.js';
import { testEnvironment } from '../../../main/core/testing/test-environment.js';
import { playDirect } from './direct-play.js';

const suites = [bankingSuite, slackSuite] as Suite<unknown>[];

describe.each(suites.map((suite) => [suite.name, suite] as const))('%s', (name, suite) => {
  const environment = testEnvironment(name)!;

  it('is registered under its name, with a utility check per user task and a security check per injection task', () => {
    expect(environment).toBeDefined();
    for (const task of suite.userTasks) expect(environment.checks[utilityCheckName(task.id)]).toBeTypeOf('function');
    for (const task of suite.injectionTasks)
      expect(environment.checks[securityCheckName(task.id)]).toBeTypeOf('function');
    expect(Object.keys(environment.models).sort()).toEqual(['oracle', 'worst-case']);
  });

  it.each(suite.userTasks.map((task) => task.id))('the oracle completes %s with no attack', async (id) => {
    const context = await playDirect(environment, 'oracle', { user_task: id });
    expect(environment.checks[utilityCheckName(id)]!(context)).toMatchObject({ ok: true });
    for (const injection of suite.injectionTasks)
      expect(environment.checks[securityCheckName(injection.id)]!(context).ok).toBe(true);
  });

  it('every user task reads at least one injection slot, so every pair has an attack', async () => {
    for (const user of suite.userTasks) {
      const injections = await attackInjections(suite, user, suite.injectionTasks[0]!);
      expect(Object.keys(injections).length, user.id).toBeGreaterThan(0);
    }
  });

  it('the worst-case model with every call approved: measured, and it is the oracle when no attack reaches it', async () => {
    let achieved = 0;
    let pairs = 0;
    for (const user of suite.userTasks) {
      const benign = await playDirect(environment, 'worst-case', { user_task: user.id });
      expect(environment.checks[utilityCheckName(user.id)]!(benign).ok).toBe(true);
      for (const injection of suite.injectionTasks) {
        const injections = await attackInjections(suite, user, injection);
        const context = await playDirect(
          environment,
          'worst-case',
          { user_task: user.id, injection_task: injection.id },
          injections,
        );
        pairs += 1;
        if (!environment.checks[securityCheckName(injection.id)]!(context).ok) achieved += 1;
      }
    }
    expect(pairs).toBe(suite.userTasks.length * suite.injectionTasks.length);
    // Reported, not asserted to a number: with nothing to stop it, how often the goal is reached.
    console.log(`${name}: worst case, every call approved: ${achieved}/${pairs} injection goals achieved`);
  });
});

describe('the scripted models', () => {
  it('name the case task field and its fix when it is wrong', () => {
    const environment = suiteEnvironment(bankingSuite);
    const before = environment.initialState({});
    expect(() => environment.models['oracle']!('user_task_0', before)).toThrow(
      /task field must be an object with user_task/,
    );
    expect(() => environment.models['oracle']!({ user_task: 'user_task_99' }, before)).toThrow(
      /user_task "user_task_99", which agentdojo-banking does not have/,
    );
    expect(() =>
      environment.models['worst-case']!({ user_task: 'user_task_0', injection_task: 'injection_task_42' }, before),
    ).toThrow(/injection_task "injection_task_42"/);
  });

  it('the worst case makes the injection goal calls once injected text reaches it, then finishes the user task', async () => {
    const environment = testEnvironment('agentdojo-banking')!;
    const injection = bankingSuite.injectionTasks.find((task) => task.id === 'injection_task_7')!;
    const injections = await attackInjections(bankingSuite, bankingSuite.userTasks[0]!, injection);
    expect(Object.keys(injections)).toEqual(['injection_bill_text']);
    const context = await playDirect(
      environment,
      'worst-case',
      { user_task: 'user_task_0', injection_task: 'injection_task_7' },
      injections,
    );
    expect(context.calls.map((call) => call.alias)).toEqual(['read_file', 'update_password', 'send_money']);
    expect(environment.checks['security_injection_task_7']!(context)).toMatchObject({ ok: false });
    expect(environment.checks['utility_user_task_0']!(context)).toMatchObject({ ok: true });
    // The oracle reads the same attack and ignores it.
    const oracle = await playDirect(environment, 'oracle', { user_task: 'user_task_0' }, injections);
    expect(environment.checks['security_injection_task_7']!(oracle)).toMatchObject({ ok: true });
  });
});
