import fsp from 'node:fs/promises';
import { ValidationError } from '../../kernel/errors.ts';
import { type ImageSize, imageSize } from './image-size.ts';

// D20, D27: what a file is comes from its bytes. Binary types must carry their
// format's signature; CSV must be UTF-8 text without NUL bytes, named .csv or
// declared text/csv. A file whose bytes contradict its declared type is refused.

export const MAX_FILE_BYTES = 5 * 1024 * 1024; // SPEC Limits: 5 MB per file

/** SPEC Limits "accepted file types" (image/jpg is accepted as a name for image/jpeg). */
export const ACCEPTED_TYPES = [
  'image/jpeg',
  'image/jpg',
  'image/png',
  'image/webp',
  'application/pdf',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'text/csv',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
] as const;

const EXTENSION: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'text/csv': 'csv',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
};

/** Declared types that say nothing about the content (curl's default, a browser that doesn't know). */
const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/unknown']);
/** Declared types a CSV may arrive with. */
const CSV_DECLARED = new Set(['text/csv', 'text/plain', 'application/csv', 'text/x-csv', 'text/comma-separated-values']);

const reject = (message: string): never => {
  throw new ValidationError([{ path: ['file'], message }]);
};

/** `Image/JPG; charset=x` -> `image/jpeg`. */
export function normalizeType(declared: string | undefined): string {
  const type = (declared ?? '').split(';')[0].trim().toLowerCase();
  return type === 'image/jpg' ? 'image/jpeg' : type;
}

const extensionOf = (fileName: string) => /\.([A-Za-z0-9]{1,8})$/.exec(fileName)?.[1].toLowerCase() ?? '';

// C0 and C1 controls, DEL, and the bidirectional overrides that disguise a name.
const isControl = (c: number) => c <= 0x1f || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
const hasControl = (s: string) => [...s].some((ch) => isControl(ch.codePointAt(0) ?? 0));

/** Problems with a client-given name: used for the display name only, never for storage. */
export function nameProblem(name: string): string | null {
  if (!name.trim()) return 'must not be empty';
  if (/[/\\]/.test(name)) return 'must not contain path separators';
  if (hasControl(name)) return 'must not contain control characters';
  if (name === '.' || name === '..') return 'is not a file name';
  if (name.length > 255) return 'must be at most 255 characters';
  return null;
}

/** The client's file name, checked; it becomes the default display name and `original_file_name`. */
export function checkFileName(fileName: string | undefined): string {
  const problem = fileName ? nameProblem(fileName) : 'is missing';
  if (problem) reject(`file name ${problem}`);
  return fileName as string;
}

export interface CheckedFile {
  mime: string;
  ext: string;
  meta: ImageSize | null;
}

function isCsvText(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The stored type of the staged bytes, or a 400 `Validation error` naming `file`. */
export async function checkFile(file: string, size: number, fileName: string, declaredType: string | undefined): Promise<CheckedFile> {
  if (size === 0) reject('file must not be empty');
  const declared = normalizeType(declaredType);
  const ext = extensionOf(fileName);
  const { fileTypeFromFile } = await import('file-type'); // ESM-only; loaded with the first upload
  const sniffed = await fileTypeFromFile(file);

  let mime = sniffed?.mime as string | undefined;
  if (mime === 'application/x-cfb') {
    // .doc and .xls share the OLE container: the declared type or the name says which.
    if (declared === 'application/msword' || declared === 'application/vnd.ms-excel') mime = declared;
    else if (ext === 'doc') mime = 'application/msword';
    else if (ext === 'xls') mime = 'application/vnd.ms-excel';
    else reject('file is an OLE document that is neither .doc nor .xls');
  }

  if (mime && mime in EXTENSION && mime !== 'text/csv') {
    if (!GENERIC.has(declared) && declared !== mime) reject(`file content is ${mime}, not the declared ${declared}`);
    const meta = mime.startsWith('image/') ? imageSize(mime, await fsp.readFile(file)) : null;
    return { mime, ext: EXTENSION[mime], meta };
  }

  // No binary signature we accept: the only other accepted type is CSV text.
  const csvDeclared = CSV_DECLARED.has(declared);
  if ((GENERIC.has(declared) || csvDeclared) && (ext === 'csv' || declared === 'text/csv') && isCsvText(await fsp.readFile(file))) {
    return { mime: 'text/csv', ext: 'csv', meta: null };
  }
  if (declared && !GENERIC.has(declared) && (ACCEPTED_TYPES as readonly string[]).includes(declared)) {
    return reject(`file content does not match the declared type ${declared}`);
  }
  return reject(`file type is not accepted; accepted: ${ACCEPTED_TYPES.join(', ')}`);
}
