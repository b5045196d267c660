import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { imageSize } from './image-size.ts';
import { jpeg, png, webp } from '../../../test/upload-fixtures.ts';

// The header parsers behind `meta` of image uploads, on every layout they read.
describe('image dimensions', () => {
  test('PNG', () => {
    assert.deepEqual(imageSize('image/png', png(300, 200)), { width: 300, height: 200 });
  });

  test('JPEG: baseline and progressive frames, after other segments and fill bytes', () => {
    assert.deepEqual(imageSize('image/jpeg', jpeg(640, 480)), { width: 640, height: 480 });
    const progressive = Buffer.from(jpeg(1024, 768));
    progressive[21] = 0xc2;
    assert.deepEqual(imageSize('image/jpeg', progressive), { width: 1024, height: 768 });
    // An EXIF segment and a fill byte before the frame.
    const exif = Buffer.concat([Buffer.from([0xff, 0xe1, 0x00, 0x08]), Buffer.from('Exif\0\0', 'latin1')]);
    const j = jpeg(12, 34);
    const withExif = Buffer.concat([j.subarray(0, 2), exif, Buffer.from([0xff]), j.subarray(2)]);
    assert.deepEqual(imageSize('image/jpeg', withExif), { width: 12, height: 34 });
  });

  test('WebP: VP8X, lossy VP8 and lossless VP8L', () => {
    assert.deepEqual(imageSize('image/webp', webp(4000, 3000)), { width: 4000, height: 3000 });
    const lossy = Buffer.alloc(30);
    lossy.write('RIFF', 0, 'latin1');
    lossy.write('WEBP', 8, 'latin1');
    lossy.write('VP8 ', 12, 'latin1');
    lossy.set([0x9d, 0x01, 0x2a], 23);
    lossy.writeUInt16LE(320, 26);
    lossy.writeUInt16LE(240, 28);
    assert.deepEqual(imageSize('image/webp', lossy), { width: 320, height: 240 });
    const lossless = Buffer.alloc(30);
    lossless.write('RIFF', 0, 'latin1');
    lossless.write('WEBP', 8, 'latin1');
    lossless.write('VP8L', 12, 'latin1');
    lossless[20] = 0x2f;
    lossless.writeUInt32LE((100 - 1) | ((50 - 1) << 14), 21);
    assert.deepEqual(imageSize('image/webp', lossless), { width: 100, height: 50 });
  });

  test('truncated or foreign bytes give null, never a throw', () => {
    assert.equal(imageSize('image/png', png(3, 3).subarray(0, 20)), null);
    assert.equal(imageSize('image/jpeg', jpeg(3, 3).subarray(0, 22)), null);
    assert.equal(imageSize('image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xda, 0, 2])), null);
    assert.equal(imageSize('image/webp', Buffer.from('RIFF____WEBPVP8?', 'latin1')), null);
    assert.equal(imageSize('application/pdf', Buffer.from('%PDF')), null);
  });
});
