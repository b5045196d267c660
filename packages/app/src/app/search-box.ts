import type { CSSProperties } from 'react';

/** The header search's box: the same space while its code loads and once it has. */
export const SEARCH_BOX: CSSProperties = { flex: '1 1 auto', maxWidth: 420, minWidth: 0 };
