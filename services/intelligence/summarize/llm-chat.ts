import { z } from 'zod';
import { NetError } from '../../net/errors';
import { postToModelServer } from '../http-json';
import { patientFetch } from '../patient-fetch';

/**
 * One conversation with an OpenAI-compatible chat server (POST {LLM_URL}/v1/chat/completions) that
 * must answer JSON. The answer is constrained by a JSON schema (`response_format: json_schema`); a
 * server that refuses that form (an older llama.cpp, a proxy) is asked again with `json_object` and
 * the schema written into the system message, and every later call of the same run uses that form.
 * Every call is capped at `maxTokens` answer tokens: a small model can repeat itself forever. Calls
 * wait for the answer as long as LLM_TIMEOUT says, however long that is (patient-fetch.ts).
 */
export interface ChatSettings {
  url: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
  maxTokens: number;
  fetchImpl?: typeof fetch;
}

export type ResponseFormat = 'json_schema' | 'json_object';

/** What a run of calls cost, summed over its calls. */
export interface ChatUsage {
  calls: number;
  prompt_tokens: number;
  completion_tokens: number;
  response_format: ResponseFormat;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

const completion = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullable().optional(), refusal: z.string().nullable().optional() }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
  usage: z
    .object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() })
    .nullable()
    .optional(),
});

/** Answer statuses that mean "this request's form is not accepted", not "the server is broken". */
const REFUSED_FORM = new Set([400, 415, 422, 501]);

export function newUsage(): ChatUsage {
  return { calls: 0, prompt_tokens: 0, completion_tokens: 0, response_format: 'json_schema' };
}

/** Some servers wrap JSON in a Markdown fence even in JSON mode. */
function unfence(content: string): string {
  const m = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(content);
  return m ? m[1] : content;
}

export interface JsonAnswer {
  /** The message content as the model wrote it (sent back when the model is asked again). */
  content: string;
  /** The parsed JSON, or undefined with `error` saying why it is not JSON. */
  json?: unknown;
  error?: string;
}

/**
 * One call: the messages, answered as JSON fitting `schema`. Network and status failures throw the
 * model server's NetError (retryable or not); an answer that is not JSON comes back with `error`.
 */
export async function askJson(
  chat: ChatSettings,
  usage: ChatUsage,
  messages: readonly ChatMessage[],
  schema: { name: string; schema: object },
): Promise<JsonAnswer> {
  const send = (format: ResponseFormat) => {
    const response_format =
      format === 'json_schema'
        ? { type: 'json_schema', json_schema: { name: schema.name, strict: true, schema: schema.schema } }
        : { type: 'json_object' };
    const msgs =
      format === 'json_schema'
        ? messages
        : [
            {
              role: 'system' as const,
              content: `${messages[0]?.content ?? ''}\nThe JSON must fit this JSON Schema: ${JSON.stringify(schema.schema)}`,
            },
            ...messages.slice(1),
          ];
    const body = {
      model: chat.model,
      temperature: 0,
      max_tokens: chat.maxTokens,
      messages: msgs,
      response_format,
    };
    return postToModelServer('The chat model', chat, 'chat/completions', JSON.stringify(body), {
      timeoutMs: chat.timeoutMs,
      headers: { 'content-type': 'application/json' },
      fetchImpl: chat.fetchImpl ?? patientFetch,
    });
  };

  let raw: unknown;
  try {
    usage.calls++;
    raw = await send(usage.response_format);
  } catch (e) {
    const status = e instanceof NetError ? e.status : undefined;
    if (usage.response_format !== 'json_schema' || status === undefined || !REFUSED_FORM.has(status)) throw e;
    usage.response_format = 'json_object';
    usage.calls++;
    raw = await send('json_object');
  }
  const parsed = completion.safeParse(raw);
  if (!parsed.success) throw badReply('the reply has no choices[0].message');
  // Counts as whole tokens: a server's odd figure must not stop the run from being recorded.
  const count = (n: number | undefined) => (n !== undefined && n > 0 ? Math.round(n) : 0);
  usage.prompt_tokens += count(parsed.data.usage?.prompt_tokens);
  usage.completion_tokens += count(parsed.data.usage?.completion_tokens);
  const choice = parsed.data.choices[0];
  if (choice.message.refusal) throw badReply(`the model refused: ${choice.message.refusal.slice(0, 200)}`);
  const content = choice.message.content ?? '';
  try {
    return { content, json: JSON.parse(unfence(content)) };
  } catch {
    const cut = choice.finish_reason === 'length' ? ` (cut at the limit of ${chat.maxTokens} answer tokens)` : '';
    return { content, error: `the answer is not valid JSON${cut}` };
  }
}

export function badReply(why: string): NetError {
  return new NetError(`The chat model at LLM_URL gave an unusable summary: ${why}`, {
    retryable: false,
    rule: 'upstream_format',
    code: 'internal_error',
  });
}

/** The model answered, but nothing usable: asking the same server again the same way will not help. */
export function isUnusableAnswer(e: unknown): boolean {
  return e instanceof NetError && e.details.rule === 'upstream_format';
}
