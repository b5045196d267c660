import fs from 'node:fs';
import formbody from '@fastify/formbody';
import { Eta } from 'eta';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { AppContext } from '../../http/context.ts';
import { rateLimiter } from '../../http/rate-limit.ts';
import { AppError, ValidationError } from '../../kernel/errors.ts';
import { hashToken } from '../../kernel/tokens.ts';
import {
  answerQuote,
  confirmHubEvent,
  homePage,
  hubDocument,
  HubLinkExpired,
  hubNotFound,
  hubRequest,
  invoicePage,
  type QuoteAnswer,
  quotePage,
  readAnswer,
  readRequest,
  requestPage,
} from './hub.service.ts';
import { sendPdf } from '../pdf/pdf.routes.ts';
import { invoicePdf, quotePdf } from '../pdf/pdf.service.ts';
import { filesFor } from '../uploads/files.ts';

export interface HubOptions extends AppContext {
  redis: Redis | null;
}

const VIEWS = new URL('./views/', import.meta.url).pathname;
const STYLESHEET = fs.readFileSync(new URL('./views/hub.css', import.meta.url), 'utf8');
const STYLESHEET_PATH = '/hub/hub.css';

/**
 * E8a: on every hub answer, pages, errors and the stylesheet alike. Nothing is
 * cached or indexed, no referrer leaks the token, and the pages run no script:
 * only the hub's own stylesheet, forms posting to the hub, no framing.
 */
const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
};

type Params = { token: string; id: string };

/** The plain pages of errors: they name no workspace and no document (E8a). */
const ERROR_PAGES: Record<number, { title: string; text: string }> = {
  400: { title: 'Something is missing', text: 'The form could not be read. Please go back and try again.' },
  404: { title: 'Page not found', text: 'This link has expired, was withdrawn, or the page does not exist. Please ask for a new link.' },
  409: { title: 'Already answered', text: 'This quote is no longer waiting for an answer, so nothing was changed.' },
  429: { title: 'Too many requests', text: 'Please wait a minute and try again.' },
  500: { title: 'Something went wrong', text: 'Please try again later.' },
};

/**
 * E8: the customer hub, server-rendered HTML, registered under the prefix /hub (not part of the API
 * document). Forms post as application/x-www-form-urlencoded or JSON; every
 * answer is a 303 back to a page (post/redirect/get).
 */
export async function hubRoutes(app: FastifyInstance, options: HubOptions) {
  const { db, config, redis } = options;
  const { storage } = filesFor(options); // the logo's bytes for PDFs (A125)
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  // The pages' templates, compiled once, rendered straight into the answer.
  const eta = new Eta({ views: VIEWS, autoEscape: true, cache: true });

  // HUB_RATE_LIMIT per token and per client address, by the limiter the API uses. The
  // token's hash: the counter (in this process or Redis) never holds a working token.
  const limiter = rateLimiter(config.hubRateLimit, redis, 'fieldwork-hub');

  app.addHook('onSend', (_req, reply, payload, done) => {
    reply.headers(SECURITY_HEADERS);
    done(null, payload);
  });
  app.addHook('onRequest', async (req, reply) => {
    if (req.routeOptions.url === STYLESHEET_PATH) return;
    const token = (req.params as Partial<Params>).token;
    const checks = [await limiter.hit(`ip:${req.ip}`)];
    if (token !== undefined) checks.push(await limiter.hit(`token:${hashToken(token)}`));
    const refused = checks.find((c) => !c.allowed);
    if (refused) {
      reply.header('retry-after', String(refused.resetSeconds));
      throw new AppError(429, 'Too many requests');
    }
  });

  const render = (reply: FastifyReply, status: number, page: string, data: Record<string, unknown>) =>
    reply.code(status).header('content-type', 'text/html; charset=utf-8').send(eta.render(page, data));

  const errorPage = (reply: FastifyReply, status: number, expired?: HubLinkExpired) => {
    // A64: an expired link's page names the business and how to reach it for a new one.
    if (expired) {
      const text = `This link has expired. Please ask ${expired.business} for a new link.`;
      return render(reply, 404, 'message', { title: 'Link expired', text, business: expired.business, businessLines: expired.businessLines });
    }
    const page = ERROR_PAGES[status] ?? ERROR_PAGES[status >= 500 ? 500 : 400];
    return render(reply, status, 'message', { title: page.title, text: page.text, business: null });
  };

  app.setNotFoundHandler((_req, reply) => errorPage(reply, 404));
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const status = err instanceof AppError ? err.status : (err.statusCode ?? 500);
    if (status >= 500) req.log.error({ err }, 'hub request failed');
    return errorPage(reply, status >= 400 && status < 600 ? status : 500, err instanceof HubLinkExpired ? err : undefined);
  });

  const hide = { schema: { hide: true } };
  const tokenOf = (req: FastifyRequest) => (req.params as Params).token;
  const base = (req: FastifyRequest) => `/hub/${encodeURIComponent(tokenOf(req))}`;

  app.get('/hub.css', hide, async (_req, reply) => reply.header('content-type', 'text/css; charset=utf-8').send(STYLESHEET));

  app.get('/:token', hide, async (req, reply) => render(reply, 200, 'home', { ...(await homePage(db, tokenOf(req))), base: base(req) }));

  app.get('/:token/quotes/:id', hide, async (req, reply) => {
    const { token, id } = req.params as Params;
    return render(reply, 200, 'quote', { ...(await quotePage(db, token, id)), base: base(req), error: null });
  });

  for (const answer of ['approve', 'request-changes', 'decline'] as const satisfies readonly QuoteAnswer[]) {
    app.post(`/:token/quotes/:id/${answer}`, hide, async (req, reply) => {
      const { token, id } = req.params as Params;
      let input: ReturnType<typeof readAnswer>;
      try {
        input = readAnswer(answer, req.body);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        // The quote page again (it 404s for anything the link does not open), with what was missing.
        const page = await quotePage(db, token, id);
        return render(reply, 400, 'quote', { ...page, base: base(req), error: { form: answer, text: err.details?.[0]?.message ?? 'Please check the form.' } });
      }
      await answerQuote(db, token, id, answer, input);
      return reply.code(303).header('location', `${base(req)}/quotes/${encodeURIComponent(id)}`).send();
    });
  }

  // E9 from the hub: only what the customer may see (a quote sent back for changes is no longer one).
  app.get('/:token/quotes/:id/pdf', hide, async (req, reply) => {
    const { token, id } = req.params as Params;
    const { hub, quote, changesRequested } = await hubDocument(db, token, 'quote', id);
    if (changesRequested) throw hubNotFound();
    return sendPdf(reply, await quotePdf(db, hub.workspaceId, quote.id, storage));
  });
  app.get('/:token/invoices/:id/pdf', hide, async (req, reply) => {
    const { token, id } = req.params as Params;
    const { hub, invoice } = await hubDocument(db, token, 'invoice', id);
    return sendPdf(reply, await invoicePdf(db, hub.workspaceId, invoice.id, storage));
  });

  app.get('/:token/invoices/:id', hide, async (req, reply) => {
    const { token, id } = req.params as Params;
    return render(reply, 200, 'invoice', { ...(await invoicePage(db, token, id)), base: base(req) });
  });

  app.post('/:token/events/:id/confirm', hide, async (req, reply) => {
    const { token, id } = req.params as Params;
    await confirmHubEvent(db, token, id);
    return reply.code(303).header('location', base(req)).send();
  });

  app.get('/:token/request', hide, async (req, reply) => {
    const sent = (req.query as { sent?: string }).sent;
    const page = await requestPage(db, tokenOf(req));
    return render(reply, 200, 'request', { ...page, base: base(req), sent: sent && /^\d{1,15}$/.test(sent) ? sent : null, error: null, values: {} });
  });

  app.post('/:token/request', hide, async (req, reply) => {
    const token = tokenOf(req);
    const values = typeof req.body === 'object' && req.body ? req.body : {};
    try {
      const number = await hubRequest(db, token, readRequest(req.body));
      return reply.code(303).header('location', `${base(req)}/request?sent=${number}`).send();
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const page = await requestPage(db, token);
      // D23: a required field of the workspace this form cannot ask for is the business's to fix.
      const custom = err.details?.some((d) => d.path[0] === 'custom_fields');
      const text = custom
        ? 'Your request could not be sent online: this business needs details this form does not ask for. Please contact them directly.'
        : (err.details?.[0]?.message ?? 'Please check the form.');
      return render(reply, 400, 'request', { ...page, base: base(req), sent: null, error: text, values });
    }
  });
}
