import { Textarea, type TextareaProps } from '@mantine/core';
import type { CSSProperties } from 'react';
import './growing-textarea.css';

/**
 * A textarea that grows with what is typed. CSS sizes it (`field-sizing: content`), not
 * script: Mantine's `autosize` measures the page in a layout effect, a forced layout on
 * every render of every page with a note box. Browsers without field-sizing show
 * `minRows` lines and scroll.
 */
export function GrowingTextarea({ minRows = 2, ...props }: Omit<TextareaProps, 'autosize' | 'minRows' | 'maxRows' | 'rows'> & { minRows?: number }) {
  return <Textarea {...props} rows={minRows} classNames={{ input: 'fw-grow' }} styles={{ input: { '--fw-rows': minRows } as CSSProperties }} />;
}
