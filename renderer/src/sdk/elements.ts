/**
 * `@modalcore/sdk/elements`: `<modalcore-button>` for pages without React. Importing defines it
 * in the browser (nothing happens on a server); `defineButtonElement(name)` defines it under
 * another name.
 */
import { defineButtonElement } from '../element';
import { createModal } from '../lazy-host';

export { defineButtonElement };

defineButtonElement('modalcore-button', createModal);
