// The Import page's header reader (A204): the same columns the API reads, so the
// mapping it sends names them as the API does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvFileHeader, csvHeader } from '../packages/app/src/lib/csv-header.ts';

test('the header row: separator by the first line, quotes, doubled quotes, line breaks, BOM', () => {
  assert.deepEqual(csvHeader('First Name,Last Name,E-mail\nAda,L,a@x.test\n'), ['First Name', 'Last Name', 'E-mail']);
  assert.deepEqual(csvHeader('\uFEFFName;Unit price;"Notes, long"\r\nMow;12,50;x\r\n'), ['Name', 'Unit price', 'Notes, long']);
  assert.deepEqual(csvHeader('"Say ""hi""","Two\nlines", Padded \nrow'), ['Say "hi"', 'Two\nlines', 'Padded']);
  assert.deepEqual(csvHeader('Only'), ['Only']);
  // Only the first 64 KB is read: a later row cut off mid-quote, or of another width, does not matter.
  assert.deepEqual(csvHeader('a,b\n"cut off, mid'), ['a', 'b']);
  assert.deepEqual(csvHeader('a,b\nw,x,y,z\n'), ['a', 'b']);
  assert.deepEqual(csvHeader(''), []);
});

test('a file is read as UTF-8, else as Windows-1252 (as the API reads it)', async () => {
  const utf8 = new File([new TextEncoder().encode('Prénom,Nom\nA,B\n')], 'a.csv');
  assert.deepEqual(await csvFileHeader(utf8), ['Prénom', 'Nom']);
  const win1252 = new File([Uint8Array.from([0x50, 0x72, 0xe9, 0x6e, 0x6f, 0x6d, 0x3b, 0x4e, 0x6f, 0x6d, 0x0a])], 'b.csv');
  assert.deepEqual(await csvFileHeader(win1252), ['Prénom', 'Nom']);
});
