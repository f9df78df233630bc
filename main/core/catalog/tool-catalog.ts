import type { ValidateFunction } from 'ajv';
import type { JsonObject } from '../../../common/json.js';
import { builtinToolSpecs } from '../tools/builtin-tools.js';
import type { ToolCatalog, ToolSpec } from '../tools/tool-spec.js';
import { describeErrors, UserSchemaCompiler } from './catalog-schemas.js';

/**
 * An in-memory tool catalog with compiled argument and output validators. Built by the workspace
 * loader (which has already checked every schema compiles) or by {@link createBuiltinCatalog}.
 */
export class ToolCatalogImpl implements ToolCatalog {
  private readonly tools = new Map<string, ToolSpec>();
  private readonly argumentValidators = new Map<string, ValidateFunction>();
  private readonly outputValidators = new Map<string, ValidateFunction>();

  /**
   * @param specs tools in display order; a later spec with the same alias replaces an earlier one.
   * @param compiler shared so that identical schemas compile once. Throws when a schema does not
   * compile (the loader checks first and drops such entries).
   */
  constructor(specs: readonly ToolSpec[], compiler: UserSchemaCompiler = new UserSchemaCompiler()) {
    for (const spec of specs) {
      this.argumentValidators.set(spec.alias, compiler.compile(spec.parameters));
      if (spec.outputSchema) this.outputValidators.set(spec.alias, compiler.compile(spec.outputSchema));
      else this.outputValidators.delete(spec.alias);
      this.tools.delete(spec.alias);
      this.tools.set(spec.alias, spec);
    }
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
    const validate = this.argumentValidators.get(alias);
    if (!validate) return `unknown tool "${alias}"`;
    if (validate(args)) return undefined;
    return `invalid arguments: ${describeErrors(validate.errors ?? [], 'the arguments')}`;
  }

  validateOutput(alias: string, output: unknown): string | undefined {
    const validate = this.outputValidators.get(alias);
    if (!validate) return this.tools.has(alias) ? undefined : `unknown tool "${alias}"`;
    if (validate(output)) return undefined;
    return `output does not match the output schema: ${describeErrors(validate.errors ?? [], 'the output')}`;
  }
}

/** A catalog holding only the builtins, for code paths with no workspace (e.g. a bare CLI run). */
export function createBuiltinCatalog(): ToolCatalogImpl {
  return new ToolCatalogImpl(builtinToolSpecs());
}
