import {
  type AuthInfo,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Container } from '../container.js';
import type { Actor } from '../domain/common/actor.js';
import { ValidationError } from '../domain/common/errors.js';
import { checkInput } from '../domain/common/validation.js';
import { type FailureLog, guarded, mcpErrors } from './errors.js';
import { getPrompt, listPrompts, promptNotFound } from './prompts.js';
import { listResources, RESOURCE_TEMPLATES, readResource, resourceNotFound } from './resources.js';
import type { ToolDefinition } from './tool.js';
import { artifactTools } from './tools/artifact-tools.js';
import { contextTools } from './tools/context-tools.js';
import { memoryHistoryTools } from './tools/memory-history-tools.js';
import { memoryTools } from './tools/memory-tools.js';
import { promptTools } from './tools/prompt-tools.js';

export const SERVER_INFO = { name: 'cairn', title: 'Cairn', version: '0.1.0' };

const INSTRUCTIONS =
  'Cairn holds the user’s reusable context. At the start of a session or task, call svc_get_context with the ' +
  'project_name and a sentence describing the task: it returns the pinned and relevant memories, the prompts ' +
  'and the project’s documents in one bounded answer. Search for more with svc_search_memories; save lasting ' +
  'decisions with svc_create_memory. Lists stay within max_chars: items marked truncated are previews (read ' +
  'them whole with svc_get_memory, svc_get_prompt or svc_get_artifact), and next_cursor continues a list. ' +
  'Prompts are also MCP prompts; documents also artifact:// resources.';

/** JSON Schema of a tool's input or output, as MCP expects it (always an object schema). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output') {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return { type: 'object', ...rest } as { type: 'object'; [key: string]: unknown };
}

/** The SDK's own check of a request's params, answered as invalid params (see `mcpErrors.params`). */
class CairnServer extends Server {
  protected override _wrapHandler(
    method: string,
    handler: Parameters<Server['_wrapHandler']>[1],
  ): ReturnType<Server['_wrapHandler']> {
    const inner = super._wrapHandler(method, handler);
    return async (request, context) => {
      try {
        return await inner(request, context);
      } catch (error) {
        throw mcpErrors.params(method, error);
      }
    };
  }
}

/** What the HTTP endpoint puts in `authInfo.extra`: the authenticated caller and where failures are logged. */
export interface Caller {
  actor: Actor;
  log: FailureLog;
}

/** The caller of one request, from the `authInfo` its transport handed over with the message. */
export function callerOf(authInfo: AuthInfo | undefined): Caller {
  const actor = authInfo?.extra?.actor as Actor | undefined;
  const log = authInfo?.extra?.log as FailureLog | undefined;
  if (!actor || !log) throw new Error('MCP request reached the server without an authenticated actor');
  return { actor, log };
}

const callerIn = (context: ServerContext) => callerOf(context.http?.authInfo);

/**
 * A server factory: the tool catalog with its JSON schemas is built once, and every server it makes has
 * the same handlers, which take the caller from each request's context (never from the server), so one
 * server can serve many callers' requests at once as well as one.
 */
export function serverFactory(container: Container): () => Server {
  const tools: ToolDefinition[] = [
    ...contextTools,
    ...memoryTools,
    ...memoryHistoryTools,
    ...promptTools,
    ...artifactTools,
  ];
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const toolList = tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, 'input'),
    outputSchema: jsonSchema(tool.output, 'output'),
    annotations: tool.annotations,
  }));
  const { services } = container;

  return () => {
    const server = new CairnServer(SERVER_INFO, {
      capabilities: { tools: {}, prompts: {}, resources: {} },
      instructions: INSTRUCTIONS,
    });
    server.setRequestHandler('tools/list', async () => ({ tools: toolList }));
    server.setRequestHandler('tools/call', async (request, context) => {
      const { actor, log } = callerIn(context);
      const tool = byName.get(request.params.name);
      if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      // The same input budget and bounds as REST (checkInput), before the tool's own schema runs.
      const parsed = checkInput(tool.input, request.params.arguments ?? {}, 'arguments');
      if (!parsed.success) return mcpErrors.tool(new ValidationError(parsed.details), log);
      try {
        const { structured, text } = await tool.run(services, actor, parsed.data);
        return { content: [{ type: 'text' as const, text }], structuredContent: structured };
      } catch (error) {
        return mcpErrors.tool(error, log);
      }
    });
    server.setRequestHandler('prompts/list', async (request, context) => {
      const { actor, log } = callerIn(context);
      return guarded(log, () => listPrompts(services, actor, request.params?.cursor));
    });
    server.setRequestHandler('prompts/get', async (request, context) => {
      const { actor, log } = callerIn(context);
      return guarded(
        log,
        () => getPrompt(services, actor, request.params.name, request.params.arguments ?? {}),
        () => promptNotFound(request.params.name),
      );
    });
    server.setRequestHandler('resources/list', async (request, context) => {
      const { actor, log } = callerIn(context);
      return guarded(log, () => listResources(services, actor, request.params?.cursor));
    });
    server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
    server.setRequestHandler('resources/read', async (request, context) => {
      const { actor, log } = callerIn(context);
      return guarded(
        log,
        () => readResource(services, actor, request.params.uri),
        () => resourceNotFound(request.params.uri),
      );
    });
    return server;
  };
}
