import { createHash } from 'node:crypto';

/** API keys are stored as the SHA-256 of their token, never the token itself. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
