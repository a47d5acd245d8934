/**
 * The MCP server. Stateless: a new SDK Server and transport per HTTP request (a shared one leaked
 * responses between clients, GHSA-345p-7cg4-v4c7), while the tool table, JSON Schemas and validators
 * are built once per process.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import {
  CallToolRequestSchema,
  ErrorCode as RpcError,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { requireFlag, requireScope, type Principal } from '../core/access';
import { readingAs } from '../core/audit';
import { ServiceError, toServiceError } from '../platform/errors';
import { logger } from '../platform/logger';
import { mcpToolCalls, mcpToolDuration } from '../platform/metrics';
import { Format, formatParam, render } from './format';
import { inputSchemaOf, listedOutputSchema } from './schema';
import { requireStorableArguments } from './tool';
import type { Deps, ToolDef } from './tool';
import { ALL_TOOLS } from './tools';
import { RELEASE } from '../platform/release';

export const SERVER_INFO = { name: 'meeting-intelligence', version: RELEASE };

const INSTRUCTIONS =
  "Tools over the signed-in user's meetings: find meetings (svc_get_transcripts: keywords, or a question in the user's own words), " +
  'read one transcript (svc_get_transcript, paged) or its notes (svc_get_summary), action items across meetings (svc_get_action_items), ' +
  'manage sharing, titles, privacy and channels, soundbites, people, analytics, automation logs and changes since a cursor. ' +
  'Conventions of every tool: a meeting id and its transcript id are the same. Answers are TOON text by default (format json or text where offered), ' +
  "with the same data as JSON structuredContent. Lists say has_more; while it is true, call again with the same arguments and the page's " +
  'next_skip (as skip), next_cursor (as cursor), next_index (as fromIndex) or next_offset (as offset). Dates YYYY-MM-DD are UTC days, inclusive; ' +
  'times inside a meeting are seconds from its start. Cite a moment as [meeting title, mm:ss](link), mm:ss being its start_time, and quote its sentence. ' +
  'What you may not see is object_not_found; what you may see but not change is forbidden. docs/tools.md has the fields of every answer and examples.';

interface CompiledTool {
  def: ToolDef;
  validator: z.ZodObject;
  listing: {
    name: string;
    title: string;
    description: string;
    inputSchema: Record<string, unknown>;
    outputSchema?: Record<string, unknown>;
    annotations: Record<string, unknown>;
  };
}

function compile(def: ToolDef): CompiledTool {
  const shape = def.formats ? { ...def.input, format: formatParam } : def.input;
  const validator = z.object(shape).strict();
  return {
    def,
    validator,
    listing: {
      name: def.name,
      title: def.title,
      description: def.description,
      inputSchema: inputSchemaOf(validator),
      ...(def.output ? { outputSchema: listedOutputSchema(def.output) } : {}),
      annotations: { title: def.title, ...def.annotations },
    },
  };
}

const TOOLS = new Map<string, CompiledTool>(ALL_TOOLS.map((t) => [t.name, compile(t)]));

/** The OAuth scope a tool needs, or undefined for an unknown tool (checked before the SDK sees the call). */
export function toolScope(name: string): ToolDef['scope'] | undefined {
  return TOOLS.get(name)?.def.scope;
}

/** Tools a caller sees: experimental ones only when the team has their flag. */
export function toolsFor(principal: Principal): CompiledTool[] {
  return [...TOOLS.values()].filter((t) => !t.def.flag || principal.flags.includes(t.def.flag));
}

/** The first validation problem, as an error naming the field and the rule. */
function argumentError(error: z.ZodError): ServiceError {
  const issue = error.issues[0];
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.join(', ');
    return new ServiceError('invalid_arguments', `unknown parameter ${keys}; see the tool's input schema`, {
      field: issue.keys[0],
      rule: 'unknown parameter',
    });
  }
  const field = issue.path.join('.') || '(arguments)';
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return new ServiceError('args_required', `${field} is required`, { field, rule: 'required' });
  }
  return new ServiceError('invalid_arguments', `${field}: ${issue.message}`, { field, rule: issue.message });
}

function errorResult(e: ServiceError, format: Format) {
  const body = { error: e.toJSON() };
  return {
    isError: true,
    content: [{ type: 'text' as const, text: render(body, format === 'text' ? 'toon' : format) }],
  };
}

export async function callTool(name: string, args: unknown, principal: Principal, deps: Deps) {
  const tool = TOOLS.get(name);
  if (!tool) throw new McpError(RpcError.InvalidParams, `Unknown tool: ${name}`);
  const started = process.hrtime.bigint();
  let format: Format = 'toon';
  let outcome = 'ok';
  try {
    if (tool.def.flag) requireFlag(principal, tool.def.flag, name);
    requireScope(principal, tool.def.scope);
    requireStorableArguments(args);
    const parsed = tool.validator.safeParse(args ?? {}, { reportInput: true });
    if (!parsed.success) throw argumentError(parsed.error);
    const { format: f, ...rest } = parsed.data as { format?: Format };
    format = f ?? 'toon';
    // Meetings the tool reads are recorded in the read audit under its name (core records them).
    const result = await tool.def.run(rest, { principal: readingAs(principal, `mcp:${name}`), deps, format });
    const text = render(result, format, tool.def.text, tool.def.toonDelimiter);
    // The structured form beside the text (MCP structured tool output): the answer as JSON, which
    // the client checks against the tool's outputSchema. The text stays what the format asks for.
    return {
      content: [{ type: 'text' as const, text }],
      ...(tool.def.output ? { structuredContent: result as Record<string, unknown> } : {}),
    };
  } catch (e) {
    const err = toServiceError(e);
    outcome = err.code;
    if (err.code === 'internal_error') (deps.log ?? logger).error({ err: e, tool: name }, 'tool failed');
    return errorResult(err, format);
  } finally {
    mcpToolCalls.inc({ tool: name, outcome });
    mcpToolDuration.observe({ tool: name }, Number(process.hrtime.bigint() - started) / 1e9);
  }
}

/** One validator for the process: the SDK would build a new Ajv instance for every per-request Server. */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

export function createMcpServer(principal: Principal, deps: Deps): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: SHARED_VALIDATOR,
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolsFor(principal).map((t) => t.listing) }));
  server.setRequestHandler(CallToolRequestSchema, async (req) =>
    callTool(req.params.name, req.params.arguments, principal, deps),
  );
  return server;
}
