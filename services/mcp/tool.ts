/**
 * What a tool is: a name, a description written for a model, a zod input schema (its JSON Schema is
 * computed once per process), annotations, the OAuth scope it needs, and a thin handler that calls
 * one core function with the caller's principal. Rendering and errors are handled by the server.
 */
import { z } from 'zod';
import type { FeatureFlag, Principal } from '../core/access';
import type { Format, ToonDelimiter } from './format';
import type { ServiceDeps } from '../core/ports';
import { requireStorableText } from '../core/input';

/** What the tools hand to core: the service's deps, the request's logger among them. */
export type Deps = ServiceDeps;

export interface ToolContext {
  principal: Principal;
  deps: Deps;
  format: Format;
}

/**
 * The MCP tool annotations, true to what the tool does (clients use them to decide what needs the
 * user's confirmation). A tool that only reads says so; a tool that writes states all three hints:
 * destructiveHint when it can change or remove what exists (not only add), idempotentHint when
 * repeating the same call changes nothing more, openWorldHint when it reaches beyond this service.
 */
export type ToolAnnotations =
  | { readOnlyHint: true; openWorldHint: boolean }
  | { readOnlyHint: false; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };

export interface ToolDef<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: S;
  annotations: ToolAnnotations;
  scope: 'meetings:read' | 'meetings:write';
  /** Experimental tools exist only for teams with this flag. */
  flag?: FeatureFlag;
  /** Whether the tool takes the `format` parameter (docs/tools.md, Conventions); tools without it answer in TOON. */
  formats?: boolean;
  /**
   * The answer's shape (MCP outputSchema): the server answers structuredContent, the JSON form of
   * the answer, beside the text, and clients validate it against this schema.
   */
  output?: z.ZodRawShape;
  run(args: z.infer<z.ZodObject<S>>, ctx: ToolContext): Promise<unknown>;
  /** Renderer for format=text; without one, a generic key/value rendering is used. */
  text?(result: never): string;
  /**
   * Cell separator of the TOON tables (default comma). Tables of prose use a tab: speech is full of
   * commas, and a comma-separated table must quote (and escape) every cell holding one.
   */
  toonDelimiter?: ToonDelimiter;
}

export function defineTool<S extends z.ZodRawShape>(def: ToolDef<S>): ToolDef {
  return def as unknown as ToolDef;
}

/**
 * The one rule for the text of every string argument of every tool, nested ones included: no NUL
 * character and no lone surrogate (core/validate's requireStorableText), refused as invalid_arguments
 * naming the field (`emails.2`, `filters.name`) before the schema or any handler sees the value.
 */
export function requireStorableArguments(value: unknown, path: (string | number)[] = []): void {
  if (typeof value === 'string') {
    requireStorableText(path.join('.') || '(arguments)', value);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => requireStorableArguments(v, [...path, i]));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      requireStorableText(path.length ? `${path.join('.')} (a parameter name)` : '(a parameter name)', k);
      requireStorableArguments(v, [...path, k]);
    }
  }
}
