// Every select of the app that opens a list (A13, A150): Mantine's Select draws an input and
// a listbox but does not call the input a combobox, so people with a screen reader (and
// getByRole('combobox', {name: 'Client'})) did not find it. This one is the ARIA 1.2
// combobox: role, aria-expanded kept with the dropdown, aria-autocomplete when it searches.
import { Select, type SelectProps } from '@mantine/core';
import { useMergedRef } from '@mantine/hooks';
import { type Ref, useEffect, useRef, useState } from 'react';

export function ComboSelect({ ref, onDropdownOpen, onDropdownClose, ...props }: SelectProps & { ref?: Ref<HTMLInputElement> }) {
  const [open, setOpen] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const merged = useMergedRef(input, ref);
  // Mantine sets aria-expanded only while its list has options (a prop would be overwritten): set it after each render.
  useEffect(() => {
    input.current?.setAttribute('aria-expanded', String(open));
  });
  return (
    <Select
      // Mantine's scroll area sits inside the listbox: a scrolling list there is a region no key
      // reaches (axe: scrollable-region-focusable), so the list is as long as its options.
      withScrollArea={false}
      {...props}
      role="combobox"
      aria-autocomplete={props.searchable ? 'list' : 'none'}
      ref={merged}
      onDropdownOpen={() => {
        setOpen(true);
        onDropdownOpen?.();
      }}
      onDropdownClose={() => {
        setOpen(false);
        onDropdownClose?.();
      }}
    />
  );
}
