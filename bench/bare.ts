// The ceiling: a bare Fastify route, in its own process so the app's memory and
// CPU are measured apart. Prints its address on one line, then serves.
import Fastify from 'fastify';

const bare = Fastify();
bare.get('/bare', async () => ({ success: true, data: { ok: true } }));
console.log(await bare.listen({ port: 0, host: '127.0.0.1' }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
