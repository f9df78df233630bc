import type { ValidateFunction } from 'ajv';
import { errorMessage } from '../../../common/error-message.js';
import type { JsonObject } from '../../../common/json.js';
import { builtinToolSpecs } from '../tools/builtin-tools.js';
import type { ToolCatalog, ToolSpec } from '../tools/tool-spec.js';
import type { ArgumentProblem } from '../../../common/studio-schemas.js';
import { describeErrorList, describeErrors, UserSchemaCompiler } from './catalog-schemas.js';

let shared: UserSchemaCompiler | undefined;
let sharedUses = 0;
/** Validators a shared compiler hands out before it is replaced, so that its cache stays bounded. */
const SHARED_COMPILER_USES = 5000;

/**
 * The compiler of catalogs made without one (each run's scoped or restricted copy of the
 * workspace's tools, the builtins): identical schemas compile once, not once per run (compiling
 * took most of a short run's host time). It is replaced after {@link SHARED_COMPILER_USES}
 * validators, so schemas that keep changing (an MCP server's) cannot grow it without bound.
 */
function sharedCompiler(): UserSchemaCompiler {
  if (shared === undefined || ++sharedUses > SHARED_COMPILER_USES) {
    shared = new UserSchemaCompiler();
    sharedUses = 0;
  }
  return shared;
}

/**
 * An in-memory tool catalog with argument and output validators. Built by the workspace loader
 * (which has already checked every schema compiles), the MCP manager (which checks its tools'
 * schemas too) or by {@link createBuiltinCatalog}. A tool's validators are compiled when it is
 * first validated, so a run that calls no tool never pays for compiling schemas.
 */
export class ToolCatalogImpl implements ToolCatalog {
  private readonly tools = new Map<string, ToolSpec>();
  private readonly argumentValidators = new Map<string, ValidateFunction>();
  private readonly outputValidators = new Map<string, ValidateFunction>();
  private readonly compiler: UserSchemaCompiler | undefined;

  /**
   * @param specs tools in display order; a later spec with the same alias replaces an earlier one.
   * @param compiler shared so that identical schemas compile once. Validating against a schema that
   * does not compile throws (the loader checks first and drops such entries).
   */
  constructor(specs: readonly ToolSpec[], compiler?: UserSchemaCompiler) {
    this.compiler = compiler;
    for (const spec of specs) {
      this.tools.delete(spec.alias);
      this.tools.set(spec.alias, spec);
    }
  }

  /** The compiled validator of `alias`'s parameters or output schema; undefined when it has none. */
  private validator(alias: string, which: 'parameters' | 'outputSchema'): ValidateFunction | undefined {
    const spec = this.tools.get(alias);
    const schema = spec?.[which];
    if (!schema) return undefined;
    const cache = which === 'parameters' ? this.argumentValidators : this.outputValidators;
    let validate = cache.get(alias);
    if (!validate) {
      validate = (this.compiler ?? sharedCompiler()).compile(schema);
      cache.set(alias, validate);
    }
    return validate;
  }

  get(alias: string): ToolSpec | undefined {
    return this.tools.get(alias);
  }

  list(): ToolSpec[] {
    return [...this.tools.values()];
  }

  /** The aliases, for editor completion. */
  aliases(): string[] {
    return [...this.tools.keys()];
  }

  validateArguments(alias: string, args: JsonObject): string | undefined {
    const validate = this.validator(alias, 'parameters');
    if (!validate) return `unknown tool "${alias}"`;
    const verdict = check(validate, args);
    if (verdict === true) return undefined;
    if (typeof verdict === 'string') return `invalid arguments: ${unusable('argument schema', verdict)}`;
    return `invalid arguments: ${describeErrors(validate.errors ?? [], 'the arguments')}`;
  }

  /**
   * The same validation as {@link validateArguments}, as a list of problems (JSON pointer, what
   * is wrong, the fix); empty when `args` is valid, undefined for an unknown alias.
   */
  argumentProblems(alias: string, args: unknown): ArgumentProblem[] | undefined {
    const validate = this.validator(alias, 'parameters');
    if (!validate) return undefined;
    const verdict = check(validate, args);
    if (verdict === true) return [];
    if (typeof verdict === 'string')
      return [{ pointer: '', message: unusable('argument schema', verdict), fix: 'Fix the tool’s schema.' }];
    return describeErrorList(validate.errors ?? [], 'the arguments');
  }

  validateOutput(alias: string, output: unknown): string | undefined {
    const validate = this.validator(alias, 'outputSchema');
    if (!validate) return this.tools.has(alias) ? undefined : `unknown tool "${alias}"`;
    const verdict = check(validate, output);
    if (verdict === true) return undefined;
    if (typeof verdict === 'string')
      return `output does not match the output schema: ${unusable('output schema', verdict)}`;
    return `output does not match the output schema: ${describeErrors(validate.errors ?? [], 'the output')}`;
  }
}

/** A catalog holding only the builtins, for code paths with no workspace (e.g. a bare CLI run). */
export function createBuiltinCatalog(): ToolCatalogImpl {
  return new ToolCatalogImpl(builtinToolSpecs());
}

/**
 * Runs a compiled schema on a value: true or false, or why it could not check it. A schema can
 * loop without consuming the value (`{ "$ref": "#" }`, from tools.yaml or an MCP server), which
 * overflows ajv's stack; the value is then refused, never passed.
 */
function check(validate: ValidateFunction, value: unknown): boolean | string {
  try {
    return validate(value);
  } catch (error) {
    return error instanceof RangeError ? 'it refers to itself without end' : errorMessage(error).slice(0, 200);
  }
}

function unusable(which: string, why: string): string {
  return `the tool's ${which} cannot be checked (${why}); the value is refused`;
}
