/**
 * The JSON Schemas a tool lists in tools/list, which every conversation with the server pays for
 * before its first question. The input schema is listed whole: a model needs every parameter's rule
 * to call right. The output schema is listed at its top level: each field of the answer with its
 * type, nested records typed as objects. A model reads the rows' fields in the answer itself, and
 * docs/tools.md shows the whole shape; the full schema still checks every answer in the tests
 * (`fullOutputSchema`), so a record that drifts from it fails there.
 */
import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/**
 * A string with a named format (date-time, email) says its rule by the name: the long pattern zod
 * spells it out with is dropped from the listing; the server's validator still applies it.
 */
function withoutSpelledFormats(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutSpelledFormats);
  if (!schema || typeof schema !== 'object') return schema;
  const entries = Object.entries(schema as JsonSchema).filter(([k]) => !(k === 'pattern' && 'format' in schema));
  return Object.fromEntries(entries.map(([k, v]) => [k, withoutSpelledFormats(v)]));
}

/** The input schema as listed: strict (no other parameters), every rule and description kept. */
export function inputSchemaOf(validator: z.ZodObject): JsonSchema {
  return withoutSpelledFormats(withoutDialect(z.toJSONSchema(validator, { io: 'input' }) as JsonSchema)) as JsonSchema;
}

/** Every field of the answer, nested records included: what the tests check answers against. */
export function fullOutputSchema(shape: z.ZodRawShape): JsonSchema {
  return withoutDialect(z.toJSONSchema(z.object(shape), { io: 'output' }) as JsonSchema);
}

/** A nested value's schema reduced to its type: an object or a list of objects says no more. */
function typeOnly(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.anyOf)) return { anyOf: (schema.anyOf as JsonSchema[]).map(typeOnly) };
  if (schema.type === 'object') return { type: 'object' };
  if (schema.type === 'array') {
    const items = schema.items as JsonSchema | undefined;
    return items && Object.keys(items).length ? { type: 'array', items: typeOnly(items) } : { type: 'array' };
  }
  const { description: _said, ...rest } = schema;
  return rest;
}

/** The output schema as listed: the top-level fields, their types and descriptions, which are required. */
export function listedOutputSchema(shape: z.ZodRawShape): JsonSchema {
  const full = fullOutputSchema(shape);
  const properties = Object.fromEntries(
    Object.entries(full.properties as Record<string, JsonSchema>).map(([name, field]) => {
      const reduced = typeOnly(field);
      return [name, field.description ? { ...reduced, description: field.description } : reduced];
    }),
  );
  return { type: 'object', properties, ...(full.required ? { required: full.required } : {}) };
}
