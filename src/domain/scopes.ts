// The one reading of a scope list, shared by the server's checks (src/http/auth.ts)
// and the app, which hides what a session's scopes do not allow (A2).

/**
 * `read` grants every `<x>:read`, `write` every `<x>:write`; anything else only
 * itself (F120: a bare `read` is not granted by `write`, nor `<x>:admin` by either,
 * nor a session-only scope).
 */
export function hasScope(scopes: readonly string[], required: string): boolean {
  if (scopes.includes(required)) return true;
  const access = required.slice(required.lastIndexOf(':') + 1);
  return required.includes(':') && (access === 'read' || access === 'write') && scopes.includes(access);
}
