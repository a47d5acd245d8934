/**
 * TOON text of an answer, the same text as @toon-format/toon's `encode` gives with the same delimiter
 * (test/unit/mcp/toon.test.ts compares the two over every shape the encoder tells apart). The library
 * first copies the whole answer into a normalised form and then yields it line by line through
 * generators; every tool call renders its answer, so this encoder reads the answer as it is (copying
 * only a part that holds something TOON writes differently from how it is held: a Date, -0, a value
 * that is not JSON) and writes the lines into one array. The format's rules are the library's, named
 * where they are applied.
 */

/** How a tool's TOON tables separate their cells; the table header names it, so readers need not be told. */
export type ToonDelimiter = ',' | '\t';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const SURROGATE = /[\uD800-\uDFFF]/;
const NUMERIC_LIKE = /^[+-]?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i;
const UNQUOTED_KEY = /^[A-Z_][\w.]*$/i;

/** A string with a lone surrogate cannot be written (the library's message, word for word). */
function checkSurrogates(value: string, context: string): void {
  if (!SURROGATE.test(value)) return;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0xd800 || code > 0xdfff) continue;
    const next = value.charCodeAt(i + 1);
    if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++;
      continue;
    }
    throw new TypeError(
      `Cannot encode ${context} containing an unpaired surrogate U+${code.toString(16).toUpperCase()} at index ${i}`,
    );
  }
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === null || proto === Object.prototype;
}

/**
 * The value as TOON sees it: toJSON applied, dates as ISO strings, -0 as 0, a number that is not finite
 * and anything that is not JSON as null, Sets and Maps as arrays and objects. The value itself when it
 * already is that (most answers), else a copy of the parts that differ.
 */
function normalize(value: unknown): Json {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
      checkSurrogates(value, 'string value');
      return value;
    case 'boolean':
      return value;
    case 'number':
      if (Object.is(value, -0)) return 0;
      return Number.isFinite(value) ? value : null;
    case 'bigint':
      return value >= Number.MIN_SAFE_INTEGER && value <= Number.MAX_SAFE_INTEGER ? Number(value) : value.toString();
    case 'object':
      break;
    default:
      return null;
  }
  const obj = value as object & { toJSON?: unknown };
  if ('toJSON' in obj && typeof obj.toJSON === 'function') {
    const next = (obj.toJSON as () => unknown)();
    if (next !== value) return normalize(next);
  }
  if (Array.isArray(obj)) return normalizeArray(obj);
  if (obj instanceof Set) return Array.from(obj, normalize);
  if (obj instanceof Map) {
    const out: JsonObject = {};
    for (const [k, v] of obj) setOwn(out, String(k), normalize(v));
    return out;
  }
  if (!isPlainObject(obj)) return null;
  return normalizeObject(obj as Record<string, unknown>);
}

function normalizeArray(arr: unknown[]): Json[] {
  let out: Json[] | undefined;
  for (let i = 0; i < arr.length; i++) {
    const v = arr[i];
    const n = normalize(v);
    if (out) out.push(n);
    else if (n !== v) {
      out = arr.slice(0, i) as Json[];
      out.push(n);
    }
  }
  return out ?? (arr as Json[]);
}

function normalizeObject(obj: Record<string, unknown>): JsonObject {
  let out: JsonObject | undefined;
  const keys = Object.keys(obj);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    checkSurrogates(key, 'object key');
    const v = obj[key];
    const n = normalize(v);
    if (out) setOwn(out, key, n);
    else if (n !== v || key === '__proto__') {
      out = {};
      for (let j = 0; j < i; j++) setOwn(out, keys[j], obj[keys[j]] as Json);
      setOwn(out, key, n);
    }
  }
  return out ?? (obj as JsonObject);
}

/** An own property even for the key `__proto__`. */
function setOwn(target: JsonObject, key: string, value: Json): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

const isObject = (v: Json): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);
const isPrimitive = (v: Json): v is null | boolean | number | string => v === null || typeof v !== 'object';
const isEmptyObject = (v: JsonObject) => Object.keys(v).length === 0;

/**
 * Whether a string is written without quotes: not empty, no leading or trailing space or tab, not
 * true/false/null or number-like, not starting with - or #, and none of : " \ [ ] { }, a control
 * character or the delimiter. One pass over the characters instead of a test per rule.
 */
function isSafeUnquoted(value: string, delimiter: number): boolean {
  const n = value.length;
  if (n === 0) return false;
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(n - 1);
  if (first === 32 || first === 9 || last === 32 || last === 9 || first === 45 || first === 35) return false;
  if (value === 'true' || value === 'false' || value === 'null') return false;
  if ((first === 43 || (first >= 48 && first <= 57)) && NUMERIC_LIKE.test(value)) return false;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c < 32 || c === delimiter) return false;
    if (c === 58 || c === 34 || c === 92 || c === 91 || c === 93 || c === 123 || c === 125) return false;
  }
  return true;
}

/**
 * A quoted string's escapes: a backslash before a quote or a backslash, n r t for those control
 * characters and a \u escape for the others. One pass, and the string itself when nothing needs one.
 */
function escapeString(value: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 32 && c !== 34 && c !== 92) continue;
    out += value.slice(from, i) + ESCAPES[c === 34 ? 0 : c === 92 ? 1 : c + 2];
    from = i + 1;
  }
  return from === 0 ? value : out + value.slice(from);
}

/** The escape of a quote, of a backslash, then of each control character by its code. */
const ESCAPES = [
  '\\"',
  '\\\\',
  ...Array.from({ length: 32 }, (_, c) =>
    c === 10 ? '\\n' : c === 13 ? '\\r' : c === 9 ? '\\t' : `\\u${c.toString(16).padStart(4, '0')}`,
  ),
];

const encodeKey = (key: string) => (UNQUOTED_KEY.test(key) ? key : `"${escapeString(key)}"`);

interface Field {
  name: string;
  children?: Field[];
}

class Writer {
  readonly lines: string[] = [];
  private readonly indents: string[] = [''];
  private readonly delimiterCode: number;

  constructor(readonly delimiter: ToonDelimiter) {
    this.delimiterCode = delimiter.charCodeAt(0);
  }

  private indent(depth: number): string {
    while (this.indents.length <= depth) this.indents.push(' '.repeat(2 * this.indents.length));
    return this.indents[depth];
  }

  line(depth: number, content: string): void {
    this.lines.push(depth ? this.indent(depth) + content : content);
  }

  item(depth: number, content: string): void {
    this.line(depth, '- ' + content);
  }

  primitive(value: null | boolean | number | string): string {
    if (typeof value === 'string')
      return isSafeUnquoted(value, this.delimiterCode) ? value : `"${escapeString(value)}"`;
    return String(value);
  }

  joined(values: Json[]): string {
    let out = '';
    for (let i = 0; i < values.length; i++) {
      if (i) out += this.delimiter;
      out += this.primitive(values[i] as null | boolean | number | string);
    }
    return out;
  }

  header(length: number, key?: string, fields?: Field[], keyed = false): string {
    let h = key !== undefined ? encodeKey(key) : '';
    h += `[${length}${keyed ? ':' : ''}${this.delimiter !== ',' ? this.delimiter : ''}]`;
    if (fields) h += `{${this.fieldSegment(fields)}}`;
    return h + ':';
  }

  private fieldSegment(fields: Field[]): string {
    return fields
      .map((f) => encodeKey(f.name) + (f.children ? `{${this.fieldSegment(f.children)}}` : ''))
      .join(this.delimiter);
  }

  inlineArray(values: Json[], key?: string): string {
    const header = this.header(values.length, key);
    return values.length === 0 ? header : `${header} ${this.joined(values)}`;
  }

  value(value: Json, depth: number): void {
    if (isPrimitive(value)) {
      const text =
        typeof value === 'string' && value.startsWith('\uFEFF') ? `"${escapeString(value)}"` : this.primitive(value);
      if (text !== '') this.line(depth, text);
    } else if (Array.isArray(value)) this.array(undefined, value, depth);
    else {
      const keyed = keyedTabularFields(value);
      if (keyed) this.keyedObject(undefined, value, keyed, depth);
      else this.object(value, depth);
    }
  }

  object(value: JsonObject, depth: number): void {
    for (const key of Object.keys(value)) this.keyValue(key, value[key], depth);
  }

  keyValue(key: string, value: Json, depth: number): void {
    if (isPrimitive(value)) this.line(depth, `${encodeKey(key)}: ${this.primitive(value)}`);
    else if (Array.isArray(value)) this.array(key, value, depth);
    else {
      const keyed = keyedTabularFields(value);
      if (keyed) return this.keyedObject(key, value, keyed, depth);
      this.line(depth, `${encodeKey(key)}:`);
      if (!isEmptyObject(value)) this.object(value, depth + 1);
    }
  }

  keyedObject(key: string | undefined, value: JsonObject, fields: Field[], depth: number): void {
    const keys = Object.keys(value);
    this.line(depth, this.header(keys.length, key, fields, true));
    this.keyedRows(value, keys, fields, depth + 1);
  }

  keyedRows(value: JsonObject, keys: string[], fields: Field[], depth: number): void {
    for (const k of keys) this.line(depth, `${encodeKey(k)}: ${this.joined(leaves(value[k], fields))}`);
  }

  array(key: string | undefined, value: Json[], depth: number): void {
    if (value.length === 0) return this.line(depth, key !== undefined ? `${encodeKey(key)}: []` : '[]');
    if (value.every(isPrimitive)) return this.line(depth, this.inlineArray(value, key));
    if (value.every((v) => Array.isArray(v)) && value.every((v) => (v as Json[]).every(isPrimitive))) {
      this.line(depth, this.header(value.length, key));
      for (const arr of value as Json[][]) this.item(depth + 1, this.inlineArray(arr));
      return;
    }
    if (value.every(isObject)) {
      const fields = tabularFields(value as JsonObject[]);
      if (fields) {
        this.line(depth, this.header(value.length, key, fields));
        return this.rows(value as JsonObject[], fields, depth + 1);
      }
    }
    this.line(depth, this.header(value.length, key));
    for (const item of value) this.listItem(item, depth + 1);
  }

  rows(rows: JsonObject[], fields: Field[], depth: number): void {
    const indent = this.indent(depth);
    const flat = fields.every((f) => !f.children);
    for (const row of rows) {
      if (!flat) {
        this.lines.push(indent + this.joined(leaves(row, fields)));
        continue;
      }
      let out = indent;
      for (let i = 0; i < fields.length; i++) {
        if (i) out += this.delimiter;
        out += this.primitive(row[fields[i].name] as null | boolean | number | string);
      }
      this.lines.push(out);
    }
  }

  listItem(value: Json, depth: number): void {
    if (isPrimitive(value)) this.item(depth, this.primitive(value));
    else if (Array.isArray(value)) {
      if (value.every(isPrimitive)) this.item(depth, this.inlineArray(value));
      else {
        this.item(depth, this.header(value.length));
        for (const v of value) this.listItem(v, depth + 1);
      }
    } else this.objectItem(value, depth);
  }

  objectItem(obj: JsonObject, depth: number): void {
    const keys = Object.keys(obj);
    if (keys.length === 0) return this.line(depth, '-');
    const [firstKey, ...rest] = keys;
    const first = obj[firstKey];
    const restLines = () => {
      for (const k of rest) this.keyValue(k, obj[k], depth + 1);
    };
    if (Array.isArray(first) && first.every(isObject)) {
      const fields = tabularFields(first as JsonObject[]);
      if (fields) {
        this.item(depth, this.header(first.length, firstKey, fields));
        this.rows(first as JsonObject[], fields, depth + 2);
        return restLines();
      }
    }
    if (isObject(first)) {
      const keyed = keyedTabularFields(first);
      if (keyed) {
        const firstKeys = Object.keys(first);
        this.item(depth, this.header(firstKeys.length, firstKey, keyed, true));
        this.keyedRows(first, firstKeys, keyed, depth + 2);
        return restLines();
      }
    }
    const key = encodeKey(firstKey);
    if (isPrimitive(first)) this.item(depth, `${key}: ${this.primitive(first)}`);
    else if (Array.isArray(first)) {
      if (first.length === 0) this.item(depth, `${key}: []`);
      else if (first.every(isPrimitive)) this.item(depth, `${key}${this.inlineArray(first)}`);
      else {
        this.item(depth, `${key}${this.header(first.length)}`);
        for (const v of first) this.listItem(v, depth + 2);
      }
    } else {
      this.item(depth, `${key}:`);
      if (!isEmptyObject(first)) this.object(first, depth + 2);
    }
    restLines();
  }
}

/** The columns of rows that make a table: every row the same keys, each column primitives or itself a table. */
function tabularFields(rows: JsonObject[]): Field[] | undefined {
  if (rows.length === 0) return undefined;
  const keys = Object.keys(rows[0]);
  if (keys.length === 0) return undefined;
  for (const row of rows) {
    if (Object.keys(row).length !== keys.length) return undefined;
    for (const key of keys) if (!Object.hasOwn(row, key)) return undefined;
  }
  const fields: Field[] = [];
  for (const key of keys) {
    const values = rows.map((row) => row[key]);
    if (values.every(isPrimitive)) {
      fields.push({ name: key });
      continue;
    }
    if (!values.every((v) => isObject(v) && !isEmptyObject(v))) return undefined;
    const children = tabularFields(values as JsonObject[]);
    if (!children) return undefined;
    fields.push({ name: key, children });
  }
  return fields;
}

/** An object of at least two non-empty objects with the same keys: written as a keyed table. */
function keyedTabularFields(value: JsonObject): Field[] | undefined {
  const values = Object.values(value);
  if (values.length < 2) return undefined;
  if (!values.every((v) => isObject(v) && !isEmptyObject(v))) return undefined;
  return tabularFields(values as JsonObject[]);
}

function leaves(row: Json, fields: Field[], out: Json[] = []): Json[] {
  for (const f of fields) {
    const v = (row as JsonObject)[f.name];
    if (f.children) leaves(v, f.children, out);
    else out.push(v);
  }
  return out;
}

/** The answer in TOON, two-space indents, cells separated by `delimiter`. */
export function encodeToon(data: unknown, delimiter: ToonDelimiter = ','): string {
  const w = new Writer(delimiter);
  w.value(normalize(data), 0);
  return w.lines.join('\n');
}
