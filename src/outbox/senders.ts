import { createRequire } from 'node:module';
import type { Transporter } from 'nodemailer';

// nodemailer loads with the first email (an API-only process never carries it).
const require = createRequire(import.meta.url);
import type { Config } from '../config.ts';
import { fromJson } from '../db/json.ts';
import { httpPost } from './http-post.ts';
import type { MessageToSend } from './messages.ts';

// How the worker hands a customer message over: email to the SMTP server of
// SMTP_URL, SMS to the workspace's provider. Whatever happens becomes one result:
// sent, not sent (and why), or failed, temporarily (retried) or for good.

export type SendResult = { status: 'sent' } | { status: 'not_sent'; error: string } | { status: 'failed'; temporary: boolean; error: string };

export type SenderConfig = Pick<Config, 'smtpUrl' | 'mailFrom' | 'messageTimeout'>;

const short = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 500);

/**
 * SMTP: 5xx replies (and a message or address the client itself refuses) are
 * final; 4xx replies, refused or dropped connections and timeouts are temporary.
 */
function smtpFailure(err: unknown): SendResult {
  const e = err as { responseCode?: number; code?: string; response?: string; message?: string };
  const error = short(e.response || e.message || e.code || 'SMTP error');
  const final = (e.responseCode ?? 0) >= 500 || (!e.responseCode && (e.code === 'EENVELOPE' || e.code === 'EMESSAGE'));
  return { status: 'failed', temporary: !final, error: e.responseCode || !e.code ? error : `${e.code}: ${error}` };
}

export class Senders {
  private transport: Transporter | null = null;

  constructor(private readonly config: SenderConfig) {}

  send(m: MessageToSend): Promise<SendResult> {
    return m.channel === 'sms' ? this.sms(m) : this.email(m);
  }

  /** Without SMTP_URL the message stays in the log, marked not sent (README Configuration, F48). */
  private async email(m: MessageToSend): Promise<SendResult> {
    if (!this.config.smtpUrl) return { status: 'not_sent', error: 'SMTP_URL is not set: kept in the message log, not sent' };
    // An SMTPTransport, not createTransport({url, ...}): given a `url`, createTransport
    // keeps only what the URL says and drops the timeouts.
    const nodemailer: typeof import('nodemailer') = require('nodemailer');
    const SMTPTransport: typeof import('nodemailer/lib/smtp-transport/index.js') = require('nodemailer/lib/smtp-transport/index.js');
    this.transport ??= nodemailer.createTransport(
      new SMTPTransport({
        url: this.config.smtpUrl,
        connectionTimeout: this.config.messageTimeout,
        greetingTimeout: this.config.messageTimeout,
        socketTimeout: this.config.messageTimeout,
      }),
    );
    // nodemailer times each step; one budget for the whole attempt keeps it inside the
    // worker's lease (3 x MESSAGE_TIMEOUT + 5 s, worker.ts) even against a server that drips bytes.
    let deadline: NodeJS.Timeout | undefined;
    const overdue = new Promise<never>((_, reject) => {
      deadline = setTimeout(
        () => reject(Object.assign(new Error(`no answer within ${2 * this.config.messageTimeout} ms`), { code: 'ETIMEDOUT' })),
        2 * this.config.messageTimeout,
      );
    });
    try {
      const settings = fromJson<Record<string, unknown>>(m.settings);
      const replyTo = typeof settings?.reply_to === 'string' && settings.reply_to ? settings.reply_to : undefined;
      const sending = this.transport.sendMail({
        // E10: the workspace's name on MAIL_FROM's address; nodemailer quotes or encodes it.
        from: { name: m.workspace_name, address: this.mailFromAddress() },
        ...(replyTo ? { replyTo } : {}),
        to: m.recipient,
        subject: m.subject ?? '',
        text: m.body_text,
        html: m.body_html ?? undefined,
        // The same on every attempt: a copy sent twice (at least once) is recognisable.
        messageId: `<${m.message_id}@fieldwork>`,
      });
      sending.catch(() => {}); // settles after the deadline when the deadline won
      await Promise.race([sending, overdue]);
      return { status: 'sent' };
    } catch (err) {
      return smtpFailure(err);
    } finally {
      clearTimeout(deadline);
    }
  }

  private fromAddress: string | null = null;

  /** The address of MAIL_FROM ("Fieldwork <no-reply@localhost>" -> no-reply@localhost), parsed once. */
  private mailFromAddress(): string {
    if (this.fromAddress === null) {
      const addressparser: typeof import('nodemailer/lib/addressparser/index.js') = require('nodemailer/lib/addressparser/index.js');
      const [first] = addressparser(this.config.mailFrom, { flatten: true });
      this.fromAddress = first?.address || this.config.mailFrom.trim();
    }
    return this.fromAddress;
  }

  /** The provider is the workspace's `sms_provider`: `log` keeps the text here; a URL gets `{to, body}`. */
  private async sms(m: MessageToSend): Promise<SendResult> {
    const provider = fromJson<Record<string, unknown>>(m.settings)?.sms_provider;
    if (typeof provider !== 'string' || !/^https?:\/\//.test(provider)) {
      return {
        status: 'not_sent',
        error: provider === 'log' ? 'sms_provider is log: kept in the message log, not sent' : 'no SMS provider is configured (sms_provider)',
      };
    }
    // The provider is the operator's own choice (`workspace set`), so it may live on a private network.
    const r = await httpPost(
      provider,
      JSON.stringify({ to: m.recipient, body: m.body_text }),
      { 'content-type': 'application/json', 'user-agent': 'Fieldwork-SMS/1.0' },
      { timeoutMs: this.config.messageTimeout, allowPrivate: true },
    );
    if (r.ok) return { status: 'sent' };
    // A 4xx is the provider refusing this message; 408, 429, 5xx and no answer may pass later.
    const code = r.statusCode ?? 0;
    const final = code >= 400 && code < 500 && code !== 408 && code !== 429;
    return { status: 'failed', temporary: !final, error: `SMS provider: ${r.error ?? `HTTP ${code}`}` };
  }

  close(): void {
    this.transport?.close();
    this.transport = null;
  }
}
