// A162: a form with unsaved changes warns before the page is left: a reload, a
// closed tab or another address (the browser's own `beforeunload` prompt), and a
// link or Back inside the app (react-router's blocker, then the browser's
// confirm dialog: "Leave this page? Your changes are not saved."). Forms say
// whether they have changes through `useUnsavedChanges` (useApiForm does it for
// every form); one `<UnsavedChangesGuard />` in the shell asks, since a router
// takes one blocker at a time and a page may hold several forms.
import { useEffect, useRef } from 'react';
import { useBlocker } from 'react-router';

export const LEAVE_QUESTION = 'Leave this page? Your changes are not saved.';

const dirtyChecks = new Set<{ current: () => boolean }>();
const anyDirty = () => [...dirtyChecks].some((check) => check.current());

/** Registers a form's "has unsaved changes?", asked at the moment of leaving. */
export function useUnsavedChanges(isDirty: () => boolean): void {
  const check = useRef(isDirty);
  check.current = isDirty;
  useEffect(() => {
    dirtyChecks.add(check);
    return () => {
      dirtyChecks.delete(check);
    };
  }, []);
}

export function UnsavedChangesGuard() {
  const blocker = useBlocker(({ currentLocation, nextLocation }) => currentLocation.pathname !== nextLocation.pathname && anyDirty());
  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    if (window.confirm(LEAVE_QUESTION)) blocker.proceed();
    else blocker.reset();
  }, [blocker]);
  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (!anyDirty()) return;
      event.preventDefault();
      event.returnValue = ''; // older browsers ask only when it is set
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, []);
  return null;
}
