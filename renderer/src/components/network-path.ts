/** The network glyph's path (icons.tsx `network`), alone: the connect button draws it without
 * the rest of the icons or React (the loader's critical path, issue 40 item 8). */
export const NETWORK_PATH = 'M12 2.8l8 4.6v9.2l-8 4.6-8-4.6V7.4z';
