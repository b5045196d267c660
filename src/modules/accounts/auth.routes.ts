import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { Type } from 'typebox';
import type { AuthContext } from '../../http/auth.ts';
import type { AppContext } from '../../http/context.ts';
import { setSessionCookie, sessionToken } from '../../http/sessions.ts';
import { AppError } from '../../kernel/errors.ts';
import { Ok } from '../../kernel/schemas.ts';
import { ChangePasswordBody, ForgotBody, Me, ResetBody, SetupBody, SetupInfo, SignInBody, SwitchBody, TokenBody } from './accounts.schemas.ts';
import { changePassword, forgotPassword, normalEmail, type Me as MeView, resetPassword, setup, setupInfo, signIn, signOutEverywhere, switchWorkspace } from './accounts.service.ts';
import { deleteSession } from '../../db/sessions.ts';
import { signInLimiter, TooManyAttempts } from './sign-in-limiter.ts';

export const FORGOT_ANSWER = 'If an account exists for that email, we sent a link';

/**
 * APP.md A1 `/api/auth/*`: JSON only (415 otherwise), refused (403) from any
 * Origin but PUBLIC_URL's, errors in the SPEC envelope. Outside the
 * authenticated plugin: sign-in and the links have no session yet; the routes
 * that need one read it through the same SessionAuthenticator (CSRF included).
 */
export async function authRoutes(fastify: FastifyInstance, ctx: AppContext & { redis: Redis | null }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, sessions } = ctx;
  const limiter = signInLimiter(ctx.redis);
  // A17: reset emails are counted like failed sign-ins, so the form cannot flood an inbox.
  const resets = signInLimiter(ctx.redis, 'fieldwork-reset');
  const origin = new URL(config.publicUrl).origin;

  app.addHook('onRequest', async (request) => {
    const from = request.headers.origin;
    if (from !== undefined && from !== origin) throw new AppError(403, 'Origin not allowed');
    const type = request.headers['content-type'];
    // A bodiless POST may omit the type; anything sent as another type is refused, empty or not.
    if (type !== undefined && !/^application\/json\s*(;|$)/i.test(type)) throw new AppError(415, 'Unsupported content type');
  });

  const tags = ['Auth'];
  const errors = (...statuses: number[]) => ({ errors: [403, 415, ...statuses] });
  const signedIn = (reply: FastifyReply, result: { token: string; me: MeView }) => {
    setSessionCookie(reply, sessions.settings, result.token);
    return reply.code(200).send({ success: true as const, data: result.me });
  };
  const session = (request: FastifyRequest): Promise<AuthContext> => sessions.fromRequest(request);

  app.post(
    '/sign-in',
    {
      config: errors(401, 429),
      schema: { operationId: 'signIn', tags, summary: 'Sign in with email and password (sets the session cookie)', security: [], body: SignInBody, response: { 200: Ok(Me) } },
    },
    async (req, reply) => {
      try {
        return signedIn(reply, await signIn(ctx, limiter, { email: req.body.email, password: req.body.password, ip: req.ip }));
      } catch (err) {
        if (err instanceof TooManyAttempts) reply.header('retry-after', String(err.retryAfterSeconds));
        throw err;
      }
    },
  );

  app.post(
    '/sign-out',
    { config: errors(), schema: { operationId: 'signOut', tags, summary: 'End this session (clears the cookie)', security: [], response: { 200: Ok(Type.Object({ signed_out: Type.Boolean() })) } } },
    async (req, reply) => {
      // Already signed out (no cookie, or an expired session) is a success too; a live session must show its CSRF token.
      if (sessionToken(req) !== null) {
        const auth = await session(req).catch((err: unknown) => {
          if (err instanceof AppError && err.status === 401) return null;
          throw err;
        });
        if (auth?.session) await deleteSession(db, auth.session.id);
      }
      setSessionCookie(reply, sessions.settings, null);
      return { success: true as const, data: { signed_out: true } };
    },
  );

  app.post(
    '/sign-out-everywhere',
    { config: errors(401), schema: { operationId: 'signOutEverywhere', tags, summary: "End every session of the signed-in person", security: [], response: { 200: Ok(Type.Object({ signed_out: Type.Boolean() })) } } },
    async (req, reply) => {
      await signOutEverywhere(db, await session(req));
      setSessionCookie(reply, sessions.settings, null);
      return { success: true as const, data: { signed_out: true } };
    },
  );

  app.post(
    '/forgot-password',
    {
      config: errors(),
      schema: { operationId: 'forgotPassword', tags, summary: 'Email a password reset link (the same answer for any email)', security: [], body: ForgotBody, response: { 200: Ok(Type.Object({ message: Type.String() })) } },
    },
    async (req) => {
      const email = normalEmail(req.body.email);
      // Past the limit the answer stays the same (no enumeration), and nothing is sent.
      const allowed = await resets.check(email, req.ip).then(
        () => true,
        (err: unknown) => (err instanceof TooManyAttempts ? false : Promise.reject(err)),
      );
      await resets.failed(email, req.ip);
      if (allowed) await forgotPassword(ctx, email);
      return { success: true as const, data: { message: FORGOT_ANSWER } };
    },
  );

  app.post(
    '/reset-password',
    { config: errors(), schema: { operationId: 'resetPassword', tags, summary: "Set a new password from a reset link; ends the person's other sessions and signs in", security: [], body: ResetBody, response: { 200: Ok(Me) } } },
    async (req, reply) => signedIn(reply, await resetPassword(ctx, req.body)),
  );

  app.post(
    '/setup-info',
    { config: errors(), schema: { operationId: 'getSetupLink', tags, summary: 'What a setup link is for: its person, workspace and whether they already have a password', security: [], body: TokenBody, response: { 200: Ok(SetupInfo) } } },
    async (req) => ({ success: true as const, data: await setupInfo(db, req.body.token) }),
  );

  app.post(
    '/setup',
    {
      config: errors(401),
      schema: {
        operationId: 'setUpAccount',
        description: 'Without a password yet: `first_name`, `last_name` and `password` create it and sign in. With one: sign in first, then send only `token` to join the workspace ("Join workspace").',
        tags,
        summary: 'Use a setup link',
        security: [],
        body: SetupBody,
        response: { 200: Ok(Me) },
      },
    },
    async (req, reply) => {
      const current = () =>
        sessionToken(req) === null ? Promise.resolve(null) : session(req).catch((err: unknown) => (err instanceof AppError && err.status === 401 ? null : Promise.reject(err)));
      const result = await setup(ctx, req.body, current);
      return 'token' in result ? signedIn(reply, result) : reply.code(200).send({ success: true as const, data: result });
    },
  );

  app.post(
    '/switch-workspace',
    { config: errors(401, 404), schema: { operationId: 'switchWorkspace', tags, summary: "Act in another of the person's workspaces", security: [], body: SwitchBody, response: { 200: Ok(Me) } } },
    async (req) => ({ success: true as const, data: await switchWorkspace(db, await session(req), req.body.workspace_id) }),
  );

  app.post(
    '/change-password',
    {
      config: errors(401),
      schema: { operationId: 'changePassword', tags, summary: "Change the signed-in person's password; ends their other sessions", security: [], body: ChangePasswordBody, response: { 200: Ok(Type.Object({ changed: Type.Boolean() })) } },
    },
    async (req) => {
      await changePassword(db, await session(req), req.body);
      return { success: true as const, data: { changed: true } };
    },
  );
}
