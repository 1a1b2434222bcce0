import type { Actor } from '../common/actor.js';
import { NotFoundError } from '../common/errors.js';

/** The person at the server's console (the CLI's in-process commands): every admin right, no account. */
export interface OperatorActor {
  readonly via: 'operator';
  readonly role: 'operator';
}

export const OPERATOR: OperatorActor = Object.freeze({ via: 'operator', role: 'operator' });

/** Who calls an account operation: a user (through a session or a key) or the operator. */
export type AccountActor = Actor | OperatorActor;

export const isOperator = (actor: AccountActor): actor is OperatorActor => actor.role === 'operator';

/**
 * The admin rule, checked here and nowhere else: every admin-only operation calls this first, before it
 * reads its input. Admin operations are hidden from everyone else, so the refusal is the same "not found"
 * an unknown route gets (nothing tells a user that an admin API exists).
 */
export function requireAdmin(actor: AccountActor): void {
  if (actor.role === 'admin' || actor.role === 'operator') return;
  throw new NotFoundError('Route');
}
