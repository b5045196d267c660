import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, describe, test } from 'node:test';
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { LazyRequestLogger, lazyRequestLogger } from '../src/http/request-logger.ts';
import { testDatabase } from './helpers.ts';

// A request's logger is made when it first logs (src/http/request-logger.ts): a
// request that logs nothing makes no pino child, one that logs writes its line
// with the request id, as pino's own child would.
describe('the request logger', () => {
  const captured = () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    // Fastify's own pino, writing to `lines`.
    return { lines, logger: Fastify({ logger: { level: 'warn', stream } }).log };
  };

  test('no child until a line, then one child for every line, with the bindings', () => {
    const { lines, logger } = captured();
    let children = 0;
    const parent = Object.assign(Object.create(logger) as FastifyBaseLogger, {
      child: (b: Record<string, unknown>, o?: object) => {
        children++;
        return logger.child(b, o);
      },
    });
    const log = new LazyRequestLogger(parent, { reqId: 'r-1' }, {});
    assert.equal(log.level, 'warn');
    assert.equal(children, 0);
    log.warn({ ms: 1200 }, 'slow request');
    log.error('failed');
    log.info('below the level: not written');
    assert.equal(children, 1);
    assert.equal(log.made, true);
    assert.deepEqual(
      lines.map((l) => [l.reqId, l.msg, l.ms]),
      [
        ['r-1', 'slow request', 1200],
        ['r-1', 'failed', undefined],
      ],
    );
    log.child({ job: 7 }).warn('nested');
    assert.deepEqual([lines[2]!.reqId, lines[2]!.job, lines[2]!.msg], ['r-1', 7, 'nested']);
  });

  test('in Fastify: a quiet request makes no child; a logging one logs with its request id', async () => {
    const { lines, logger } = captured();
    const app = Fastify({ loggerInstance: logger, childLoggerFactory: lazyRequestLogger, logController: new LogController({ disableRequestLogging: true }) });
    const seen: FastifyBaseLogger[] = [];
    app.addHook('onResponse', (request, _reply, done) => {
      seen.push(request.log);
      done();
    });
    app.get('/quiet', async () => ({ ok: true }));
    app.get('/loud', async (request) => {
      request.log.warn('something to say');
      return { ok: true };
    });
    assert.equal((await app.inject({ url: '/quiet' })).statusCode, 200);
    const loud = await app.inject({ url: '/loud' });
    assert.equal(loud.statusCode, 200);
    assert.ok(seen.every((l) => l instanceof LazyRequestLogger));
    assert.deepEqual(
      seen.map((l) => (l as LazyRequestLogger).made),
      [false, true],
    );
    assert.equal(lines.length, 1);
    assert.equal(lines[0]!.msg, 'something to say');
    assert.match(String(lines[0]!.reqId), /^req-/);
    await app.close();
  });

  const db = testDatabase();
  after(async () => (await db).drop());
  test("the app's requests get it", async () => {
    const { database } = await db;
    const app = await buildApp({ config: loadConfig({ LOG_LEVEL: 'fatal' }), database });
    let log: FastifyBaseLogger | undefined;
    app.addHook('onResponse', (request, _reply, done) => {
      log = request.log;
      done();
    });
    assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
    assert.ok(log instanceof LazyRequestLogger);
    assert.equal(log.made, false);
    await app.close();
  });
});
