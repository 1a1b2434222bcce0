import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Container } from '../container.js';
import type { Actor } from '../domain/actor.js';
import { DomainError, NotFoundError } from '../domain/errors.js';

type Services = Container['services'];
const PAGE = 100;

const cursorOffset = (cursor: string | undefined): number => {
  if (cursor === undefined) return 0;
  if (!/^\d{1,9}$/.test(cursor)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
  return Number(cursor);
};

/** MCP prompts: the user's prompts with `available_in_mcp`, one argument per variable. */
export async function listPrompts(services: Services, actor: Actor, cursor: string | undefined) {
  const offset = cursorOffset(cursor);
  const page = await services.prompts.listForMcp(actor, { offset, limit: PAGE });
  const prompts = page.items.map((prompt) => ({
    name: prompt.slug,
    title: prompt.title,
    description: prompt.description || prompt.title,
    arguments: prompt.variables.map((name) => ({ name, required: true })),
  }));
  return { prompts, ...(offset + PAGE < page.total && { nextCursor: String(offset + PAGE) }) };
}

/** `prompts/get`: the prompt rendered (variables substituted, references expanded) as one user message. */
export async function getPrompt(services: Services, actor: Actor, name: string, args: Record<string, string>) {
  try {
    const rendered = await services.prompts.render(actor, name, args, { mcpOnly: true });
    return {
      description: rendered.prompt.description || rendered.prompt.title,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: rendered.content } }],
    };
  } catch (error) {
    if (error instanceof NotFoundError)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt not found: ${name}`);
    if (error instanceof DomainError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
    throw error;
  }
}
