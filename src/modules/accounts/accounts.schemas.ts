import { type Static, Type } from 'typebox';
import { Email, Id, Nullable, Str } from '../../kernel/schemas.ts';
import { Workspace } from '../workspace/workspace.routes.ts';

// APP.md A1: the bodies of /api/auth/* and the `me` object. Passwords are bounded
// generously here; their 10..200 characters are checked by the service, which
// words the problem.
const Password = Type.String({ minLength: 1, maxLength: 1000 });
const LinkToken = Type.String({ minLength: 1, maxLength: 200 });

export const Me = Type.Object({
  user: Type.Object({
    id: Type.String({ description: "The member's UUID (SPEC `user_id`)" }),
    first_name: Nullable(Type.String()),
    last_name: Nullable(Type.String()),
    email: Type.String(),
    role: Type.String(),
  }),
  workspace: Workspace,
  scopes: Type.Array(Type.String()),
  csrf_token: Type.Optional(Type.String({ description: 'Sessions only: send it as `X-CSRF-Token` on every POST, PUT, PATCH and DELETE' })),
  workspaces: Type.Array(Type.Object({ id: Id, name: Type.String(), role: Type.String() })),
});

export const SignInBody = Type.Object({ email: Str(254), password: Password });
export type SignInBody = Static<typeof SignInBody>;
export const ForgotBody = Type.Object({ email: Email });
export const ResetBody = Type.Object({ token: LinkToken, password: Password });
export const SetupBody = Type.Object({
  token: LinkToken,
  first_name: Type.Optional(Str(100)),
  last_name: Type.Optional(Str(100)),
  password: Type.Optional(Password),
});
export const TokenBody = Type.Object({ token: LinkToken });
export const SwitchBody = Type.Object({ workspace_id: Id });
export const ChangePasswordBody = Type.Object({ current_password: Password, new_password: Password });

export const SetupInfo = Type.Object({
  email: Type.String(),
  first_name: Nullable(Type.String()),
  last_name: Nullable(Type.String()),
  workspace: Type.Object({ id: Id, name: Type.String() }),
  has_password: Type.Boolean({ description: 'true: the person signs in and joins ("Join workspace"); false: they create their password' }),
});
