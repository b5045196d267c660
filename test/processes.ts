import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { waitFor } from './webhook-receiver.ts';

// Real `npm start` and `fieldwork worker` processes for the operations tests,
// each waited for until ready and bounded in time.

const root = path.resolve(import.meta.dirname, '..');

export interface Proc {
  child: ChildProcess;
  /** stdout only, as the operator's log collector sees it. */
  stdout: string;
  stderr: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface ServerProc extends Proc {
  address: string;
  metrics: string | null;
}

function launch(args: string[], env: Record<string, string>, cwd = root): Proc {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const p: Proc = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
  };
  child.stdout!.on('data', (c: Buffer) => {
    p.stdout += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    p.stderr += c.toString();
  });
  return p;
}

const READY = /Fieldwork listening on (http:\/\/[^"\s;]+)(?: \(links use [^)"]+\))?(?:; metrics on (http:\/\/[^"\s]+))?/;

/**
 * `node --import tsx src/main.ts` on 127.0.0.1, any free port; resolves once its ready line is out.
 * `cwd`: the folder it runs in (default the checkout), where its relative paths (./data/...) lead.
 */
export async function startServer(env: Record<string, string>, cwd = root): Promise<ServerProc> {
  const p = launch(['--import', import.meta.resolve('tsx'), path.join(root, 'src/main.ts')], { PORT: '0', HOST: '127.0.0.1', ...env }, cwd);
  let exited = false;
  void p.exited.then(() => {
    exited = true;
  });
  await waitFor('the server to be ready', () => exited || READY.test(p.stdout), 60_000);
  const m = READY.exec(p.stdout);
  if (!m) throw new Error(`the server did not start:\n${p.stdout}${p.stderr}`);
  // The same object: its stdout keeps growing.
  return Object.assign(p, { address: m[1], metrics: m[2] ?? null });
}

/** `node bin/fieldwork.js worker`; resolves once it says it started. */
export async function startWorker(env: Record<string, string>): Promise<Proc> {
  const p = launch([path.join(root, 'bin', 'fieldwork.js'), 'worker'], env);
  let exited = false;
  void p.exited.then(() => {
    exited = true;
  });
  await waitFor('the worker to start', () => exited || p.stdout.includes('Fieldwork worker started'), 60_000);
  if (!p.stdout.includes('Fieldwork worker started')) throw new Error(`the worker did not start:\n${p.stdout}${p.stderr}`);
  return p;
}

/** Ends what is still running (SIGKILL: a test that got here has already checked what it wanted). */
export async function killAll(procs: Proc[]): Promise<void> {
  for (const p of procs.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await p.exited;
  }
}
