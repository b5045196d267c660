import path from 'node:path';

// A PDF's text as a reader (or a screen reader, or a search) gets it: pdfjs-dist.

export interface PageText {
  /** The page's text, items joined by spaces. */
  text: string;
  items: { str: string; x: number; y: number }[];
  height: number;
}

export async function pdfText(pdf: Buffer | Uint8Array): Promise<PageText[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const standardFontDataUrl = `${path.resolve(import.meta.dirname, '../node_modules/pdfjs-dist/standard_fonts')}/`;
  const doc = await pdfjs.getDocument({ data: new Uint8Array(pdf), standardFontDataUrl, isEvalSupported: false }).promise;
  const pages: PageText[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    const items = content.items
      .filter((i): i is typeof i & { str: string; transform: number[] } => 'str' in i)
      .map((i) => ({ str: i.str, x: i.transform[4], y: i.transform[5] }))
      .filter((i) => i.str.trim());
    pages.push({ text: items.map((i) => i.str).join(' ').replace(/\s+/g, ' '), items, height: page.view[3] });
  }
  await doc.destroy();
  return pages;
}
