// `npx tsx bench/heap-diff.ts A.heapsnapshot B.heapsnapshot`: what grew between two V8
// heap snapshots (bench/soak.ts SOAK_SNAPSHOTS=DIR writes them), by object kind: the
// node's type and, for objects, its constructor; for strings, code and arrays, the type.
// The total of each snapshot first, then the 25 kinds that grew most, in bytes.
import fs from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: (string[] | string)[] } };
  nodes: number[];
  strings: string[];
}

function byKind(file: string): { total: number; kinds: Map<string, { count: number; bytes: number }> } {
  const s = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0] as string[];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const kinds = new Map<string, { count: number; bytes: number }>();
  let total = 0;
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const type = types[s.nodes[i + typeAt]];
    const name = s.strings[s.nodes[i + nameAt]];
    const kind = type === 'object' || type === 'closure' ? `${type} ${name.slice(0, 60)}` : type === 'native' ? `native ${name.slice(0, 60)}` : type;
    const size = s.nodes[i + sizeAt];
    total += size;
    const k = kinds.get(kind) ?? { count: 0, bytes: 0 };
    k.count++;
    k.bytes += size;
    kinds.set(kind, k);
  }
  return { total, kinds };
}

const [a, b] = process.argv.slice(2);
if (!a || !b) throw new Error('usage: heap-diff.ts A.heapsnapshot B.heapsnapshot');
const before = byKind(a);
const after = byKind(b);
const mb = (n: number) => (n / 1048576).toFixed(2);
console.log(`heap: ${mb(before.total)} MB -> ${mb(after.total)} MB`);
const grown = [...after.kinds].map(([kind, k]) => {
  const was = before.kinds.get(kind) ?? { count: 0, bytes: 0 };
  return { kind, count: k.count - was.count, bytes: k.bytes - was.bytes, now: k.bytes };
});
grown.sort((x, y) => y.bytes - x.bytes);
console.log('| kind | objects added | MB added | MB now |\n|---|---:|---:|---:|');
for (const g of grown.slice(0, 25)) console.log(`| ${g.kind.replace(/\|/g, '\\|')} | ${g.count} | ${mb(g.bytes)} | ${mb(g.now)} |`);
