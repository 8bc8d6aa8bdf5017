/** The live modal of each project id (the `<modalcore-button>` element reuses it). A module of
 * its own, without React, so that the small entries (loader.ts, the npm package's) share it. */
import type { Modal } from './host';

export const liveModals = new Map<string, Modal>();
