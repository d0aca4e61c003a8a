// A ReplayStore's core and clock, for what is built on the store in this
// package (ReplaySession, durable sessions) and not for users: no entry
// exports this module. The store's fields are private; its static block
// hands the two readers over when live.js is evaluated.

/** The store's live core (throws `closed` after free()). */
export let storeCore;
/** The store's clock reading, in milliseconds. */
export let storeNow;

/** Called by ReplayStore's static block with its private readers. */
export function grantStoreAccess(core, now) {
  storeCore = core;
  storeNow = now;
}
