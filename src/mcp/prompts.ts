import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Container } from '../container.js';
import type { Actor } from '../domain/common/actor.js';
import { nextCursor } from '../domain/common/pagination.js';
import { isValidSlug } from '../domain/common/slug.js';
import { EnvironmentNotSetError } from '../domain/prompts/prompt-environments.js';
import { promptArguments } from '../domain/prompts/variables.js';
import { offsetOfCursor } from './errors.js';

type Services = Container['services'];
const PAGE = 100;

/** MCP prompts: the user's prompts with `available_in_mcp`, one argument per variable. */
export async function listPrompts(services: Services, actor: Actor, cursor: string | undefined) {
  const offset = offsetOfCursor(cursor);
  const page = await services.prompts.listForMcp(actor, { offset, limit: PAGE });
  const prompts = page.items.map((prompt) => ({
    name: prompt.slug,
    title: prompt.title,
    description: prompt.description || prompt.title,
    arguments: promptArguments(prompt),
  }));
  const next = nextCursor(offset, PAGE, page.total);
  return { prompts, ...(next !== undefined && { nextCursor: next }) };
}

/**
 * `prompts/get`: the prompt rendered (variables substituted, references expanded) as one user message.
 * A required argument (as `prompts/list` announces it) without a value is -32602, as the spec asks.
 * Otherwise not strict: a variable of a referenced prompt without a value stays as written, and so does a
 * reference that cannot be expanded (missing target, cycle, too deep) — a listed prompt is always usable.
 * Values outside an enum and a render over the size budget are still refused.
 */
export async function getPrompt(services: Services, actor: Actor, name: string, args: Record<string, string>) {
  // `slug@environment` names an environment (`@` is never part of a slug); a bare slug is served through
  // the server's default environment when the prompt has it, else as its latest version.
  const at = name.indexOf('@');
  const slug = at < 0 ? name : name.slice(0, at);
  const environment = at < 0 ? undefined : name.slice(at + 1);
  if (environment !== undefined && !isValidSlug(environment)) throw promptNotFound(name);
  let rendered: Awaited<ReturnType<Services['prompts']['render']>>;
  try {
    rendered = await services.prompts.render(
      actor,
      slug,
      { variables: args, strict: false },
      { mcpOnly: true, brokenReferences: 'keep', requireArguments: true, environment, useDefaultEnvironment: true },
    );
  } catch (error) {
    if (error instanceof EnvironmentNotSetError)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
    throw error;
  }
  return {
    description: rendered.prompt.description || rendered.prompt.title,
    messages: [{ role: 'user' as const, content: { type: 'text' as const, text: rendered.content } }],
  };
}

/** `prompts/get`'s answer to a name that is not one of the user's MCP prompts (-32602, as the spec asks). */
export const promptNotFound = (name: string) =>
  // Echoed at most slug-length (plus a little): a hostile name is not sent back whole.
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Prompt not found: ${name.length > 200 ? `${name.slice(0, 200)}…` : name}`,
  );
