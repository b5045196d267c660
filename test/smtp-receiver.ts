import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { SMTPServer } from 'smtp-server';

// Real servers on 127.0.0.1 for the customer-message tests: an SMTP server
// (npm smtp-server) whose answers a test scripts, a TCP server that accepts and
// never greets, a port nobody listens on, and an HTTP "SMS provider" answering
// a scripted list of statuses.

/** One DATA the SMTP server read, accepted or answered with an error. */
export interface ReceivedMail {
  /** MAIL FROM */
  from: string;
  /** RCPT TO (the accepted ones) */
  to: string[];
  raw: string;
  accepted: boolean;
  /** Set once the server has answered the DATA: was the client still connected to hear it? */
  answeredConnected?: boolean;
}

/** An SMTP reply a test wants instead of the normal one. */
export interface SmtpReply {
  code: number;
  message: string;
}

export interface SmtpBehaviour {
  /** Answer to the n-th RCPT TO (1-based, over the server's life): null accepts. */
  rcpt?: (n: number, address: string) => SmtpReply | null;
  /** Answer to the n-th DATA (after the message is read): null accepts. */
  data?: (n: number) => SmtpReply | null;
  /** How long the server takes to answer a DATA once it has read the message. */
  dataReplyDelayMs?: number;
}

export interface SmtpReceiver {
  url: string;
  port: number;
  /** Every DATA read, in order. */
  mails: ReceivedMail[];
  /** Every RCPT TO address seen, accepted or not. */
  rcpts: string[];
  /** TCP connections made to the server. */
  connections: number;
  close: () => Promise<void>;
}

const refusal = (r: SmtpReply) => Object.assign(new Error(r.message), { responseCode: r.code });

export async function startSmtpReceiver(behaviour: SmtpBehaviour = {}): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const rcpts: string[] = [];
  let dataCount = 0;
  const state = { connections: 0 };
  const closed = new Set<string>();
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    closeTimeout: 200,
    onConnect(_session, callback) {
      state.connections++;
      callback();
    },
    onClose(session, callback) {
      closed.add(session.id);
      callback?.(null);
    },
    onRcptTo(address, _session, callback) {
      rcpts.push(address.address);
      const reply = behaviour.rcpt?.(rcpts.length, address.address) ?? null;
      callback(reply ? refusal(reply) : null);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const reply = behaviour.data?.(++dataCount) ?? null;
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((a) => a.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          accepted: !reply,
        };
        mails.push(mail);
        const answer = () => {
          mail.answeredConnected = !closed.has(session.id);
          callback(reply ? refusal(reply) : null);
        };
        if (behaviour.dataReplyDelayMs) setTimeout(answer, behaviour.dataReplyDelayMs);
        else answer();
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    mails,
    rcpts,
    get connections() {
      return state.connections;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Accepts TCP connections and never says a word (no SMTP greeting). */
export interface SilentServer {
  url: string;
  port: number;
  /** When each connection came in (ms since the epoch). */
  connectedAt: number[];
  /** When each connection was closed by the client. */
  closedAt: number[];
  /** Connections still open. */
  readonly open: number;
  close: () => Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<net.Socket>();
  const connectedAt: number[] = [];
  const closedAt: number[] = [];
  let closing = false;
  const server = net.createServer((socket) => {
    connectedAt.push(Date.now());
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => {
      sockets.delete(socket);
      if (!closing) closedAt.push(Date.now());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    connectedAt,
    closedAt,
    get open() {
      return sockets.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port that was free a moment ago and has nobody listening: connecting is refused. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface StatusRequest {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: { to: string; body: string };
}

export interface StatusServer {
  url: string;
  requests: StatusRequest[];
  close: () => Promise<void>;
}

/** An HTTP SMS provider answering the n-th request with `statuses[n - 1]` (the last one repeats). */
export async function startStatusServer(statuses: number[]): Promise<StatusServer> {
  const requests: StatusRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      requests.push({ headers: req.headers, raw, body: JSON.parse(raw || 'null') });
      const status = statuses[Math.min(requests.length, statuses.length) - 1];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ status }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sms`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// A small MIME reader (mailparser is not installed): headers unfolded, parts
// split on their boundaries, quoted-printable and base64 decoded.

export interface MimePart {
  headers: Record<string, string>;
  contentType: string;
  body: string;
  parts: MimePart[];
}

function decode(body: string, encoding: string | undefined): string {
  const enc = (encoding ?? '7bit').toLowerCase();
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (enc === 'quoted-printable') {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => `%${h}`);
    // Percent-decode byte sequences (utf-8); escape literal % first.
    return decodeURIComponent(bytes.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
  }
  return body;
}

export function parseMime(raw: string): MimePart {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  const rest = split < 0 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  const contentType = (headers['content-type'] ?? 'text/plain').split(';')[0].trim().toLowerCase();
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (contentType.startsWith('multipart/') && boundary) {
    const sections = rest.split(`--${boundary}`);
    const parts = sections
      .slice(1)
      .filter((s) => !s.startsWith('--'))
      .map((s) => parseMime(s.replace(/^\r?\n/, '').replace(/\r?\n$/, '')));
    return { headers, contentType, body: '', parts };
  }
  return { headers, contentType, body: decode(rest, headers['content-transfer-encoding']), parts: [] };
}

/** Every leaf part, depth first. */
export function leaves(part: MimePart): MimePart[] {
  return part.parts.length ? part.parts.flatMap(leaves) : [part];
}
