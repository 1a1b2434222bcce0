export interface SessionRecord {
  tokenHash: string;
  userId: string;
  createdAt: string;
  expiresAt: string;
}

export interface SessionStore {
  insert(session: SessionRecord): Promise<void>;
  /** The session if it exists and has not expired at `now`. */
  findValid(tokenHash: string, now: string): Promise<SessionRecord | undefined>;
  /** Slides the expiry forward. */
  extend(tokenHash: string, expiresAt: string): Promise<void>;
  delete(tokenHash: string): Promise<void>;
  /** Ends every session of a user except `keep` (after a password change). */
  deleteAllForUser(userId: string, keep?: string): Promise<void>;
  insertInvite(codeHash: string, createdBy: string, at: string): Promise<void>;
  /** True when the invite exists and is unused (checked before a sign-up creates anything). */
  inviteUsable(codeHash: string): Promise<boolean>;
  /** Marks an unused invite used; false when it does not exist or was used. */
  redeemInvite(codeHash: string, usedBy: string, at: string): Promise<boolean>;
}
