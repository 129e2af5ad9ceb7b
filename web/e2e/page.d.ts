// What the scenarios read in the page (they run in the browser through page.evaluate / waitForFunction).
declare global {
  interface Window {
    /** The explorer's test hook (web/src/main.ts): graph, sigma, store, graphPane, … */
    __vaultgraph?: any;
    /** Set by a scenario; still there later only if the page was never reloaded. */
    __sameDocument?: boolean;
    /** Set only if markup from a note ever ran as script (web/e2e/reading.test.mjs checks it never is). */
    __pwned?: string;
  }
}

export {};
