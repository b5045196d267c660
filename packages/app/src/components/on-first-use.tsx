// A control whose Mantine popover (a menu, a dialog, a combobox's list) is mounted the
// first time it is used rather than with the page. A popover re-renders itself
// synchronously as it mounts (its target's ref is state): the header's three cost every
// signed-in page's first load 7-27 ms each of the main thread (A235), for controls most
// loads never open. Until used, `idle(use)` draws the control alone, looking and named
// the same; `use()` swaps in `active(target)`, whose target element (given the ref) then
// takes the focus and, for a button, the click the idle one took: the popover opens as
// if it had always been there, and gives the focus back to that target when it closes.
import { type ReactElement, type RefObject, useEffect, useRef, useState } from 'react';

export function OnFirstUse<T extends HTMLElement>({
  idle,
  active,
  then = 'click',
}: {
  idle: (use: () => void) => ReactElement;
  active: (target: RefObject<T | null>) => ReactElement;
  /** What the target gets once swapped in: a click (a button), or only the focus (an input). */
  then?: 'click' | 'focus';
}) {
  const [used, setUsed] = useState(false);
  const target = useRef<T>(null);
  useEffect(() => {
    if (!used || !target.current) return;
    target.current.focus();
    if (then === 'click') target.current.click();
  }, [used, then]);
  return used ? active(target) : idle(() => setUsed(true));
}
