import { createContext, useContext } from 'react';
import type { DashboardConfig, User } from '../../src/contract';

export interface Session {
  user: User;
  config: DashboardConfig;
  /** Replace the signed-in user (after a change) or end the session locally (null). */
  setUser: (user: User | null) => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}
